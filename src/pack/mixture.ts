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

/** The default mixture with the repository share set to `share`, the other kinds scaled to fill the rest. */
export function withRepoShare(share: number, kinds: readonly MixtureKind[] = DEFAULT_MIXTURE): MixtureKind[] {
  if (!(share >= 0 && share <= 1)) throw new RangeError(`repository share must be in [0, 1], got ${share}`);
  const others = kinds.filter((k) => k.name !== 'repo').reduce((s, k) => s + k.share, 0);
  return kinds.map((k) => ({ ...k, share: k.name === 'repo' ? share : (k.share / others) * (1 - share) }));
}

/** Yields `count` lengths in batches; the same (count, seed) always gives the same lengths. */
export function* mixtureBatches(count: number, seed: number, batchSize = 1 << 20, kinds: readonly MixtureKind[] = DEFAULT_MIXTURE): Generator<Uint32Array> {
  for (const b of mixtureKindBatches(count, seed, batchSize, kinds)) yield b.lengths;
}

/** As mixtureBatches, with each length's kind (its index in `kinds`). */
export function* mixtureKindBatches(count: number, seed: number, batchSize = 1 << 20, kinds: readonly MixtureKind[] = DEFAULT_MIXTURE): Generator<{ lengths: Uint32Array; kinds: Uint8Array }> {
  const rng = new Rng(seed, 'length-mixture');
  const total = kinds.reduce((s, k) => s + k.share, 0);
  for (let done = 0; done < count; ) {
    const batch = new Uint32Array(Math.min(batchSize, count - done));
    const kindOf = new Uint8Array(batch.length);
    for (let i = 0; i < batch.length; i++) {
      let x = rng.next() * total;
      let k = kinds.length - 1;
      for (let j = 0; j < kinds.length; j++) {
        x -= kinds[j]!.share;
        if (x < 0) {
          k = j;
          break;
        }
      }
      const kind = kinds[k]!;
      kindOf[i] = k;
      // Box-Muller: one standard normal from two uniforms.
      const u = 1 - rng.next();
      const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
      const len = Math.round(kind.median * Math.exp(kind.sigma * normal));
      batch[i] = Math.min(kind.max, Math.max(kind.min, len));
    }
    done += batch.length;
    yield { lengths: batch, kinds: kindOf };
  }
}

/** All of a mixture in one array (for tests and small runs). */
export function mixtureLengths(count: number, seed: number, kinds: readonly MixtureKind[] = DEFAULT_MIXTURE): Uint32Array {
  return mixtureSample(count, seed, 'random', kinds);
}

/** Orders a mixture is generated in: as drawn, grouped by kind (as a job emits its sources), by length. */
export type MixtureOrder = 'random' | 'grouped' | 'asc' | 'desc';
export const MIXTURE_ORDERS: readonly MixtureOrder[] = ['random', 'grouped', 'asc', 'desc'];

/** A whole mixture in one array, in `order` (grouped: every kind's lengths in turn, each in draw order). */
export function mixtureSample(count: number, seed: number, order: MixtureOrder = 'random', kinds: readonly MixtureKind[] = DEFAULT_MIXTURE): Uint32Array {
  const out = new Uint32Array(count);
  const kindOf = new Uint8Array(count);
  let at = 0;
  for (const b of mixtureKindBatches(count, seed, 1 << 20, kinds)) {
    out.set(b.lengths, at);
    kindOf.set(b.kinds, at);
    at += b.lengths.length;
  }
  if (order === 'asc') return out.sort();
  if (order === 'desc') return out.sort().reverse();
  if (order === 'random') return out;
  const grouped = new Uint32Array(count);
  let g = 0;
  for (let k = 0; k < kinds.length; k++) for (let i = 0; i < count; i++) if (kindOf[i] === k) grouped[g++] = out[i]!;
  return grouped;
}
