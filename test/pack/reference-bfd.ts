/**
 * A whole-set best-fit-decreasing reference, independent of the native planner (test and
 * benchmark code only): every unit, longest first, goes to the bin with the least room that
 * still holds it, found in a segment tree over the rooms [0, L] (each leaf: how many bins
 * have that room; each node: whether its range has any), else opens a new bin. This is the
 * algorithm of TRL's BFD packing; bins and padding are what a caller compares against.
 */
export interface ReferenceBfd {
  bins: number;
  paddingTokens: number;
}

/** Packs the units (lengths at most L, any order: they are sorted here) by best-fit decreasing. */
export function referenceBfd(unitLengths: Uint32Array, L: number): ReferenceBfd {
  const sorted = Uint32Array.from(unitLengths).sort().reverse();
  let size = 1;
  while (size < L + 1) size *= 2;
  const count = new Uint32Array(L + 1); // bins with each room
  const any = new Uint8Array(2 * size); // node: some bin has a room in its range
  const set = (room: number, on: boolean) => {
    let i = size + room;
    any[i] = on ? 1 : 0;
    for (i >>= 1; i >= 1; i >>= 1) any[i] = any[2 * i]! | any[2 * i + 1]!;
  };
  // The smallest room >= len with a bin, or -1: descend, preferring the left child that can hold it.
  const bestRoom = (len: number, node = 1, lo = 0, hi = size - 1): number => {
    if (!any[node] || hi < len) return -1;
    if (lo === hi) return lo;
    const mid = (lo + hi) >> 1;
    const left = bestRoom(len, 2 * node, lo, mid);
    return left >= 0 ? left : bestRoom(len, 2 * node + 1, mid + 1, hi);
  };
  const add = (room: number) => {
    if (room > 0 && count[room]++ === 0) set(room, true);
  };
  let bins = 0;
  let tokens = 0;
  for (const len of sorted) {
    tokens += len;
    const room = len === 0 ? -1 : bestRoom(len);
    if (room < 0) {
      bins++;
      add(L - len);
      continue;
    }
    if (--count[room] === 0) set(room, false);
    add(room - len);
  }
  return { bins, paddingTokens: bins * L - tokens };
}

/** The units of `split` (chunks of L, the last shorter) of every document length. */
export function splitUnits(lengths: Uint32Array, L: number): Uint32Array {
  let n = 0;
  for (const len of lengths) n += Math.max(1, Math.ceil(len / L));
  const out = new Uint32Array(n);
  let at = 0;
  for (const len of lengths) {
    let rest = len;
    while (rest > L) {
      out[at++] = L;
      rest -= L;
    }
    out[at++] = rest;
  }
  return out;
}
