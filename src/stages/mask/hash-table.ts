/**
 * An open-addressing hash table keyed by a 64-bit hash given as two u32 halves, with a
 * u32 value per key. Typed arrays only, so its memory is exactly 16 bytes a slot and the
 * hot path allocates nothing (no BigInt, no Map entries).
 *
 * `clear()` is O(1): a slot is occupied only when its generation stamp is the current one.
 */
export class HashTable {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private val: Uint32Array;
  private gen: Uint32Array;
  private generation = 1;
  private mask: number;
  size = 0;

  /** `capacity` is rounded up to a power of two; a `growable` table doubles at half load. */
  constructor(
    capacity: number,
    private readonly growable = false,
  ) {
    const cap = 2 ** Math.max(4, Math.ceil(Math.log2(Math.max(1, capacity))));
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.val = new Uint32Array(cap);
    this.gen = new Uint32Array(cap);
    this.mask = cap - 1;
  }

  get capacity(): number {
    return this.mask + 1;
  }

  static bytesPerSlot = 16;

  /** The slot holding the key, or -1. */
  find(hi: number, lo: number): number {
    for (let i = lo & this.mask; ; i = (i + 1) & this.mask) {
      if (this.gen[i] !== this.generation) return -1;
      if (this.lo[i] === lo && this.hi[i] === hi) return i;
    }
  }

  /** Adds `by` to the key's value (inserting it at 0); returns the slot. */
  add(hi: number, lo: number, by: number): number {
    if (this.growable && this.size * 2 >= this.capacity) this.rehash(this.capacity * 2);
    else if (this.size >= this.capacity - 1) throw new Error('hash table is full');
    let i = lo & this.mask;
    for (; ; i = (i + 1) & this.mask) {
      if (this.gen[i] !== this.generation) {
        this.gen[i] = this.generation;
        this.hi[i] = hi;
        this.lo[i] = lo;
        this.val[i] = 0;
        this.size++;
        break;
      }
      if (this.lo[i] === lo && this.hi[i] === hi) break;
    }
    this.val[i] = Math.min(0xffffffff, this.val[i]! + by);
    return i;
  }

  value(slot: number): number {
    return this.val[slot]!;
  }

  setValue(slot: number, v: number): void {
    this.val[slot] = v;
  }

  keyHi(slot: number): number {
    return this.hi[slot]!;
  }

  keyLo(slot: number): number {
    return this.lo[slot]!;
  }

  clear(): void {
    this.size = 0;
    this.generation++;
    if (this.generation === 0xffffffff) {
      this.gen.fill(0);
      this.generation = 1;
    }
  }

  /** Occupied slots in key order (hash ascending as an unsigned 64-bit number). */
  sortedSlots(): Uint32Array {
    const keys = new BigUint64Array(this.size);
    // Little-endian alias: word 2k is the low half of key k, word 2k+1 the high half.
    const words = new Uint32Array(keys.buffer);
    let n = 0;
    for (let i = 0; i <= this.mask; i++) {
      if (this.gen[i] !== this.generation) continue;
      words[2 * n] = this.lo[i]!;
      words[2 * n + 1] = this.hi[i]!;
      n++;
    }
    keys.sort();
    const slots = new Uint32Array(n);
    for (let k = 0; k < n; k++) slots[k] = this.find(words[2 * k + 1]!, words[2 * k]!);
    return slots;
  }

  private rehash(capacity: number): void {
    const { hi, lo, val, gen, generation } = this;
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
    this.val = new Uint32Array(capacity);
    this.gen = new Uint32Array(capacity);
    this.generation = 1;
    this.mask = capacity - 1;
    this.size = 0;
    for (let i = 0; i < gen.length; i++) {
      if (gen[i] !== generation) continue;
      this.setValue(this.add(hi[i]!, lo[i]!, 0), val[i]!);
    }
  }
}
