import { REFERENCE_CLASSES } from './unicode-classes-table.js';

/**
 * A pre-tokenizer regex with its Unicode classes as the Rust reference matches them.
 *
 * V8's \p{L}, \p{N}, \s... follow V8's Unicode version, newer than the reference's regex
 * engine's: a mark or letter assigned since then (U+10EFA, Unicode 16) is \p{M} to V8 and
 * unassigned to the reference, and the pieces part ways. Each class the table knows
 * (unicode-classes-table.ts, generated from the reference) is written out as its ranges; other
 * escapes are kept. A negated class inside a bracket cannot be written out: that pattern is
 * returned as it was, with the reason.
 */
const NAMES: Record<string, string> = { 'White_Space': 's' };

function ranges(name: string): string {
  const r = REFERENCE_CLASSES[name]!;
  let out = '';
  for (let i = 0; i < r.length; i += 2) out += r[i] === r[i + 1] ? cp(r[i]!) : `${cp(r[i]!)}-${cp(r[i + 1]!)}`;
  return out;
}
const cp = (c: number) => `\\u{${c.toString(16)}}`;

/** The table's class for an escape (`\s`, `\p{L}`, `\P{White_Space}`), with whether it is negated. */
function classOf(escape: string): { name: string; negated: boolean } | undefined {
  if (escape === '\\s' || escape === '\\S') return { name: 's', negated: escape === '\\S' };
  const m = /^\\([pP])\{([A-Za-z_]+)\}$/.exec(escape);
  if (!m) return undefined;
  const name = NAMES[m[2]!] ?? m[2]!;
  return REFERENCE_CLASSES[name] ? { name, negated: m[1] === 'P' } : undefined;
}

/**
 * @huggingface/tokenizers writes a `(?i:...)` group's letters as `[sS]`, `[tT]`...; the
 * reference's engine matches a letter case-insensitively by Unicode's simple case folding, under
 * which two ASCII letters have a third member: U+017F LATIN SMALL LETTER LONG S folds to s, and
 * U+212A KELVIN SIGN to k. o200k's contractions follow a word (`(?i:'s|'t|...)?`), so "e'ſ'LLa"
 * is "e'ſ" + "'LLa" to the reference and "e" + "'ſ'LL" + "a" without this.
 */
const CASE_FOLD_EXTRA: Record<string, string> = { '[sS]': '[sS\\u{17f}]', '[kK]': '[kK\\u{212a}]' };

export function referenceRegex(pattern: RegExp): { regex: RegExp; reason?: string } {
  if (!pattern.unicode) return { regex: pattern, reason: 'not a Unicode regex' };
  const src = pattern.source;
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    const folded = ch === '[' && !inClass ? CASE_FOLD_EXTRA[src.slice(i, i + 4)] : undefined;
    if (folded) {
      out += folded;
      i += 3;
      continue;
    }
    if (ch !== '\\') {
      if (ch === '[' && !inClass) inClass = true;
      else if (ch === ']' && inClass) inClass = false;
      out += ch;
      continue;
    }
    const brace = src[i + 1] === 'p' || src[i + 1] === 'P' ? src.indexOf('}', i) : -1;
    const escape = brace > 0 ? src.slice(i, brace + 1) : src.slice(i, i + 2);
    i += escape.length - 1;
    const cls = classOf(escape);
    if (!cls) out += escape;
    else if (!inClass) out += `[${cls.negated ? '^' : ''}${ranges(cls.name)}]`;
    else if (!cls.negated) out += ranges(cls.name);
    else return { regex: pattern, reason: `${escape} inside a bracket` };
  }
  return { regex: new RegExp(out, pattern.flags) };
}
