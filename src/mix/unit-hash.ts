import { hash64 } from '../core/random.js';

/** Buckets of the mixture histograms: the sampling threshold moves in steps of one bucket. */
export const MIXTURE_BUCKETS = 65_536;

/**
 * A unit's place in [0, 1) for the sampling decision: a seeded hash of its identity (the config
 * source's name and the document id), so the decision depends on neither order, workers nor ranks.
 */
export function unitHash(seed: number, source: string, id: string): number {
  // The top 53 bits: a double in [0, 1) with no rounding up to 1.
  return Number(hash64('mixture', seed, source, id) >> 11n) / 2 ** 53;
}

export function bucketOf(h: number, buckets = MIXTURE_BUCKETS): number {
  return Math.min(buckets - 1, Math.floor(h * buckets));
}
