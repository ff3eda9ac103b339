import type { Stage } from '../../core/stage.js';
import { dedupStage } from './dedup-apply.js';
import { resolveDedupOptions } from './dedup-options.js';
import { decontaminateStage, loadBenchmarks, resolveDecontaminateOptions } from './decontaminate.js';
import { redactStage, resolveRedactOptions } from './redact.js';

export const HYGIENE_STAGES = ['dedup', 'decontaminate', 'redact'] as const;
export type HygieneStage = (typeof HYGIENE_STAGES)[number];

/** Checks a hygiene stage's options (the same resolvers as the commands); throws naming the option. */
export function resolveHygieneOptions(type: HygieneStage, raw: Record<string, unknown>): unknown {
  return type === 'dedup' ? resolveDedupOptions(raw) : type === 'decontaminate' ? resolveDecontaminateOptions(raw) : resolveRedactOptions(raw);
}

/** A hygiene stage for `midpack run`, from its config options. */
export function hygieneStage(type: HygieneStage, raw: Record<string, unknown>): Stage {
  if (type === 'dedup') return dedupStage(resolveDedupOptions(raw));
  if (type === 'redact') return redactStage(resolveRedactOptions(raw));
  const options = resolveDecontaminateOptions(raw);
  return async function* (docs, ctx) {
    // Every hit is in the stats (the first 100) and counted by benchmark; the run's manifest keeps them.
    yield* decontaminateStage(options, await loadBenchmarks(options))(docs, ctx);
  };
}
