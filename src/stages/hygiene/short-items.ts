import { forEachToken, mix32 } from './tokens.js';

/**
 * Benchmark items shorter than the n-gram window (`return sorted(list(set(l)))`, a two-line
 * solution) have no window, so the n-gram method can never find them. They are matched as a
 * whole instead: the item's tokens (tokens.ts: whitespace never counts, so indentation and
 * spacing do not either; comments are blanked first) against the tokens of every whole unit of
 * the corpus text, where a unit is
 *
 * - a line with the lines indented deeper under it (a statement, a function, a block),
 * - the lines indented deeper under a line (a function's or a block's body),
 * - a line alone.
 *
 * Indentation is read relative to the line above, so a copy indented by 2 or 8 spaces has the
 * same units. Each unit costs O(1) through prefix hashes of the token sequence.
 *
 * An item of fewer than SHORT_ITEM_MIN_TOKENS tokens (`return x + y`, `return len(string)`)
 * is ordinary code that clean files hold too: it is not matched and is counted as
 * `too_short_to_match`. Measured on 3,639 clean files (the Python standard library and
 * node_modules) against HumanEval's solutions: a minimum of 4 tokens flags 2 files
 * (`return x + y`), 6, 8 or 10 flag none; 8 keeps a margin and leaves 5 of the 164 solutions out.
 */
export const SHORT_ITEM_MIN_TOKENS = 8;

const B1 = 0x01000193;
const B2 = 0x9e3779b1 | 1;

/**
 * Blanks comments with spaces (offsets and line breaks stay): `#` to the end of the line (Python,
 * shell), a line that starts with `//`, and `/* ... *\/` blocks. A `#` or `/*` inside a string on
 * its line (an odd number of quotes before it) is kept.
 */
export function blankComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/^([ \t]*)(\/\/.*)$/gm, (_m, ind: string, c: string) => ind + ' '.repeat(c.length))
    .replace(/^([^\n#]*?)(#.*)$/gm, (m, before: string, c: string) => (/^(?:[^'"]*(['"])[^'"]*\1)*[^'"]*$/.test(before) ? before + ' '.repeat(c.length) : m));
}

interface Tokens {
  /** Token hashes and starts, and prefix hashes: pre[k] covers tokens [0, k). */
  starts: number[];
  ends: number[];
  pre1: Int32Array;
  pre2: Int32Array;
  pow1: Int32Array;
  pow2: Int32Array;
}

function tokensOf(text: string): Tokens {
  const hashes: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  forEachToken(blankComments(text), {}, (s, e, h) => {
    hashes.push(h);
    starts.push(s);
    ends.push(e);
  });
  const n = hashes.length;
  const pre1 = new Int32Array(n + 1);
  const pre2 = new Int32Array(n + 1);
  const pow1 = new Int32Array(n + 1);
  const pow2 = new Int32Array(n + 1);
  pow1[0] = pow2[0] = 1;
  for (let k = 0; k < n; k++) {
    pre1[k + 1] = (Math.imul(pre1[k]!, B1) + hashes[k]!) | 0;
    pre2[k + 1] = (Math.imul(pre2[k]!, B2) + mix32(hashes[k]!)) | 0;
    pow1[k + 1] = Math.imul(pow1[k]!, B1);
    pow2[k + 1] = Math.imul(pow2[k]!, B2);
  }
  return { starts, ends, pre1, pre2, pow1, pow2 };
}

/** The key of tokens [a, b): two polynomial lanes and the length. */
function rangeKey(t: Tokens, a: number, b: number): string {
  const h1 = (t.pre1[b]! - Math.imul(t.pre1[a]!, t.pow1[b - a]!)) | 0;
  const h2 = (t.pre2[b]! - Math.imul(t.pre2[a]!, t.pow2[b - a]!)) | 0;
  return `${mix32(h1)}:${mix32(h2 ^ (b - a))}:${b - a}`;
}

export interface ShortHit {
  item: number;
  start: number;
  end: number;
}

export class ShortItemIndex {
  private readonly keys = new Map<string, number>();
  tooShort = 0;

  get size(): number {
    return this.keys.size;
  }

  /** Adds a short item (the caller knows it has no n-gram window); false when it is too short to match. */
  add(text: string, item: number): boolean {
    const t = tokensOf(text);
    const n = t.starts.length;
    if (n < SHORT_ITEM_MIN_TOKENS) {
      this.tooShort++;
      return false;
    }
    const key = rangeKey(t, 0, n);
    if (!this.keys.has(key)) this.keys.set(key, item);
    return true;
  }

  /** Every whole unit of the text that is a short item, once per item. */
  find(text: string): ShortHit[] {
    if (this.keys.size === 0) return [];
    const t = tokensOf(text);
    const hits = new Map<number, ShortHit>();
    forEachUnit(text, t, (a, b) => {
      if (b - a < SHORT_ITEM_MIN_TOKENS) return;
      const item = this.keys.get(rangeKey(t, a, b));
      if (item !== undefined && !hits.has(item)) hits.set(item, { item, start: t.starts[a]!, end: t.ends[b - 1]! });
    });
    return [...hits.values()];
  }
}

/** Visits the token ranges [a, b) of the units of the text (see the file header). */
function forEachUnit(text: string, t: Tokens, visit: (a: number, b: number) => void): void {
  // The lines that hold tokens: their indentation and first and last token.
  const lines: { indent: number; first: number; last: number }[] = [];
  let k = 0;
  const n = t.starts.length;
  while (k < n) {
    const lineStart = text.lastIndexOf('\n', t.starts[k]! - 1) + 1;
    const lineEnd = text.indexOf('\n', t.starts[k]!);
    const end = lineEnd < 0 ? text.length : lineEnd;
    const first = k;
    while (k < n && t.starts[k]! < end) k++;
    lines.push({ indent: t.starts[first]! - lineStart, first, last: k });
  }
  for (let i = 0; i < lines.length; i++) {
    const { indent, first, last } = lines[i]!;
    visit(first, last);
    let j = i + 1;
    while (j < lines.length && lines[j]!.indent > indent) j++;
    if (j > i + 1) {
      visit(first, lines[j - 1]!.last); // the line and its block
      visit(lines[i + 1]!.first, lines[j - 1]!.last); // the block alone
    }
  }
}
