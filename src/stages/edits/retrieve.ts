/**
 * BM25 retrieval of repository files for an edit's context: the files whose text best matches
 * the problem description, as SWE-bench's retrieval baseline ranks them (Okapi BM25 with
 * Pyserini's k1 = 0.9, b = 0.4; a document is a file's path and content).
 *
 * The scorer is ours, not an npm package: the maintained ones (minisearch, wink-bm25-text-search,
 * okapibm25) index one fixed collection, so each commit's tree would be indexed from scratch.
 * Here a repository at one commit shares almost every blob with the next, so term counts are
 * cached per blob id (context.ts, in a cache of a stated budget: content-cache.ts) and a tree
 * costs only its new blobs.
 */
export const BM25_K1 = 0.9;
export const BM25_B = 0.4;

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

/**
 * Words of a text for BM25: runs of letters and digits (`[\p{L}\p{N}]+`), identifiers split at
 * camelCase, lowercased, 2+ characters, stopwords out. A scan of character codes: the Unicode
 * property classes are consulted only past ASCII, and only a word with an upper-case letter or a
 * character past ASCII goes through the camelCase split and toLowerCase.
 */
export function bm25Terms(text: string): string[] {
  const out: string[] = [];
  const push = (part: string) => {
    const t = part.toLowerCase();
    if (t.length >= 2 && !STOPWORDS.has(t)) out.push(t);
  };
  const n = text.length;
  let i = 0;
  while (i < n) {
    let start = -1;
    let plain = true; // lower-case ASCII letters and digits only
    for (; i < n; ) {
      const c = text.charCodeAt(i);
      let width = 1;
      let inWord: boolean;
      if (c < 128) {
        inWord = ASCII[c]! !== 0;
        if (ASCII[c] === 2) plain = false;
      } else {
        const cp = text.codePointAt(i)!;
        width = cp > 0xffff ? 2 : 1;
        inWord = WORD_CHAR.test(String.fromCodePoint(cp));
        if (inWord) plain = false;
      }
      if (!inWord) {
        if (start >= 0) break;
      } else if (start < 0) start = i;
      i += width;
    }
    if (start < 0) break;
    const word = text.slice(start, i);
    if (plain) {
      if (word.length >= 2 && !STOPWORDS.has(word)) out.push(word);
    } else if (!HAS_UPPER.test(word)) push(word);
    else for (const part of word.split(CAMEL_SEAM)) push(part);
  }
  return out;
}

/** A file's term counts and its length in terms. */
export interface TermCounts {
  length: number;
  counts: Map<string, number>;
}

export function termCounts(text: string): TermCounts {
  const counts = new Map<string, number>();
  const terms = bm25Terms(text);
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  return { length: terms.length, counts };
}

export interface Scored<T> {
  item: T;
  score: number;
}

/**
 * The `n` documents with the highest BM25 score for the query (score > 0), best first; ties go
 * to the earlier document, so the ranking depends only on the documents and their order.
 */
export interface Bm25Doc<T> {
  item: T;
  /** The content's counts (shared through the cache) and the path's, kept apart so neither is copied. */
  terms: TermCounts;
  pathTerms?: TermCounts;
}

const tfOf = (d: Bm25Doc<unknown>, t: string) => (d.terms.counts.get(t) ?? 0) + (d.pathTerms?.counts.get(t) ?? 0);
const lengthOf = (d: Bm25Doc<unknown>) => d.terms.length + (d.pathTerms?.length ?? 0);

export function rankBm25<T>(query: string, docs: readonly Bm25Doc<T>[], n: number): Scored<T>[] {
  if (n <= 0 || docs.length === 0) return [];
  const q = [...new Set(bm25Terms(query))];
  if (q.length === 0) return [];
  const avgdl = docs.reduce((s, d) => s + lengthOf(d), 0) / docs.length || 1;
  // Each document's term frequencies for the query, looked up once: both the idf and the score use them.
  const tfs = docs.map((d) => q.map((t) => tfOf(d, t)));
  const idf = q.map((_, k) => {
    let df = 0;
    for (const tf of tfs) if (tf[k]! > 0) df++;
    return Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
  });
  const scored: Scored<T>[] = [];
  for (const [i, d] of docs.entries()) {
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * lengthOf(d)) / avgdl);
    let score = 0;
    tfs[i]!.forEach((tf, k) => {
      if (tf) score += (idf[k]! * tf * (BM25_K1 + 1)) / (tf + norm);
    });
    if (score > 0) scored.push({ item: d.item, score });
  }
  // A stable sort keeps document order among equal scores.
  return scored.sort((a, b) => b.score - a.score).slice(0, n);
}
