/**
 * An open-addressing hash table keyed by a 64-bit hash given as two u32 halves, with a
 * u32 value per key. Typed arrays only, so its memory is exactly 16 bytes a slot and the
 * hot path allocates nothing (no BigInt, no Map entries). A slot's four words (generation,
 * key low, key high, value) sit side by side, so a probe of a table far larger than the
 * cache touches one cache line, not four.
 *
 * `clear()` is O(1): a slot is occupied only when its generation stamp is the current one.
 */
import { nativeBinding } from '../../pack/packer.js';

/** The native core's loops over a table's words (native/include/count_table.hpp), where the addon has them. */
interface CountTableCore {
  countTableKeys?(words: Uint32Array, state: Uint32Array, found: Uint32Array, from: number, to: number, stride: number): Uint32Array;
  countTableMove?(from: Uint32Array, fromGeneration: number, to: Uint32Array): number;
  countTableSorted?(words: Uint32Array, generation: number, size: number): Uint32Array;
  countTableRecords?(words: Uint32Array, generation: number, size: number): Uint32Array;
  countTableWords?(slots: number): Uint32Array | undefined;
}

const core = (): CountTableCore => nativeBinding() as unknown as CountTableCore;

/** What countKeys() did: where it stopped (`to` when every key was added) and its sample candidates, (i, slot) pairs. */
export interface CountedKeys {
  stoppedAt: number;
  candidates: Uint32Array;
}

/** Tables this large (2 MB) and up get memory of their own (tableWords). */
const OWN_MEMORY_SLOTS = 2 ** 17;

/**
 * A table's words, zeroed. A large table's from the native core (countTableWords): in 2 MB pages
 * and left out of forked children. Probes land at random, so in 4 KB pages each page of a fresh
 * table took page faults and nearly every probe a TLB miss, and after each fork of the process
 * (the prepare workers' git) every page written took a copy-on-write fault again: on bench:run's
 * full corpus more of the main thread's CPU than the counting itself. The words are the same.
 */
function tableWords(slots: number): Uint32Array {
  return (slots >= OWN_MEMORY_SLOTS ? core().countTableWords?.(slots) : undefined) ?? new Uint32Array(slots * 4);
}

const GEN = 0;
const LO = 1;
const HI = 2;
const VAL = 3;

export class HashTable {
  /** Slot i is words [4i, 4i + 4): GEN, LO, HI, VAL. */
  private words: Uint32Array;
  private generation = 1;
  private mask: number;
  size = 0;

  /** `capacity` is rounded up to a power of two; a `growable` table doubles at half load. */
  constructor(
    capacity: number,
    private readonly growable = false,
  ) {
    const cap = 2 ** Math.max(4, Math.ceil(Math.log2(Math.max(1, capacity))));
    this.words = tableWords(cap);
    this.mask = cap - 1;
  }

  get capacity(): number {
    return this.mask + 1;
  }

  static bytesPerSlot = 16;

  /** The slot holding the key, or -1. */
  find(hi: number, lo: number): number {
    const w = this.words;
    for (let i = lo & this.mask; ; i = (i + 1) & this.mask) {
      const at = i << 2;
      if (w[at + GEN] !== this.generation) return -1;
      if (w[at + LO] === lo && w[at + HI] === hi) return i;
    }
  }

  /**
   * Adds 1 to the value of each key whose high half is `found[i]` and low half `found[i + 1]`, for
   * i = from, from + stride, ... below `to`, in order, as add(hi, lo, 1) each; stops before the
   * add that would find `size` at `stopSize` or more (the caller grows or empties the table and
   * goes on from `stoppedAt`). A key whose new value is a power of two of at least
   * `candidateFloor` is a candidate (SegmentCounter's samples). The native core's loop when the
   * addon has it: it prefetches the home slots of the keys ahead, so a table far larger than the
   * cache has many misses in flight instead of one after the other (the JavaScript loop's).
   */
  countKeys(found: Uint32Array, from: number, to: number, stride: number, stopSize: number, candidateFloor: number): CountedKeys {
    const native = core().countTableKeys;
    if (native) {
      const state = this.nativeState;
      // Never a full table: the native loop has no other stop.
      state.set([this.generation, this.size, Math.min(stopSize, this.capacity - 1), candidateFloor, from]);
      const candidates = native(this.words, state, found, from, to, stride);
      this.size = state[1]!;
      return { stoppedAt: state[4]!, candidates };
    }
    const candidates: number[] = [];
    for (let i = from; i < to; i += stride) {
      if (this.size >= stopSize) return { stoppedAt: i, candidates: Uint32Array.from(candidates) };
      const slot = this.add(found[i]!, found[i + 1]!, 1);
      const n = this.value(slot);
      if ((n & (n - 1)) === 0 && n >= candidateFloor) candidates.push(i, slot);
    }
    return { stoppedAt: to, candidates: Uint32Array.from(candidates) };
  }

  /** countKeys()'s arguments to the native core and its answers: generation, size, stopSize, candidateFloor, stoppedAt. */
  private readonly nativeState = new Uint32Array(5);

  /** Adds `by` to the key's value (inserting it at 0); returns the slot. */
  add(hi: number, lo: number, by: number): number {
    if (this.growable && this.size * 2 >= this.capacity) this.resize(this.capacity * 2);
    else if (this.size >= this.capacity - 1) throw new Error('hash table is full');
    const w = this.words;
    let i = lo & this.mask;
    for (; ; i = (i + 1) & this.mask) {
      const at = i << 2;
      if (w[at + GEN] !== this.generation) {
        w[at + GEN] = this.generation;
        w[at + HI] = hi;
        w[at + LO] = lo;
        w[at + VAL] = 0;
        this.size++;
        break;
      }
      if (w[at + LO] === lo && w[at + HI] === hi) break;
    }
    const at = (i << 2) + VAL;
    w[at] = Math.min(0xffffffff, w[at]! + by);
    return i;
  }

  value(slot: number): number {
    return this.words[(slot << 2) + VAL]!;
  }

  setValue(slot: number, v: number): void {
    this.words[(slot << 2) + VAL] = v;
  }

  keyHi(slot: number): number {
    return this.words[(slot << 2) + HI]!;
  }

  keyLo(slot: number): number {
    return this.words[(slot << 2) + LO]!;
  }

  clear(): void {
    this.size = 0;
    this.generation++;
    if (this.generation === 0xffffffff) {
      for (let at = GEN; at < this.words.length; at += 4) this.words[at] = 0;
      this.generation = 1;
    }
  }

  /**
   * Occupied slots in key order (hash ascending as an unsigned 64-bit number). Each slot is
   * sorted beside its key's high half (high half, then slot, in one 64-bit number), so no key is
   * looked up again (a find() per key was a cache miss each in a table of 2^23 slots); keys that
   * share a high half (about n^2 / 2^33 pairs) are then put in the order of their low halves.
   */
  sortedSlots(): Uint32Array {
    const native = core().countTableSorted;
    if (native) return native(this.words, this.generation, this.size);
    const pairs = new BigUint64Array(this.size);
    // Little-endian alias: word 2k is the low half of pair k (the slot), word 2k+1 the high half (the key's high half).
    const words = new Uint32Array(pairs.buffer);
    let n = 0;
    const w = this.words;
    for (let at = 0; at < w.length; at += 4) {
      if (w[at + GEN] !== this.generation) continue;
      words[2 * n] = at >>> 2;
      words[2 * n + 1] = w[at + HI]!;
      n++;
    }
    pairs.sort();
    const slots = new Uint32Array(n);
    for (let k = 0; k < n; k++) slots[k] = words[2 * k]!;
    for (let a = 0; a < n; ) {
      let b = a + 1;
      while (b < n && words[2 * b + 1] === words[2 * a + 1]) b++;
      if (b - a > 1) slots.subarray(a, b).sort((x, y) => this.keyLo(x) - this.keyLo(y));
      a = b;
    }
    return slots;
  }

  /**
   * The entries in key order (sortedSlots) as three words each: the key's low half, its high
   * half, the value: on a little-endian host, the counts file's records as they are written.
   */
  records(): Uint32Array {
    const native = core().countTableRecords;
    if (native) return native(this.words, this.generation, this.size);
    const slots = this.sortedSlots();
    const out = new Uint32Array(3 * slots.length);
    slots.forEach((slot, k) => out.set([this.keyLo(slot), this.keyHi(slot), this.value(slot)], 3 * k));
    return out;
  }

  /**
   * The entries moved into a table of `capacity` slots (a power of two): their slots change, find() tells the new ones.
   * Every key is distinct, so each goes to the first free slot from its home without comparing
   * keys (add() compares each probe): the full bench:run corpus's 2.26 M segments grown 2^20 -> 2^23 in 446 ms, 645 with add().
   */
  resize(capacity: number): void {
    const { words, generation } = this;
    const w = (this.words = tableWords(capacity));
    const mask = (this.mask = capacity - 1);
    this.generation = 1;
    const native = core().countTableMove;
    if (native) {
      native(words, generation, w);
      return;
    }
    for (let at = 0; at < words.length; at += 4) {
      if (words[at + GEN] !== generation) continue;
      let i = words[at + LO]! & mask;
      while (w[(i << 2) + GEN] === 1) i = (i + 1) & mask;
      const to = i << 2;
      w[to + GEN] = 1;
      w[to + LO] = words[at + LO]!;
      w[to + HI] = words[at + HI]!;
      w[to + VAL] = words[at + VAL]!;
    }
  }
}
