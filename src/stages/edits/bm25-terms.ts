/**
 * The terms of BM25 retrieval (retrieve.ts): runs of letters and digits (`[\p{L}\p{N}]+`),
 * identifiers split at camelCase, lowercased, 2+ characters, stopwords out.
 *
 * One scan of character codes (scanTerms) serves both a text's term list (bm25Terms: queries) and
 * its term counts (termCounts: every file a history's trees hold, megabytes of them). An ASCII
 * word is split at camelCase by its codes, and only a word with a character past ASCII goes
 * through the Unicode regular expressions. Counting makes no list of terms, and tests the
 * stopwords once per distinct term, not per occurrence.
 */

/** English words that say nothing about where code lives. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  ('a an and are as at be but by can do does for from has have how i if in into is it its no not of on or so such that the their then there these ' +
    'they this to was we were what when where which while who will with would you your should could may also only than too very just use used using')
    .split(' '),
);

const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const HAS_UPPER = /\p{Lu}/u;
const CAMEL_SEAM = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
/** ASCII letters and digits: 1 lower case or digit, 2 upper case, 0 not in a word. */
const ASCII = new Uint8Array(128).map((_, c) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) ? 1 : c >= 65 && c <= 90 ? 2 : 0);

/** A file's term counts and its length in terms. */
export interface TermCounts {
  length: number;
  counts: Map<string, number>;
}

/** Where scanTerms puts a text's terms, in order, before the stopword test. */
interface TermSink {
  /** An ASCII term of 2+ characters: text[start, end), lowercased when `upper` (it has an upper-case letter). */
  range(start: number, end: number, upper: boolean): void;
  /** A lowercased part of a word with a character past ASCII (any length). */
  word(lowered: string): void;
}

/** Scans the text's words by character codes; the Unicode classes are consulted only past ASCII. */
function scanTerms(text: string, sink: TermSink): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c0 = text.charCodeAt(i);
    if (c0 < 128 ? ASCII[c0] === 0 : !isWordAt(text, i)) {
      i += c0 < 128 || text.codePointAt(i)! <= 0xffff ? 1 : 2; // a pair's second half is not a character of its own
      continue;
    }
    const start = i;
    let upper = false;
    let wide = false;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c < 128) {
        const k = ASCII[c]!;
        if (k === 0) break;
        if (k === 2) upper = true;
        i++;
      } else {
        if (!isWordAt(text, i)) break;
        wide = true;
        i += text.codePointAt(i)! > 0xffff ? 2 : 1;
      }
    }
    if (wide) {
      const w = text.slice(start, i);
      if (!HAS_UPPER.test(w)) sink.word(w.toLowerCase());
      else for (const part of w.split(CAMEL_SEAM)) sink.word(part.toLowerCase());
    } else if (upper) camelRanges(text, start, i, sink);
    else if (i - start >= 2) sink.range(start, i, false);
  }
}

/** Whether the character at i (past ASCII) is a letter or a digit. */
const isWordAt = (text: string, i: number) => WORD_CHAR.test(String.fromCodePoint(text.codePointAt(i)!));

/**
 * The parts of an ASCII word with an upper-case letter, split where CAMEL_SEAM splits it (a
 * lower-case letter then an upper-case one; an upper-case letter then one that starts a
 * capitalized word: `HTTPServer` is `HTTP`, `Server`): those of 2+ characters go to the sink.
 */
function camelRanges(text: string, start: number, end: number, sink: TermSink): void {
  let from = start;
  for (let j = start + 1; j < end; j++) {
    const prev = text.charCodeAt(j - 1);
    const cur = text.charCodeAt(j);
    if (isLowerAscii(prev) ? isUpperAscii(cur) : isUpperAscii(prev) && isUpperAscii(cur) && j + 1 < end && isLowerAscii(text.charCodeAt(j + 1))) {
      if (j - from >= 2) sink.range(from, j, true);
      from = j;
    }
  }
  if (end - from >= 2) sink.range(from, end, true);
}

const isLowerAscii = (c: number) => c >= 97 && c <= 122;
const isUpperAscii = (c: number) => c >= 65 && c <= 90;

/** A term of 2+ characters that is not a stopword. */
const isTerm = (t: string) => t.length >= 2 && !STOPWORDS.has(t);

/** The text's terms, in order. */
export function bm25Terms(text: string): string[] {
  const list = new TermList(text);
  scanTerms(text, list);
  return list.terms;
}

/** The text's term counts: bm25Terms' terms counted as they are found, the stopwords taken out once at the end. */
export function termCounts(text: string): TermCounts {
  const tally = new TermTally(text);
  scanTerms(text, tally);
  return tally.result();
}

/**
 * The sinks are classes, not closures made per call: scanTerms' calls to them stay monomorphic
 * for its optimized code (closures made anew for each text deoptimized it on every file).
 */
class TermList implements TermSink {
  readonly terms: string[] = [];

  constructor(private readonly text: string) {}

  range(start: number, end: number, upper: boolean): void {
    const t = upper ? this.text.slice(start, end).toLowerCase() : this.text.slice(start, end);
    if (!STOPWORDS.has(t)) this.terms.push(t);
  }

  word(t: string): void {
    if (isTerm(t)) this.terms.push(t);
  }
}

class TermTally implements TermSink {
  private readonly counts = new Map<string, number>();
  private length = 0;

  constructor(private readonly text: string) {}

  range(start: number, end: number, upper: boolean): void {
    this.count(upper ? this.text.slice(start, end).toLowerCase() : this.text.slice(start, end));
  }

  word(t: string): void {
    if (t.length >= 2) this.count(t);
  }

  private count(t: string): void {
    this.counts.set(t, (this.counts.get(t) ?? 0) + 1);
    this.length++;
  }

  result(): TermCounts {
    // Deleting keeps the other terms in the order they first occurred, as never counting the stopwords would.
    for (const stop of STOPWORDS) {
      const n = this.counts.get(stop);
      if (n === undefined) continue;
      this.counts.delete(stop);
      this.length -= n;
    }
    return { length: this.length, counts: this.counts };
  }
}
