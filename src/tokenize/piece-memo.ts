/** A memo's two arrays, in shared memory: what a worker needs to read a memo another thread built. */
export interface MemoBuffers {
  slots: SharedArrayBuffer;
  pool: SharedArrayBuffer;
}

/**
 * The fast backend's memo of pre-tokenized pieces: an open-addressing hash table looked up by
 * a range of the text itself, so a hit (most pieces) allocates nothing: no sliced key string,
 * no per-piece array. A worker otherwise spends a fifth of its CPU collecting those.
 *
 * Laid out for the cache, because a lookup is a few dependent memory reads and two workers share
 * one last-level cache: each slot is a pair [hash, record + 1] side by side, and each piece is
 * one record in a single Int32Array, its key and its tokens together:
 *
 *   record: [key length in UTF-16 units, token count n,
 *            key: two UTF-16 units an int (ceil(length / 2) ints),
 *            ids: n ints,
 *            ranges: n ints, each (start | end << 16) in UTF-16 units of the piece]
 *
 * So a hit reads one slot and one record, usually a cache line each (the table of separate
 * arrays and key strings it replaces read about seven), and the keys are not strings on the
 * JavaScript heap for the collector to trace. The table is emptied when full (the ids never
 * depend on it), which keeps its memory fixed.
 */
export class PieceMemo {
  /** Pairs [hash, record offset + 1]; 0 in the second marks an empty slot. Twice the entries, so probes stay short. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  /**
   * The records, back to back: allocated at its full size once, so it is never copied to grow;
   * the system backs its pages only as records reach them.
   */
  readonly pool: Int32Array;
  private readonly poolInts: number;
  private poolUsed = 0;
  private size = 0;
  /** A view of another thread's memo: read, never added to (its records never change). */
  private readonly readOnly: boolean;

  /**
   * A memo of up to `maxEntries` pieces in `poolInts` ints of records (16 MB by default), emptied
   * when either is full. `shared`: in shared memory, so other threads can read it once it is built
   * (PieceMemo.view over its buffers()).
   */
  constructor(
    private readonly maxEntries: number,
    opts: { poolInts?: number; shared?: boolean; view?: MemoBuffers } = {},
  ) {
    if (maxEntries < 1) throw new RangeError('PieceMemo: at least one entry');
    this.readOnly = opts.view !== undefined;
    if (opts.view) {
      this.slots = new Int32Array(opts.view.slots);
      this.pool = new Int32Array(opts.view.pool);
    } else {
      let cap = 1;
      while (cap < 2 * maxEntries) cap <<= 1;
      const alloc = (ints: number) => (opts.shared ? new Int32Array(new SharedArrayBuffer(4 * ints)) : new Int32Array(ints));
      this.slots = alloc(2 * cap);
      this.pool = alloc(opts.poolInts ?? MAX_POOL);
    }
    this.poolInts = this.pool.length;
    this.mask = this.slots.length / 2 - 1;
  }

  /** A read-only memo over the buffers of one built in shared memory (by this or another thread). */
  static view(buffers: MemoBuffers): PieceMemo {
    return new PieceMemo(1, { view: buffers });
  }

  /** This memo's arrays, when it was made `shared`. */
  buffers(): MemoBuffers {
    if (!(this.slots.buffer instanceof SharedArrayBuffer) || !(this.pool.buffer instanceof SharedArrayBuffer)) throw new Error('PieceMemo.buffers: not a shared memo');
    return { slots: this.slots.buffer, pool: this.pool.buffer };
  }

  /** The record holding text[a, b) (hash `h` from hashRange), or -1. Pieces are shorter than MAX_KEY. */
  find(text: string, a: number, b: number, h: number): number {
    const len = b - a;
    const slots = this.slots;
    const pool = this.pool;
    for (let s = h & this.mask; ; s = (s + 1) & this.mask) {
      const r = slots[2 * s + 1]! - 1;
      if (r < 0) return -1;
      if (slots[2 * s] !== h || pool[r] !== len) continue;
      let k = r + 2;
      let i = a;
      for (; i + 1 < b; i += 2, k++) if (pool[k] !== (text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16))) break;
      if (i + 1 < b) continue;
      if (i < b && pool[k] !== text.charCodeAt(i)) continue;
      return r;
    }
  }

  /** Tokens in record `r`. */
  count(r: number): number {
    return this.pool[r + 1]!;
  }

  /** Where record `r`'s ids start in `pool`; its `count(r)` packed ranges follow them. */
  idsAt(r: number): number {
    return r + 2 + ((this.pool[r]! + 1) >> 1);
  }

  /**
   * Adds text[a, b) (hash `h`, not present) with its tokens: `n` ids from `ids` and their
   * ranges, in units of the piece, from `starts` and `ends`.
   */
  add(text: string, a: number, b: number, h: number, n: number, ids: ArrayLike<number>, starts: ArrayLike<number>, ends: ArrayLike<number>): void {
    const len = b - a;
    if (len >= MAX_KEY) throw new RangeError(`PieceMemo: a piece of ${len} units (limit ${MAX_KEY - 1})`);
    if (this.readOnly) throw new Error('PieceMemo.add: a read-only view');
    const size = 2 + ((len + 1) >> 1) + 2 * n;
    if (size > this.poolInts) throw new RangeError(`PieceMemo: a record of ${size} ints in a pool of ${this.poolInts}`);
    if (this.size >= this.maxEntries || this.poolUsed + size > this.poolInts) this.clear();
    const pool = this.pool;
    const r = this.poolUsed;
    pool[r] = len;
    pool[r + 1] = n;
    let k = r + 2;
    let i = a;
    for (; i + 1 < b; i += 2) pool[k++] = text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16);
    if (i < b) pool[k++] = text.charCodeAt(i);
    for (let t = 0; t < n; t++) {
      pool[k + t] = ids[t]!;
      pool[k + n + t] = starts[t]! | (ends[t]! << 16);
    }
    this.poolUsed += size;
    this.size++;
    let s = h & this.mask;
    while (this.slots[2 * s + 1] !== 0) s = (s + 1) & this.mask;
    this.slots[2 * s] = h;
    this.slots[2 * s + 1] = r + 1;
  }

  private clear(): void {
    this.slots.fill(0);
    this.size = 0;
    this.poolUsed = 0;
  }
}

/** Keys are shorter than this many UTF-16 units, so a range's start and end fit 16 bits each. */
export const MAX_KEY = 1 << 15;

/** Ints in the record pool before the memo is emptied (16 MB), whatever the pieces' lengths. */
const MAX_POOL = 1 << 22;

/** FNV-1a over the UTF-16 units of text[a, b), as a 32-bit int. */
export function hashRange(text: string, a: number, b: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = a; i < b; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  // FNV's low bits (the slot) are weak on short keys: fold the high bits in.
  return h ^ (h >>> 16);
}
