import type { StageContext } from '../../core/stage.js';
import { newLlmCounters, type LlmCounters } from '../../llm/client.js';

/** The figures the web stage reports, kept in ctx.stats.rewrite_web (JSON values only). */
export interface WebStats {
  pages_rewritten: number;
  by_method: { rules: number; llm: number };
  /** Which extraction pass produced each kept page (the strict one first, the inclusive one last). */
  by_pass: Record<string, number>;
  code_blocks: number;
  code_languages: Record<string, number>;
  warc_records_skipped: number;
  /** The shared client's counters (requests, cache hits, retries, tokens), then the rewrite's own. */
  llm: LlmCounters & {
    rewritten: number;
    fallbacks: number;
    rejected_by_reason: Record<string, number>;
    failed_by_reason: Record<string, number>;
  };
}

export function webStats(ctx: StageContext): WebStats {
  const existing = ctx.stats.rewrite_web as WebStats | undefined;
  if (existing) return existing;
  const s: WebStats = {
    pages_rewritten: 0,
    by_method: { rules: 0, llm: 0 },
    by_pass: {},
    code_blocks: 0,
    code_languages: {},
    warc_records_skipped: 0,
    llm: { ...newLlmCounters(), rewritten: 0, fallbacks: 0, rejected_by_reason: {}, failed_by_reason: {} },
  };
  ctx.stats.rewrite_web = s;
  return s;
}

export function bump(counts: Record<string, number>, key: string, n = 1): void {
  counts[key] = (counts[key] ?? 0) + n;
}
