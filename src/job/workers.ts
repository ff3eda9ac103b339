import { availableParallelism } from 'node:os';

/**
 * Tokenizer workers beyond the core count only cost memory (each holds a tokenizer, about
 * 170 MB) and time: cap them unless forced, and say so. The output is the same for any count.
 */
export function capWorkers(requested: number, forced: boolean, cores = availableParallelism()): number {
  if (forced || requested <= cores) return requested;
  process.stderr.write(`midpack: --workers ${requested} is more than the ${cores} cores here: using ${cores} (--force-workers to use ${requested})\n`);
  return cores;
}
