import { Rng } from '../core/random.js';

/** The order bins are written in: position i of the output holds planned bin at(i). */
export interface BinOrder {
  readonly count: number;
  at(i: number): number;
}

/** murmur3's finalizer: a 32-bit mix. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const ROUNDS = 4;

/**
 * A seeded pseudo-random permutation of [0, count) that costs no memory per bin: a balanced
 * Feistel network over the smallest even power of two at least `count`, walked in cycles until
 * the value falls in range (fewer than 4 steps on average). `seed` undefined keeps plan order.
 */
export function binOrder(count: number, seed: number | undefined): BinOrder {
  if (!Number.isSafeInteger(count) || count < 0 || count > 2 ** 32) throw new RangeError(`binOrder: count must be an integer in [0, 2^32], got ${count}`);
  if (seed === undefined) return { count, at: (i) => i };
  let half = 1;
  while (2 ** (2 * half) < count) half++;
  const mask = 2 ** half - 1;
  const rng = new Rng(seed, 'bin-order');
  const keys = Array.from({ length: ROUNDS }, () => rng.nextU32());
  const encrypt = (x: number): number => {
    let left = Math.floor(x / 2 ** half);
    let right = x & mask;
    for (const k of keys) {
      const next = (left ^ fmix32(right ^ k)) & mask;
      left = right;
      right = next;
    }
    return left * 2 ** half + right;
  };
  return {
    count,
    at(i: number): number {
      if (i < 0 || i >= count) throw new RangeError(`binOrder: position ${i} out of [0, ${count})`);
      let x = encrypt(i);
      while (x >= count) x = encrypt(x);
      return x;
    },
  };
}
