/**
 * Secret rules in the style of gitleaks: each names a provider format, its regular
 * expression, which capture group is the secret (the rest of the match is context that stays,
 * so `AccountKey=<SECRET_AZURE_KEY>` keeps its key name), and an optional check that turns
 * down look-alikes. The formats are the providers' documented ones; the tests hold a
 * real-format example of each.
 */
export interface SecretRule {
  id: string;
  placeholder: string;
  pattern: RegExp;
  /** Capture group holding the secret; 0 for the whole match. */
  group: number;
  check?: (secret: string, match: RegExpExecArray) => boolean;
  /** Rules that are off unless asked for (personal data rather than credentials). */
  optional?: boolean;
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const PLACEHOLDER = /^(?:\$\{|\{\{|<|%\(|%s|\*+$|x+$|\.\.\.)|example|placeholder|changeme|your[_-]|dummy|sample|redacted|process\.env|^(?:pass(?:word)?|secret|token|test|null|undefined|none|true|false)$/i;

const notPlaceholder = (s: string) => !PLACEHOLDER.test(s);
const hasDigitAndLetter = (s: string) => /\d/.test(s) && /[A-Za-z]/.test(s);

export function secretRules(minEntropy: number): SecretRule[] {
  return [
    {
      id: 'private_key',
      placeholder: '<SECRET_PRIVATE_KEY>',
      // The body: base64 lines, PEM headers (Proc-Type, DEK-Info) and escaped newlines of a key kept in a string.
      pattern: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----(?:\\r|\\n|[A-Za-z0-9+/=\s:,-])+?-----END \1PRIVATE KEY(?: BLOCK)?-----/g,
      group: 0,
      check: (s) => (s.slice(s.indexOf('-----', 10) + 5, s.lastIndexOf('-----END')).replace(/\\[rn]/g, '').match(/[A-Za-z0-9+/]/g)?.length ?? 0) >= 64,
    },
    { id: 'aws_access_key', placeholder: '<SECRET_AWS_KEY>', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z2-7]{16}\b/g, group: 0 },
    {
      id: 'aws_secret_key',
      placeholder: '<SECRET_AWS_SECRET>',
      pattern: /aws[\w.-]{0,20}?(?:secret|private)[\w.-]{0,20}["']?\s*(?:[:=]{1,2}>?|,)\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
      group: 1,
      check: (s) => entropy(s) >= 4,
    },
    { id: 'gcp_api_key', placeholder: '<SECRET_GCP_API_KEY>', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, group: 0 },
    { id: 'gcp_oauth_secret', placeholder: '<SECRET_GCP_OAUTH_SECRET>', pattern: /\bGOCSPX-[0-9A-Za-z_-]{28}(?![0-9A-Za-z_-])/g, group: 0 },
    { id: 'github_token', placeholder: '<SECRET_GITHUB_TOKEN>', pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{82}\b/g, group: 0 },
    { id: 'gitlab_token', placeholder: '<SECRET_GITLAB_TOKEN>', pattern: /\b(?:glpat|gldt|glrt|glptt|glcbt)-[A-Za-z0-9_-]{20}(?![A-Za-z0-9_-])/g, group: 0 },
    { id: 'slack_token', placeholder: '<SECRET_SLACK_TOKEN>', pattern: /\bxox[abposr]-(?:\d+-)+[0-9A-Za-z]{16,}\b/g, group: 0 },
    { id: 'slack_webhook', placeholder: '<SECRET_SLACK_WEBHOOK>', pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9+/]{40,}/g, group: 0 },
    { id: 'stripe_key', placeholder: '<SECRET_STRIPE_KEY>', pattern: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,99}\b/g, group: 0 },
    { id: 'openai_key', placeholder: '<SECRET_OPENAI_KEY>', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}/g, group: 0 },
    { id: 'anthropic_key', placeholder: '<SECRET_ANTHROPIC_KEY>', pattern: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,}/g, group: 0 },
    { id: 'azure_storage_key', placeholder: '<SECRET_AZURE_KEY>', pattern: /AccountKey=([A-Za-z0-9+/]{86}==)/g, group: 1 },
    { id: 'azure_client_secret', placeholder: '<SECRET_AZURE_CLIENT_SECRET>', pattern: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g, group: 0 },
    { id: 'npm_token', placeholder: '<SECRET_NPM_TOKEN>', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, group: 0 },
    { id: 'sendgrid_key', placeholder: '<SECRET_SENDGRID_KEY>', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, group: 0 },
    { id: 'huggingface_token', placeholder: '<SECRET_HF_TOKEN>', pattern: /\bhf_[A-Za-z]{34}\b/g, group: 0 },
    { id: 'twilio_key', placeholder: '<SECRET_TWILIO_KEY>', pattern: /\bSK[0-9a-f]{32}\b/g, group: 0 },
    { id: 'jwt', placeholder: '<SECRET_JWT>', pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, group: 0 },
    {
      id: 'url_password',
      placeholder: '<SECRET_PASSWORD>',
      pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@"'`<>()]{1,64}:([^\s:/@"'`<>()]{3,128})@[^\s/@"'`<>]/gi,
      group: 1,
      check: notPlaceholder,
    },
    {
      id: 'generic_secret',
      placeholder: '<SECRET_GENERIC>',
      pattern: /(?:secret|token|passw(?:or)?d|pwd|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key|credential)[\w.-]{0,20}["']?\s*(?:[:=]{1,2}>?)\s*["'`]([^"'`\s]{12,200})["'`]/gi,
      group: 1,
      check: (s) => notPlaceholder(s) && hasDigitAndLetter(s) && entropy(s) >= minEntropy && !/^[a-z]+(?:[._/-][a-z]+)*$/i.test(s) && !/[(){}\[\]\\]|^\.|\/\//.test(s),
    },
    { id: 'email', placeholder: '<EMAIL>', pattern: /\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g, group: 0, optional: true },
    {
      id: 'ip_address',
      placeholder: '<IP_ADDRESS>',
      pattern: /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g,
      group: 0,
      optional: true,
      // Loopback, private, link-local and unspecified addresses identify nobody.
      check: (s) => !/^(?:0\.|10\.|127\.|169\.254\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.|255\.)/.test(s),
    },
  ];
}
