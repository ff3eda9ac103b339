import { createHash } from 'node:crypto';
import type { Doc, Span } from '../../doc/document.js';
import type { Stage } from '../../core/stage.js';
import { editDocument, itemsOf, type TextEdit } from './items.js';
import { resolveWithSpec, type OptionSpec } from './options.js';
import { secretRules, type SecretRule } from './secret-rules.js';

/**
 * Secret redaction: every match of a rule is replaced by the rule's placeholder
 * (`<SECRET_AWS_KEY>`), the text around it unchanged, offsets of special tokens, loss-mask
 * spans and file boundaries carried along. Secrets are never written to logs or stats: a
 * finding is shown by rule, place and the first 16 hex digits of the secret's SHA-256.
 */
export interface RedactOptions {
  emails: boolean;
  ips: boolean;
  /** Bits per character a generic `secret = "..."` value needs. */
  minEntropy: number;
  /** Rule ids to turn off. */
  disable: string[];
}

const SPEC: Record<keyof RedactOptions, OptionSpec> = {
  emails: { type: 'boolean', default: false },
  ips: { type: 'boolean', default: false },
  minEntropy: { type: 'number', default: 3.5, min: 0, max: 8 },
  disable: { type: 'strings', default: [] },
};

export const REDACT_OPTION_NAMES = Object.keys(SPEC);

export function resolveRedactOptions(raw: Record<string, unknown>): RedactOptions {
  const o = resolveWithSpec(raw, SPEC, 'redact') as unknown as RedactOptions;
  const ids = secretRules(0).map((r) => r.id);
  for (const d of o.disable) if (!ids.includes(d)) throw new Error(`redact: "${d}" in disable is not a rule (rules: ${ids.join(', ')})`);
  return o;
}

export function activeRules(o: RedactOptions): SecretRule[] {
  return secretRules(o.minEntropy).filter((r) => !o.disable.includes(r.id) && (!r.optional || (r.id === 'email' ? o.emails : o.ips)));
}

export interface Finding {
  rule: string;
  start: number;
  end: number;
  placeholder: string;
  sha256: string;
}

export const secretHash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/** The findings in a text, sorted, overlaps resolved in favour of the earlier (then longer) one; none crosses a special token. */
export function findSecrets(text: string, rules: readonly SecretRule[], specials: readonly Span[] = []): Finding[] {
  const all: Finding[] = [];
  for (const r of rules) {
    r.pattern.lastIndex = 0;
    for (let m = r.pattern.exec(text); m; m = r.pattern.exec(text)) {
      const secret = m[r.group];
      if (secret === undefined) continue;
      const start = m.index + (r.group ? m[0].indexOf(secret) : 0);
      if (r.check && !r.check(secret, m)) continue;
      all.push({ rule: r.id, start, end: start + secret.length, placeholder: r.placeholder, sha256: secretHash(secret) });
    }
  }
  all.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  for (const f of all) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) continue;
    if (specials.some(([a, b]) => a < f.end && f.start < b)) continue;
    out.push(f);
  }
  return out;
}

export function redactStage(options: RedactOptions): Stage {
  const rules = activeRules(options);
  return async function* (docs, ctx) {
    const byRule: Record<string, number> = {};
    const examples: { rule: string; document: string; file?: string; line: number; sha256: string }[] = [];
    let documentsWithSecrets = 0;
    let linesChanged = 0;
    let lines = 0;
    for await (const doc of docs) {
      lines += countLines(doc.text);
      const findings = findSecrets(doc.text, rules, doc.special_spans);
      if (findings.length) {
        documentsWithSecrets++;
        const items = itemsOf(doc);
        const changed = new Set<number>();
        for (const f of findings) {
          byRule[f.rule] = (byRule[f.rule] ?? 0) + 1;
          const line = countLines(doc.text.slice(0, f.start));
          for (let l = line; l <= line + countLines(doc.text.slice(f.start, f.end)) - 1; l++) changed.add(l);
          if (examples.length < 50) {
            const item = items.find((it) => it.start <= f.start && f.start <= it.end);
            examples.push({ rule: f.rule, document: doc.id, ...(item?.path !== undefined ? { file: item.path } : {}), line, sha256: f.sha256 });
          }
        }
        linesChanged += changed.size;
      }
      const edits: TextEdit[] = findings.map((f) => ({ start: f.start, end: f.end, replacement: f.placeholder }));
      const out: Doc = editDocument(doc, edits);
      ctx.ledger.output();
      yield out;
    }
    ctx.stats.redact = {
      rules: rules.map((r) => r.id),
      secrets: Object.values(byRule).reduce((s, n) => s + n, 0),
      secrets_by_rule: Object.fromEntries(Object.entries(byRule).sort()),
      documents_with_secrets: documentsWithSecrets,
      lines,
      lines_changed: linesChanged,
      examples,
    };
  };
}

/** Lines of a text, counted as 1 + newlines (the line a finding starts on is 1-based). */
function countLines(s: string): number {
  let n = 1;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
