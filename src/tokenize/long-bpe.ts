/**
 * Byte-pair encoding of one very long pre-tokenized piece (a 10 MB run of one character) in
 * O(n log n) time and 36 bytes per input byte, all in typed arrays.
 *
 * The packages' BPE cores rescan the whole piece after every merge (tiktoken: 47 s for 160 kB
 * of one character); this is the same algorithm as @huggingface/tokenizers' heap-based BPE,
 * exactly: the adjacent pair with the lowest merge rank merges first, the leftmost on a tie
 * (the reference breaks ties by the left part's first byte). It runs only on pieces longer
 * than the fast path's threshold, and test/tokenize checks it against the reference.
 */
export class LongPieceBpe {
  /** (left id, right id) -> merged id; merged ids grow with merge rank (checked on load). */
  private readonly pairs = new Map<number, number>();
  private readonly byteIds = new Int32Array(256);

  /** `byteIds`: the id of each single byte; `pairs`: (left, right, merged) ids per merge (fastTables). */
  constructor(byteIds: Int32Array, pairs: Int32Array) {
    this.byteIds.set(byteIds);
    for (let i = 0; i < pairs.length; i += 3) this.pairs.set(pairKey(pairs[i]!, pairs[i + 1]!), pairs[i + 2]!);
  }

  encode(bytes: Uint8Array): Int32Array {
    const n = bytes.length;
    const id = new Int32Array(n); // token id of the token starting at byte i (if alive)
    const next = new Int32Array(n); // start of the next token, n at the end
    const prev = new Int32Array(n); // start of the previous token, -1 at the start
    for (let i = 0; i < n; i++) {
      id[i] = this.byteIds[bytes[i]!]!;
      next[i] = i + 1;
      prev[i] = i - 1;
    }
    const heap = new MinHeap(3 * n);
    const offer = (pos: number) => {
      const nx = next[pos]!;
      if (nx >= n) return;
      const merged = this.pairs.get(pairKey(id[pos]!, id[nx]!));
      if (merged !== undefined) heap.push(merged * POS_RANGE + pos);
    };
    for (let i = 0; i + 1 < n; i++) offer(i);
    while (heap.size > 0) {
      const key = heap.pop();
      const pos = key % POS_RANGE;
      const merged = (key - pos) / POS_RANGE;
      if (id[pos]! < 0) continue; // the left token was merged into its neighbour
      const nx = next[pos]!;
      // A stale entry: the pair at pos is no longer the one this merge was for.
      if (nx >= n || this.pairs.get(pairKey(id[pos]!, id[nx]!)) !== merged) continue;
      id[pos] = merged;
      id[nx] = -1;
      next[pos] = next[nx]!;
      if (next[pos]! < n) prev[next[pos]!] = pos;
      offer(pos);
      if (prev[pos]! >= 0) offer(prev[pos]!);
    }
    const out: number[] = [];
    for (let i = 0; i < n; i = next[i]!) out.push(id[i]!);
    return Int32Array.from(out);
  }
}

/** Positions fit below 2^27 (pieces are bounded far below 128 MB); ids below 2^24. */
const POS_RANGE = 2 ** 27;
export const LONG_PIECE_MAX_BYTES = POS_RANGE - 1;

function pairKey(a: number, b: number): number {
  return a * 16_777_216 + b;
}

/** A binary min-heap of doubles (merged id * 2^27 + position: rank first, then leftmost). */
class MinHeap {
  private data: Float64Array;
  size = 0;
  constructor(capacity: number) {
    this.data = new Float64Array(Math.max(16, capacity));
  }
  push(v: number): void {
    if (this.size === this.data.length) {
      const d = new Float64Array(this.data.length * 2);
      d.set(this.data);
      this.data = d;
    }
    const a = this.data;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= v) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = v;
  }
  pop(): number {
    const a = this.data;
    const top = a[0]!;
    const last = a[--this.size]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= this.size) break;
      if (c + 1 < this.size && a[c + 1]! < a[c]!) c++;
      if (a[c]! >= last) break;
      a[i] = a[c]!;
      i = c;
    }
    a[i] = last;
    return top;
  }
}
