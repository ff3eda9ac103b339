import { DEFAULT_PASS_UNITS } from '../pack/planner.js';
import type { RunConfig } from './run-config.js';

/**
 * A run's memory budget (`memoryMb` in the config, `--memory-mb`): the parts whose memory is set
 * by configuration get stated shares of it, unless the config sets them itself.
 *
 *   mask count table (mask.memoryMb)             1/4  (past it, sorted runs spill to disk)
 *   edits context caches (contextCacheMb)       1/8  (split over the prepare workers)
 *   one planning pass (pack.passUnits, ~60 B)    1/4  (at most the default 4,194,304 units)
 *
 * When a run tokenizes while it prepares (run.ts packWhilePreparing), its tokenizer workers (a
 * tokenizer each, about 105 MB) are held through the prepare phase too: the two prepare-phase
 * shares are halved (the mask count table 1/8, the edits caches 1/16) to make room for them.
 *
 * The rest is the process itself, the tokenizer in each worker thread, and the documents in
 * flight. The shares change how much is held, never the output's bytes: the count table spills
 * and merges to the same counts, the caches only save time, and the default budget gives the
 * default planning pass. The default, 1024 MB, keeps a run at the defaults under 1 GB.
 */
export const DEFAULT_RUN_MEMORY_MB = 1024;

const PASS_UNIT_BYTES = 60;

/** The config with its budget's shares filled in where it sets none; `besideTokenizer`: tokenizing runs while preparing. */
export function withMemoryBudget(cfg: RunConfig, budgetMb = cfg.memoryMb ?? DEFAULT_RUN_MEMORY_MB, besideTokenizer = false): RunConfig {
  const share = (n: number) => Math.max(1, Math.floor(budgetMb / n));
  const quarter = share(4);
  const [maskMb, cachesMb] = besideTokenizer ? [share(8), share(16)] : [quarter, share(8)];
  const mask = cfg.mask && cfg.mask.memoryMb === undefined ? { ...cfg.mask, memoryMb: maskMb } : cfg.mask;
  const sources = cfg.sources.map((s) => (s.type === 'edits' && s.options.contextCacheMb === undefined ? { ...s, options: { ...s.options, contextCacheMb: cachesMb } } : s));
  const passUnits = Math.max(1024, Math.min(DEFAULT_PASS_UNITS, Math.floor((quarter * 2 ** 20) / PASS_UNIT_BYTES)));
  const pack = cfg.pack.passUnits === undefined ? { ...cfg.pack, passUnits } : cfg.pack;
  return { ...cfg, memoryMb: budgetMb, sources, pack, ...(mask ? { mask } : {}) };
}
