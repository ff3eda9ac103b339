import type { DedupParams } from './dedup-index.js';
import { resolveWithSpec, type OptionSpec } from './options.js';

/**
 * The dedup stage's options, for `midpack dedup` and the `dedup` stage of `midpack run`.
 *
 * Near-duplicate defaults: 5-token shingles, a 128-value MinHash in 32 bands of 4 rows, and a
 * verified estimated Jaccard of at least 0.8. A pair becomes a candidate with probability
 * 1 - (1 - s^4)^32: 0.9999 at s = 0.8, 0.87 at s = 0.5, 0.23 at s = 0.3. Candidates are then
 * verified on their full signatures, so false positives are bounded by the estimate's error
 * (sd 0.035 at s = 0.8). More rows per band cut the candidates (speed) at the cost of recall
 * near the threshold; more bands raise recall and the candidates checked.
 */
export interface DedupOptions {
  near: boolean;
  shingle: number;
  bands: number;
  rows: number;
  minTokens: number;
  threshold: number;
  /** Memory for pass 1's record buffers and for the near-duplicate band tables. */
  memoryMb: number;
  dryRun: boolean;
  workDir?: string;
  /** A merged index from `dedup merge`: the stage only applies it (ranks of `midpack run`). */
  index?: string;
}

const SPEC: Record<keyof DedupOptions, OptionSpec> = {
  near: { type: 'boolean', default: false },
  shingle: { type: 'int', default: 5, min: 1, max: 64 },
  bands: { type: 'int', default: 32, min: 1, max: 512 },
  rows: { type: 'int', default: 4, min: 1, max: 64 },
  minTokens: { type: 'int', default: 32, min: 1 },
  threshold: { type: 'number', default: 0.8, min: 0, max: 1 },
  memoryMb: { type: 'int', default: 256, min: 8 },
  dryRun: { type: 'boolean', default: false },
  workDir: { type: 'string' },
  index: { type: 'string' },
};

export const DEDUP_OPTION_NAMES = Object.keys(SPEC) as (keyof DedupOptions)[];

export function resolveDedupOptions(raw: Record<string, unknown>): DedupOptions {
  return resolveWithSpec(raw, SPEC, 'dedup') as unknown as DedupOptions;
}

export function dedupParams(o: DedupOptions): DedupParams {
  return {
    normalize: 'lf-rstrip-trim',
    hash: 'xxh64',
    ...(o.near ? { near: { shingle: o.shingle, bands: o.bands, rows: o.rows, min_tokens: o.minTokens } } : {}),
  };
}
