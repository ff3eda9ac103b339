import type { StageContext } from '../../core/stage.js';
import { newLlmCounters, type LlmCounters } from '../../llm/client.js';
import { bump } from '../web/stats.js';

/**
 * The figures of the synth-qa stage, in ctx.stats.synth_qa (JSON values only; the manifest and
 * the run report show them). Two balances hold:
 *   documents.in == with_samples + abstained + no_grounded_pair + sum(skipped) + sum(failed)
 *   pairs.returned == pairs.kept + sum(pairs.dropped)
 * The ledger holds the first as records (out = with_samples, the rest dropped by reason).
 */
export interface SynthQaStats {
  documents: {
    in: number;
    with_samples: number;
    abstained: number;
    no_grounded_pair: number;
    skipped: Record<string, number>;
    failed: Record<string, number>;
    /** Documents cut at `--max-chars` (with `--truncate`) and asked about as cut. */
    truncated: number;
  };
  /** Abstentions by the reason the model gave (one of the prompt's, else `other`). */
  abstained_by_reason: Record<string, number>;
  pairs: { asked: number; returned: number; kept: number; dropped: Record<string, number> };
  /** The first messages of each pair drop (document and pair named), as the ledger keeps them for documents. */
  pair_drop_examples: Record<string, string[]>;
  samples: number;
  llm: LlmCounters;
}

export function synthQaStats(ctx: StageContext): SynthQaStats {
  const existing = ctx.stats.synth_qa as SynthQaStats | undefined;
  if (existing) return existing;
  const s: SynthQaStats = {
    documents: { in: 0, with_samples: 0, abstained: 0, no_grounded_pair: 0, skipped: {}, failed: {}, truncated: 0 },
    abstained_by_reason: {},
    pairs: { asked: 0, returned: 0, kept: 0, dropped: {} },
    pair_drop_examples: {},
    samples: 0,
    llm: newLlmCounters(),
  };
  ctx.stats.synth_qa = s;
  return s;
}

export { bump };

const EXAMPLES_PER_REASON = 5;

/** Counts a dropped pair; its message is kept (and logged) for the first few of each reason only. */
export function countPairDrop(stats: SynthQaStats, reason: string, message: string, log: (m: string) => void): void {
  bump(stats.pairs.dropped, reason);
  const examples = (stats.pair_drop_examples[reason] ??= []);
  if (examples.length >= EXAMPLES_PER_REASON) return;
  examples.push(message);
  log(`midpack: synth-qa: ${message}`);
}
