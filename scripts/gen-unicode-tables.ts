/**
 * Generates two tables from the Rust reference (the npm package `tokenizers`, a devDependency):
 *
 * - src/tokenize/unicode-classes-table.ts: the code points of each Unicode class the shipped
 *   pre-tokenizer patterns use (\p{L}, \p{N}, \s...), as the reference's regex engine
 *   (Oniguruma, with its own Unicode version) matches them. V8's classes follow a newer Unicode,
 *   so a pattern is rewritten with these before it runs (unicode-classes.ts).
 * - src/tokenize/nfc-reference-table.ts: the code points where its NFC and V8's differ.
 *
 * The reference normalizes with older Unicode tables than V8's ICU. Normalization is stable
 * across Unicode versions for characters already assigned, so the two differ only on characters
 * the reference does not know: to it they are starters that decompose, reorder and compose with
 * nothing. Those are the code points listed here (nfc.ts splits at them). Run it again when the
 * reference or Node is upgraded:
 *
 *   npm run build && node dist/scripts/gen-unicode-tables.js
 *
 * test/tokenize/nfc.test.ts checks the list against the reference on every code point.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { repoRoot } from '../test/helpers/paths.js';

interface Normalizer {
  normalizeString(s: string): string;
}
interface RustTokenizer {
  getPreTokenizer(): { preTokenizeString(s: string): [string, [number, number]][] } | null;
}
const reference = createRequire(import.meta.url)('tokenizers') as { nfcNormalizer(): Normalizer; nfdNormalizer(): Normalizer; Tokenizer: { fromString(json: string): RustTokenizer } };

/** The classes of the shipped patterns, by the name the table uses, with the regex that matches one. */
export const CLASSES: Record<string, string> = {
  L: '\\p{L}',
  N: '\\p{N}',
  M: '\\p{M}',
  P: '\\p{P}',
  S: '\\p{S}',
  Lu: '\\p{Lu}',
  Ll: '\\p{Ll}',
  Lt: '\\p{Lt}',
  Lm: '\\p{Lm}',
  Lo: '\\p{Lo}',
  s: '\\s',
};

/** The reference's Split pre-tokenizer for one regex, removing its matches. */
function referenceSplitter(regex: string): RustTokenizer {
  const json = {
    version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null, post_processor: null, decoder: null,
    pre_tokenizer: { type: 'Split', pattern: { Regex: regex }, behavior: 'Removed', invert: false },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, vocab: {}, merges: [] },
  };
  return reference.Tokenizer.fromString(JSON.stringify(json));
}

/** The scalar values the reference's `regex` matches one at a time, as [first, last] ranges. */
export function referenceClass(regex: string): [number, number][] {
  const splitter = referenceSplitter(regex).getPreTokenizer()!;
  const ranges: [number, number][] = [];
  const add = (c: number) => {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === c - 1) last[1] = c;
    else ranges.push([c, c]);
  };
  for (let block = 0; block < 0x110000; block += 0x10000) {
    const cps: number[] = [];
    for (let c = block; c < block + 0x10000; c++) if (c < 0xd800 || c >= 0xe000) cps.push(c);
    // Removed: what is left are the non-members, with offsets in code points of the block.
    const kept = new Uint8Array(cps.length);
    for (const [, [a, b]] of splitter.preTokenizeString(String.fromCodePoint(...cps))) kept.fill(1, a, b);
    cps.forEach((c, i) => kept[i] || add(c));
  }
  return ranges;
}

/** Marks of many combining classes (ccc 1, 7, 9, 202, 216..240), for the reordering probes. */
export const PROBE_MARKS = ['\u0334', '\u093c', '\u094d', '\u0327', '\u0f71', '\u0316', '\u0301', '\u0345', '\u035c', '\u035d', '\u05b0', '\u0e38', '\u1dce', '\u302a', '\u0f72', '\u0f74', '\u0f80', '\u031b'];

/** The probe strings of one code point: alone, after a letter, among marks. */
export function probes(c: string): string[] {
  const out = [c, 'a' + c, c + '\u0301', 'A' + c + '\u0301', c + '\u0307'];
  for (const m of PROBE_MARKS) out.push('a' + c + m, 'a' + m + c);
  return out;
}

/** Every scalar value where a probe's NFC differs between `nfc` and `other` (V8's by default), batched: "\n" never composes, so a batch's NFC is its parts'. */
export function differingCodePoints(nfc: (s: string) => string, other = (s: string) => s.normalize('NFC')): Set<number> {
  const found = new Set<number>();
  const batch: number[] = [];
  const flush = () => {
    const parts = batch.flatMap((c) => probes(String.fromCodePoint(c)));
    const joined = parts.join('\n');
    if (nfc(joined) !== other(joined)) {
      for (const c of batch) if (probes(String.fromCodePoint(c)).some((p) => nfc(p) !== other(p))) found.add(c);
    }
    batch.length = 0;
  };
  for (let c = 0x80; c < 0x110000; c++) {
    if (c >= 0xd800 && c < 0xe000) continue;
    batch.push(c);
    if (batch.length === 1024) flush();
  }
  flush();
  return found;
}

function main(): void {
  writeClasses();
  writeNfc();
}

function writeClasses(): void {
  const lines = Object.entries(CLASSES).map(([name, regex]) => `  ${name}: [${referenceClass(regex).flat().map((c) => '0x' + c.toString(16)).join(', ')}],`);
  const file = `// Generated by scripts/gen-unicode-tables.ts from the npm package tokenizers; do not edit.

/** Each class as the Rust reference's regex engine matches it: [first, last] pairs, flat, ascending. */
export const REFERENCE_CLASSES: Readonly<Record<string, readonly number[]>> = {
${lines.join('\n')}
};
`;
  const out = join(repoRoot, 'src', 'tokenize', 'unicode-classes-table.ts');
  writeFileSync(out, file);
  process.stdout.write(`${Object.keys(CLASSES).length} classes -> ${out}\n`);
}

function writeNfc(): void {
  const nfc = reference.nfcNormalizer();
  const nfd = reference.nfdNormalizer();
  const unknown = differingCodePoints((s) => nfc.normalizeString(s));
  // Characters V8 decomposes and the reference does not, and the new parts they decompose into
  // (a new letter that composes with U+0307 is unknown to the reference; U+0307 itself is not).
  const known = (c: string) => nfc.normalizeString('a' + c) !== 'a' + c || nfd.normalizeString(c + '\u0334') !== c + '\u0334';
  for (let c = 0x80; c < 0x110000; c++) {
    if (c >= 0xd800 && c < 0xe000) continue;
    const s = String.fromCodePoint(c);
    if (nfd.normalizeString(s) === s.normalize('NFD')) continue;
    unknown.add(c);
    for (const part of s.normalize('NFD')) if (!known(part)) unknown.add(part.codePointAt(0)!);
  }
  const ranges: [number, number][] = [];
  for (const c of [...unknown].sort((a, b) => a - b)) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === c - 1) last[1] = c;
    else ranges.push([c, c]);
  }
  const body = ranges.map(([a, b]) => `  [0x${a.toString(16)}, 0x${b.toString(16)}],`).join('\n');
  const file = `// Generated by scripts/gen-unicode-tables.ts from the npm package tokenizers; do not edit.
// Node ${process.version} (ICU Unicode ${process.versions.unicode}).

/** Code points whose NFC under V8 differs from the Rust reference's: to the reference, inert starters. [first, last] ranges. */
export const NFC_UNKNOWN_TO_REFERENCE: readonly (readonly [number, number])[] = [
${body}
];
`;
  const out = join(repoRoot, 'src', 'tokenize', 'nfc-reference-table.ts');
  writeFileSync(out, file);
  process.stdout.write(`${unknown.size} code points in ${ranges.length} ranges -> ${out}\n`);
}

if (process.argv[1]?.endsWith('gen-unicode-tables.js')) main();
