import { bag, overlap, wordTokens } from '../doc/words.js';

/**
 * What a model's output may not add to its source, shared by the web rewrite guard and the QA
 * grounding filters: a URL or a reference (citation, DOI, arXiv id) the source lacks, and words
 * the source does not have (the novel share, which `--max-novel` bounds in both stages).
 */
const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>()[\]{}"'`]+/gi;
/** Citations and identifiers a model may make up: [12], [^3], DOIs, arXiv ids. */
const REFERENCE_PATTERN = /\[\^?\d{1,4}\]|\b10\.\d{4,9}\/[^\s"<>]+|\barXiv:\s?\d{4}\.\d{4,5}\b/gi;

function normalizeUrl(u: string): string {
  return u.replace(/[.,;:!?]+$/, '').replace(/^https?:\/\//i, '').replace(/^www\./i, '').replace(/\/$/, '').toLowerCase();
}

function found(pattern: RegExp, text: string): string[] {
  return [...text.matchAll(pattern)].map((m) => m[0]);
}

/** The first URL of `text` that `source` does not hold (scheme, `www.`, trailing punctuation and slash aside). */
export function inventedUrl(source: string, text: string): string | undefined {
  const inText = found(URL_PATTERN, text);
  if (!inText.length) return undefined;
  const known = new Set(found(URL_PATTERN, source).map(normalizeUrl));
  return inText.find((u) => !known.has(normalizeUrl(u)));
}

/** The first citation, DOI or arXiv id of `text` that `source` does not hold. */
export function inventedReference(source: string, text: string): string | undefined {
  const inText = found(REFERENCE_PATTERN, text);
  if (!inText.length) return undefined;
  const known = new Set(found(REFERENCE_PATTERN, source).map((r) => r.toLowerCase()));
  return inText.find((r) => !known.has(r.toLowerCase()));
}

/** A source's words as a bag, computed once for several checks against it. */
export const sourceWords = (source: string): Map<string, number> => bag(wordTokens(source));

/**
 * How many of `words` the source holds (with multiplicity) and the share that it does not:
 * 0 when every word is in the source, 1 when none is.
 */
export function novelty(words: string[], source: Map<string, number>): { shared: number; novel: number } {
  const shared = overlap(bag(words), source);
  return { shared, novel: words.length ? 1 - shared / words.length : 0 };
}
