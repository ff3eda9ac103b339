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
import { bm25Terms, type TermCounts } from './bm25-terms.js';

export const BM25_K1 = 0.9;
export const BM25_B = 0.4;

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
  // Each document's term frequencies for the query, looked up once (row i, column k): both the idf and the score use them.
  const m = q.length;
  const tfs = new Int32Array(docs.length * m);
  const df = new Int32Array(m);
  for (let i = 0; i < docs.length; i++) {
    for (let k = 0; k < m; k++) {
      const tf = tfOf(docs[i]!, q[k]!);
      tfs[i * m + k] = tf;
      if (tf > 0) df[k]!++;
    }
  }
  const idf = Array.from(df, (n) => Math.log(1 + (docs.length - n + 0.5) / (n + 0.5)));
  const scored: Scored<T>[] = [];
  for (let i = 0; i < docs.length; i++) {
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * lengthOf(docs[i]!)) / avgdl);
    let score = 0;
    for (let k = 0; k < m; k++) {
      const tf = tfs[i * m + k]!;
      if (tf) score += (idf[k]! * tf * (BM25_K1 + 1)) / (tf + norm);
    }
    if (score > 0) scored.push({ item: docs[i]!.item, score });
  }
  // A stable sort keeps document order among equal scores.
  return scored.sort((a, b) => b.score - a.score).slice(0, n);
}
