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
 * - a line alone,
 * - a run of whole lines between blank lines (a paragraph), wherever it stands: statements
 *   pasted between two statements of a block, a solution inside a docstring or a string, at any
 *   indentation; and the same run without a first or last line made only of quotes (`"""`),
 *
 * in the text with comments blanked and again in its comments alone (the comment markers `#`,
 * `//`, `/*`, `*` and `*\/` taken out, the code lines blank), so commented-out code is matched
 * too. Indentation is read relative to the line above, so a copy indented by 2 or 8 spaces or by
 * tabs has the same units. Each unit costs O(1) through prefix hashes of the token sequence.
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

  /** Every whole unit of the text (in its code and in its comments) that is a short item, once per item. */
  find(text: string): ShortHit[] {
    if (this.keys.size === 0) return [];
    const hits = new Map<number, ShortHit>();
    const comments = commentText(text);
    for (const [view, bounds] of comments === undefined ? [[blankComments(text), text]] : [[blankComments(text), text], [blankComments(comments), comments]]) {
      const t = tokensOf(view);
      forEachUnit(view, bounds, t, (a, b) => {
        if (b - a < SHORT_ITEM_MIN_TOKENS) return;
        const item = this.keys.get(rangeKey(t, a, b));
        if (item !== undefined && !hits.has(item)) hits.set(item, { item, start: t.starts[a]!, end: t.ends[b - 1]! });
      });
    }
    return [...hits.values()];
  }
}

const COMMENT_LINE = /^([ \t]*)(#+|\/\/+|\/\*+|\*+\/?)/;

/**
 * The text of the comments alone, at the same offsets: a comment line's marker (`#`, `//`,
 * `/*`, a leading `*`) and a closing `*\/` become spaces, the lines of a `/* *\/` block keep
 * their text, every other line is blanked. Undefined when the text has no comment line.
 */
export function commentText(text: string): string | undefined {
  let any = false;
  let inBlock = false;
  const out = text.split('\n').map((line) => {
    const m = COMMENT_LINE.exec(line);
    const keep = inBlock || m !== null;
    if (m?.[2]!.startsWith('/*')) inBlock = true;
    if (inBlock && line.includes('*/')) inBlock = line.lastIndexOf('/*') > line.lastIndexOf('*/');
    if (!keep) return ' '.repeat(line.length);
    any = true;
    const body = m ? m[1]! + ' '.repeat(m[2]!.length) + line.slice(m[0].length) : line;
    return body.replace(/\*\//g, '  ');
  });
  return any ? out.join('\n') : undefined;
}

interface Line {
  indent: number;
  first: number;
  last: number;
}

/** The lines that hold tokens: their indentation and first and last token. */
function tokenLines(view: string, t: Tokens): Line[] {
  const lines: Line[] = [];
  let k = 0;
  const n = t.starts.length;
  while (k < n) {
    const lineStart = view.lastIndexOf('\n', t.starts[k]! - 1) + 1;
    const lineEnd = view.indexOf('\n', t.starts[k]!);
    const end = lineEnd < 0 ? view.length : lineEnd;
    const first = k;
    while (k < n && t.starts[k]! < end) k++;
    lines.push({ indent: t.starts[first]! - lineStart, first, last: k });
  }
  return lines;
}

/** Visits the token ranges [a, b) of the units of the text (see the file header); `bounds` tells blank lines (the text before comments were blanked). */
function forEachUnit(view: string, bounds: string, t: Tokens, visit: (a: number, b: number) => void): void {
  const lines = tokenLines(view, t);
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
  forEachParagraph(view, bounds, t, lines, visit);
}

const QUOTES_ONLY = /^[\s"'`]*$/;

/** Visits each run of token lines between blank lines of `bounds`, and the run without a first or last line of quotes alone. */
function forEachParagraph(view: string, bounds: string, t: Tokens, lines: readonly Line[], visit: (a: number, b: number) => void): void {
  const quotesOnly = (l: Line) => QUOTES_ONLY.test(view.slice(t.starts[l.first]!, t.ends[l.last - 1]!));
  const blankBetween = (a: Line, b: Line) => /\n[ \t\r\f\v]*\n/.test(bounds.slice(t.ends[a.last - 1]!, t.starts[b.first]!));
  for (let i = 0; i < lines.length; ) {
    let j = i + 1;
    while (j < lines.length && !blankBetween(lines[j - 1]!, lines[j]!)) j++;
    let [from, to] = [i, j - 1];
    visit(lines[from]!.first, lines[to]!.last);
    if (from < to && quotesOnly(lines[from]!)) from++;
    if (from < to && quotesOnly(lines[to]!)) to--;
    if (from !== i || to !== j - 1) visit(lines[from]!.first, lines[to]!.last);
    i = j;
  }
}
