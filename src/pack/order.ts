import { Rng } from '../core/random.js';

/** Orders a user may give lengths in, to see how much a strategy depends on order. */
export type LengthOrder = 'as-given' | 'shuffled' | 'sorted-asc' | 'sorted-desc';
export const LENGTH_ORDERS: readonly LengthOrder[] = ['as-given', 'shuffled', 'sorted-asc', 'sorted-desc'];

/** The lengths in `order` (a new array unless as-given); `shuffled` is seeded. */
export function orderLengths(lengths: Uint32Array, order: LengthOrder, seed = 0): Uint32Array {
  switch (order) {
    case 'as-given':
      return lengths;
    case 'sorted-asc':
      return lengths.slice().sort();
    case 'sorted-desc':
      return lengths.slice().sort().reverse();
    case 'shuffled': {
      const out = lengths.slice();
      const rng = new Rng(seed, 'length-order');
      for (let i = out.length - 1; i > 0; i--) {
        const j = rng.int(0, i + 1);
        const t = out[i]!;
        out[i] = out[j]!;
        out[j] = t;
      }
      return out;
    }
  }
}
