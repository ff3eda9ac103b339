import { Rng } from '../core/random.js';

/**
 * A realistic, seeded mixture of mid-training document lengths (tokens, end-of-text included),
 * each kind log-normal with its own median and spread:
 *   repo  10%  median 20,000, wide tail (sigma 1.5): about 4% of them exceed 262,144, capped at 4M
 *   web   35%  median  1,500 (sigma 0.9), at least 50
 *   fim   35%  median    800 (sigma 0.8), 20 .. 32,768
 *   edit  20%  median  8,000 (sigma 0.7), at most 131,072
 */
export interface MixtureKind {
  name: string;
  share: number;
  median: number;
  sigma: number;
  min: number;
  max: number;
}

export const DEFAULT_MIXTURE: readonly MixtureKind[] = [
  { name: 'repo', share: 0.1, median: 20000, sigma: 1.5, min: 200, max: 4_000_000 },
  { name: 'web', share: 0.35, median: 1500, sigma: 0.9, min: 50, max: 200_000 },
  { name: 'fim', share: 0.35, median: 800, sigma: 0.8, min: 20, max: 32_768 },
  { name: 'edit', share: 0.2, median: 8000, sigma: 0.7, min: 100, max: 131_072 },
];

/** Yields `count` lengths in batches; the same (count, seed) always gives the same lengths. */
export function* mixtureBatches(count: number, seed: number, batchSize = 1 << 20, kinds = DEFAULT_MIXTURE): Generator<Uint32Array> {
  const rng = new Rng(seed, 'length-mixture');
  const total = kinds.reduce((s, k) => s + k.share, 0);
  for (let done = 0; done < count; ) {
    const batch = new Uint32Array(Math.min(batchSize, count - done));
    for (let i = 0; i < batch.length; i++) {
      let x = rng.next() * total;
      let kind = kinds[kinds.length - 1]!;
      for (const k of kinds) {
        x -= k.share;
        if (x < 0) {
          kind = k;
          break;
        }
      }
      // Box-Muller: one standard normal from two uniforms.
      const u = 1 - rng.next();
      const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
      const len = Math.round(kind.median * Math.exp(kind.sigma * normal));
      batch[i] = Math.min(kind.max, Math.max(kind.min, len));
    }
    done += batch.length;
    yield batch;
  }
}

/** All of a mixture in one array (for tests and small runs). */
export function mixtureLengths(count: number, seed: number): Uint32Array {
  const out = new Uint32Array(count);
  let at = 0;
  for (const b of mixtureBatches(count, seed)) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}
