/**
 * The fast backend's memo of pre-tokenized pieces: an open-addressing hash table looked up by
 * a range of the text itself, so a hit (most pieces) allocates nothing: no sliced key string,
 * no per-piece array. A worker otherwise spends a fifth of its CPU collecting those.
 *
 * Each entry's tokens are kept in one shared Int32Array as [ids..., starts..., ends...], starts
 * and ends in UTF-16 units of the piece. The table is emptied when full (the ids never depend on
 * it), which keeps its memory fixed: about 40 bytes of table and the key string per entry.
 */
export class PieceMemo {
  /** Entry index + 1 per slot, 0 for an empty slot. Twice the entries, so probes stay short. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly keys: string[] = [];
  private readonly hashes: Int32Array;
  /** Where entry e's tokens start in `pool`, and how many tokens it has. */
  readonly offsets: Int32Array;
  readonly counts: Int32Array;
  pool = new Int32Array(1 << 16);
  private poolUsed = 0;
  private size = 0;

  constructor(private readonly maxEntries: number) {
    let cap = 1;
    while (cap < 2 * maxEntries) cap <<= 1;
    this.slots = new Int32Array(cap);
    this.mask = cap - 1;
    this.hashes = new Int32Array(maxEntries);
    this.offsets = new Int32Array(maxEntries);
    this.counts = new Int32Array(maxEntries);
  }

  /** The entry holding text[a, b) (hash `h` from hashRange), or -1. */
  find(text: string, a: number, b: number, h: number): number {
    const len = b - a;
    for (let s = h & this.mask; ; s = (s + 1) & this.mask) {
      const e = this.slots[s]! - 1;
      if (e < 0) return -1;
      if (this.hashes[e] !== h) continue;
      const key = this.keys[e]!;
      if (key.length !== len) continue;
      let i = 0;
      while (i < len && key.charCodeAt(i) === text.charCodeAt(a + i)) i++;
      if (i === len) return e;
    }
  }

  /** Adds `key` (hash `h`, not present) with its tokens `enc` ([ids, starts, ends], n each). */
  add(key: string, h: number, enc: Int32Array): void {
    if (this.size >= this.maxEntries || this.poolUsed + enc.length > MAX_POOL) this.clear();
    if (this.poolUsed + enc.length > this.pool.length) {
      let cap = this.pool.length * 2;
      while (cap < this.poolUsed + enc.length) cap *= 2;
      const grown = new Int32Array(cap);
      grown.set(this.pool.subarray(0, this.poolUsed));
      this.pool = grown;
    }
    const e = this.size++;
    this.keys[e] = key;
    this.hashes[e] = h;
    this.offsets[e] = this.poolUsed;
    this.counts[e] = enc.length / 3;
    this.pool.set(enc, this.poolUsed);
    this.poolUsed += enc.length;
    let s = h & this.mask;
    while (this.slots[s] !== 0) s = (s + 1) & this.mask;
    this.slots[s] = e + 1;
  }

  private clear(): void {
    this.slots.fill(0);
    this.keys.length = 0;
    this.size = 0;
    this.poolUsed = 0;
  }
}

/** Ints in the token pool before the memo is emptied (16 MB), whatever the pieces' lengths. */
const MAX_POOL = 1 << 22;

/** FNV-1a over the UTF-16 units of text[a, b), as a 32-bit int. */
export function hashRange(text: string, a: number, b: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = a; i < b; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  // FNV's low bits (the slot) are weak on short keys: fold the high bits in.
  return h ^ (h >>> 16);
}
