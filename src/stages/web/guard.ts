import type { CodeBlock } from './markdown.js';
import { bag, overlap, wordTokens } from './tokens.js';

/**
 * The faithfulness guard: an LLM rewrite is kept only if it adds no URL or reference the
 * source lacks, adds little new text, keeps most of the source's text and every code block.
 */
export interface GuardOptions {
  /** Largest share of the rewrite's words that may be absent from the source. */
  maxNovelFraction: number;
  /** Smallest share of the source's words the rewrite must keep. */
  minKeptFraction: number;
}

export const DEFAULT_GUARD: GuardOptions = { maxNovelFraction: 0.1, minKeptFraction: 0.6 };

export type RejectReason = 'empty' | 'dropped_code' | 'invented_url' | 'invented_reference' | 'added_text' | 'dropped_content';

export interface Rejection {
  reason: RejectReason;
  detail: string;
}

const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>()[\]{}"'`]+/gi;
/** Citations and identifiers a model may make up: [12], [^3], DOIs, arXiv ids. */
const REFERENCE_PATTERN = /\[\^?\d{1,4}\]|\b10\.\d{4,9}\/[^\s"<>]+|\barXiv:\s?\d{4}\.\d{4,5}\b/gi;

function normalizeUrl(u: string): string {
  return u.replace(/[.,;:!?]+$/, '').replace(/^https?:\/\//i, '').replace(/^www\./i, '').replace(/\/$/, '').toLowerCase();
}

function found(pattern: RegExp, text: string): string[] {
  return [...text.matchAll(pattern)].map((m) => m[0]);
}

export function checkRewrite(source: string, sourceCode: CodeBlock[], rewrite: string, options: GuardOptions = DEFAULT_GUARD): Rejection | undefined {
  if (!rewrite.trim()) return { reason: 'empty', detail: 'the rewrite is empty' };
  for (const block of sourceCode) {
    const code = block.text.replace(/\n$/, '');
    if (code.trim() && !rewrite.includes(code)) return { reason: 'dropped_code', detail: `a code block of ${code.length} characters is missing or altered` };
  }
  const sourceUrls = new Set(found(URL_PATTERN, source).map(normalizeUrl));
  for (const u of found(URL_PATTERN, rewrite)) if (!sourceUrls.has(normalizeUrl(u))) return { reason: 'invented_url', detail: `URL not in the source: ${u}` };
  const sourceRefs = new Set(found(REFERENCE_PATTERN, source).map((r) => r.toLowerCase()));
  for (const r of found(REFERENCE_PATTERN, rewrite)) if (!sourceRefs.has(r.toLowerCase())) return { reason: 'invented_reference', detail: `reference not in the source: ${r}` };
  const src = bag(wordTokens(source));
  const out = wordTokens(rewrite);
  const outBag = bag(out);
  const shared = overlap(outBag, src);
  const novel = out.length ? 1 - shared / out.length : 0;
  if (novel > options.maxNovelFraction) return { reason: 'added_text', detail: `${(novel * 100).toFixed(1)}% of the rewrite's words are not in the source` };
  const sourceTotal = [...src.values()].reduce((a, b) => a + b, 0);
  const kept = sourceTotal ? shared / sourceTotal : 1;
  if (kept < options.minKeptFraction) return { reason: 'dropped_content', detail: `the rewrite keeps ${(kept * 100).toFixed(1)}% of the source's words` };
  return undefined;
}
