import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { collect, defaultContext, fromArray } from '../../../src/core/stage.js';
import { Rng } from '../../../src/core/random.js';
import type { Doc } from '../../../src/doc/document.js';
import { formatRepoDocument, parseRepoDocument } from '../../../src/stages/repos/format.js';
import { findSecrets, redactStage, resolveRedactOptions, activeRules, secretHash } from '../../../src/stages/hygiene/redact.js';
import { repoRoot } from '../../helpers/paths.js';

const rng = new Rng(7, 'secrets');
const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[rng.int(0, alphabet.length)]).join('');
const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOW = 'abcdefghijklmnopqrstuvwxyz';
const DIG = '0123456789';
const ALNUM = UP + LOW + DIG;
const B64 = ALNUM + '+/';
const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');

/** One real-format example of every rule, in the context such a secret is found in: config files, code, URLs. */
function examples(): { rule: string; secret: string; text: string }[] {
  const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ sub: '1234567890', name: 'Jane Doe', iat: 1516239022 }));
  const jwt = `${header}.${payload}.${createHmac('sha256', 'k').update(`${header}.${payload}`).digest('base64url')}`;
  const awsSecret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'; // AWS documentation's example secret key
  const azureKey = randomBytesFrom(64).toString('base64');
  const ex = [
    { rule: 'private_key', secret: pem.trim(), text: (s: string) => `const key = \`\n${s}\n\`;\n` },
    { rule: 'aws_access_key', secret: 'AKIAIOSFODNN7EXAMPLE', text: (s: string) => `[default]\naws_access_key_id = ${s}\n` },
    { rule: 'aws_secret_key', secret: awsSecret, text: (s: string) => `aws_secret_access_key = ${s}\n` },
    { rule: 'gcp_api_key', secret: 'AIza' + pick(ALNUM + '-_', 35), text: (s: string) => `const firebaseConfig = { apiKey: "${s}" };\n` },
    { rule: 'gcp_oauth_secret', secret: 'GOCSPX-' + pick(ALNUM + '-_', 28), text: (s: string) => `"client_secret": "${s}",\n` },
    { rule: 'github_token', secret: 'ghp_' + pick(ALNUM, 36), text: (s: string) => `git clone https://github.com/acme/app.git # token ${s}\n` },
    { rule: 'github_token', secret: 'github_pat_' + pick(ALNUM + '_', 82), text: (s: string) => `GITHUB_TOKEN=${s}\n` },
    { rule: 'gitlab_token', secret: 'glpat-' + pick(ALNUM + '-_', 20), text: (s: string) => `export GITLAB_TOKEN=${s}\n` },
    { rule: 'slack_token', secret: `xoxb-${pick(DIG, 12)}-${pick(DIG, 13)}-${pick(ALNUM, 24)}`, text: (s: string) => `slack_client = WebClient(token="${s}")\n` },
    { rule: 'slack_webhook', secret: `https://hooks.slack.com/services/T${pick(UP + DIG, 8)}/B${pick(UP + DIG, 10)}/${pick(ALNUM, 24)}`, text: (s: string) => `WEBHOOK = '${s}'\n` },
    { rule: 'stripe_key', secret: 'sk_live_' + pick(ALNUM, 24), text: (s: string) => `stripe.api_key = "${s}"\n` },
    { rule: 'openai_key', secret: `sk-proj-${pick(ALNUM + '_-', 40)}T3BlbkFJ${pick(ALNUM + '_-', 40)}`, text: (s: string) => `client = OpenAI(api_key="${s}")\n` },
    { rule: 'anthropic_key', secret: `sk-ant-api03-${pick(ALNUM + '_-', 93)}AA`, text: (s: string) => `ANTHROPIC_API_KEY=${s}\n` },
    { rule: 'azure_storage_key', secret: azureKey, text: (s: string) => `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${s};EndpointSuffix=core.windows.net\n` },
    { rule: 'azure_client_secret', secret: `${pick(ALNUM, 3)}8Q~${pick(ALNUM + '_~.-', 34)}`, text: (s: string) => `AZURE_CLIENT_SECRET="${s}"\n` },
    { rule: 'npm_token', secret: 'npm_' + pick(ALNUM, 36), text: (s: string) => `//registry.npmjs.org/:_authToken=${s}\n` },
    { rule: 'sendgrid_key', secret: `SG.${pick(ALNUM + '_-', 22)}.${pick(ALNUM + '_-', 43)}`, text: (s: string) => `sgMail.setApiKey('${s}');\n` },
    { rule: 'huggingface_token', secret: 'hf_' + pick(UP + LOW, 34), text: (s: string) => `login(token="${s}")\n` },
    { rule: 'twilio_key', secret: 'SK' + pick('0123456789abcdef', 32), text: (s: string) => `api_key_sid = '${s}'\n` },
    { rule: 'jwt', secret: jwt, text: (s: string) => `Authorization: Bearer ${s}\n` },
    { rule: 'url_password', secret: 'Tr0ub4dor&3', text: (s: string) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/prod\n` },
    { rule: 'generic_secret', secret: pick(B64, 32), text: (s: string) => `const clientSecret = "${s}";\n` },
    { rule: 'generic_secret', secret: pick(ALNUM, 24), text: (s: string) => `DB_PASSWORD: '${s}'\n` },
  ];
  return ex.map((e) => ({ rule: e.rule, secret: e.secret, text: e.text(e.secret) }));
}

function randomBytesFrom(n: number): Buffer {
  return Buffer.from(Array.from({ length: n }, () => rng.int(0, 256)));
}

test('a real-format example of every rule is redacted completely, by its placeholder, and reported by hash only', async () => {
  const ex = examples();
  const rules = activeRules(resolveRedactOptions({}));
  const ruleIds = new Set(rules.map((r) => r.id));
  for (const id of ruleIds) assert.ok(ex.some((e) => e.rule === id), `an example of ${id}`);
  for (const e of ex) {
    const found = findSecrets(e.text, rules);
    assert.deepEqual(found.map((f) => [f.rule, e.text.slice(f.start, f.end)]), [[e.rule, e.secret]], `${e.rule}: ${e.text.slice(0, 40)}`);
  }
  // All of them in one repository document: structure kept, every secret gone, placeholders in place.
  const files = ex.map((e, i) => ({ path: `config/${i}-${e.rule}.txt`, content: `# settings\n${e.text}# end\n` }));
  const r = formatRepoDocument('acme/leaky', files);
  const doc: Doc = { id: 'leaky', kind: 'repo', source: 'acme/leaky', text: r.text, meta: { boundaries: r.boundaries, files: files.length }, special_spans: r.special_spans };
  const ctx = defaultContext({ log: () => {} });
  const [out] = await collect(redactStage(resolveRedactOptions({}))(fromArray([doc]), ctx));
  for (const e of ex) assert.ok(!out!.text.includes(e.secret), `${e.rule} removed`);
  const parsed = parseRepoDocument(out!);
  assert.deepEqual(parsed.files.map((f) => f.path), files.map((f) => f.path));
  parsed.files.forEach((f, i) => {
    const rule = rules.find((x) => x.id === ex[i]!.rule)!;
    assert.equal(f.content, files[i]!.content.replace(ex[i]!.secret, rule.placeholder));
  });
  assert.deepEqual(out!.meta.boundaries, formatRepoDocument('acme/leaky', parsed.files).boundaries);
  const stats = ctx.stats.redact as { secrets: number; secrets_by_rule: Record<string, number>; examples: { sha256: string; file: string }[] };
  assert.equal(stats.secrets, ex.length);
  const json = JSON.stringify({ stats: ctx.stats, ledger: ctx.ledger.toJSON() });
  for (const e of ex) assert.ok(!json.includes(e.secret), `${e.rule} never in stats`);
  assert.ok(stats.examples.some((x) => x.sha256 === secretHash(ex[0]!.secret) && x.file === files[0]!.path));
});

test('look-alikes are left alone: placeholders, identifiers, hashes in lock files, documentation URLs', () => {
  const rules = activeRules(resolveRedactOptions({}));
  const clean = [
    'const token = process.env.GITHUB_TOKEN;',
    'password: "${DB_PASSWORD}"',
    'api_key = "your-api-key-here"',
    'const secretName = "aws-secretsmanager-name";',
    '"integrity": "sha512-ZdD7Z0bD7sB5zG0T0EBtUZdPDMGlDJdp6Ac2u0jN1Xz0VDv4m3g7I+q9rYo3qKyWh2H3wYx+Z1oG2Q=="',
    'url = "https://user:password@example.com/"',
    'const AWS_REGION = "us-east-1";',
  ].join('\n');
  assert.deepEqual(findSecrets(clean, rules).map((f) => f.rule), []);
  const opt = activeRules(resolveRedactOptions({ emails: true, ips: true }));
  assert.deepEqual(findSecrets('mail jane.doe@acme.io from 203.0.113.7, not 127.0.0.1', opt).map((f) => f.rule), ['email', 'ip_address']);
});

test('real source code (node_modules) has fewer than 1 in 10,000 lines changed', async () => {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(js|cjs|mjs|ts|json|md)$/.test(e.name) && statSync(p).size < 1 << 20) files.push(p);
    }
  };
  for (const d of ['commander', 'yaml', 'semver', 'debug', 'htmlparser2', 'linkedom', '@types/node', 'apache-arrow', 'undici-types']) walk(resolve(repoRoot, 'node_modules', d));
  const docs: Doc[] = files.map((f) => ({ id: f, kind: 'text', source: f, text: readFileSync(f, 'utf8'), meta: {} }));
  const ctx = defaultContext({ log: () => {} });
  const out = await collect(redactStage(resolveRedactOptions({}))(fromArray(docs), ctx));
  assert.equal(out.length, docs.length);
  const s = ctx.stats.redact as { lines: number; lines_changed: number };
  assert.ok(s.lines >= 200_000, `${s.lines} lines`);
  assert.ok(s.lines_changed * 10_000 < s.lines, `${s.lines_changed} of ${s.lines} lines changed`);
});
