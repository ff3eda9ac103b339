import type { CodeBlock } from './markdown.js';
import { inventedReference, inventedUrl, novelty, sourceWords } from '../../llm/faithfulness.js';
import { wordTokens } from '../../doc/words.js';

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

export function checkRewrite(source: string, sourceCode: CodeBlock[], rewrite: string, options: GuardOptions = DEFAULT_GUARD): Rejection | undefined {
  if (!rewrite.trim()) return { reason: 'empty', detail: 'the rewrite is empty' };
  for (const block of sourceCode) {
    const code = block.text.replace(/\n$/, '');
    if (code.trim() && !rewrite.includes(code)) return { reason: 'dropped_code', detail: `a code block of ${code.length} characters is missing or altered` };
  }
  const url = inventedUrl(source, rewrite);
  if (url !== undefined) return { reason: 'invented_url', detail: `URL not in the source: ${url}` };
  const ref = inventedReference(source, rewrite);
  if (ref !== undefined) return { reason: 'invented_reference', detail: `reference not in the source: ${ref}` };
  const src = sourceWords(source);
  const { shared, novel } = novelty(wordTokens(rewrite), src);
  if (novel > options.maxNovelFraction) return { reason: 'added_text', detail: `${(novel * 100).toFixed(1)}% of the rewrite's words are not in the source` };
  const sourceTotal = [...src.values()].reduce((a, b) => a + b, 0);
  const kept = sourceTotal ? shared / sourceTotal : 1;
  if (kept < options.minKeptFraction) return { reason: 'dropped_content', detail: `the rewrite keeps ${(kept * 100).toFixed(1)}% of the source's words` };
  return undefined;
}
