import { cutDocument } from './cut.js';
import {
  checkBatch,
  resolvePackerOptions,
  type ClosedBins,
  type DocBatch,
  type Packer,
  type PackerOptions,
  type PackerStats,
  type ResolvedPackerOptions,
} from '../../src/pack/packer.js';

/** A growable Uint32Array. */
class U32List {
  data: Uint32Array;
  length = 0;
  constructor(capacity = 1024) {
    this.data = new Uint32Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }
  take(): Uint32Array {
    const out = this.data.slice(0, this.length);
    this.length = 0;
    return out;
  }
}

const ctz32 = (x: number): number => 31 - Math.clz32(x & -x);

/** A set of integers in [0, n] with successor queries: a 32-ary bitset tree (the TS twin of CapacityIndex). */
export class CapacityIndex {
  private readonly levels: Uint32Array[] = [];

  constructor(maxValue: number) {
    let size = maxValue + 1;
    do {
      const words = Math.ceil(size / 32);
      this.levels.push(new Uint32Array(words));
      size = words;
    } while (size > 1);
  }

  insert(x: number): void {
    let i = x;
    for (const level of this.levels) {
      const w = i >>> 5;
      const wasEmpty = level[w] === 0;
      level[w] = level[w]! | (1 << (i & 31));
      if (!wasEmpty) return;
      i = w;
    }
  }

  erase(x: number): void {
    let i = x;
    for (const level of this.levels) {
      const w = i >>> 5;
      level[w] = level[w]! & ~(1 << (i & 31));
      if (level[w] !== 0) return;
      i = w;
    }
  }

  /** Smallest member >= x, or -1. */
  successor(x: number): number {
    let i = x;
    let depth = 0;
    for (;; depth++) {
      if (depth === this.levels.length) return -1;
      const level = this.levels[depth]!;
      const w = i >>> 5;
      if (w >= level.length) return -1;
      const bits = level[w]! & (~0 << (i & 31));
      if (bits !== 0) {
        i = (w << 5) | ctz32(bits);
        break;
      }
      i = w + 1;
    }
    while (depth > 0) {
      depth--;
      i = (i << 5) | ctz32(this.levels[depth]![i]!);
    }
    return i;
  }
}

/**
 * The same best-fit-decreasing algorithm as the C++ core, in plain TypeScript: identical
 * assignments for identical input (the property tests check it), used as the cross-check
 * and as the bench's baseline. Test code only: production packs with the native core.
 */
export class TsStreamingPacker implements Packer {
  readonly options: ResolvedPackerOptions;
  private readonly L: number;
  private readonly st: PackerStats = {
    docs: 0, units: 0, overlongDocs: 0, droppedDocs: 0, droppedTokens: 0, duplicatedTokens: 0, bins: 0, paddingTokens: 0, tokens: 0,
  };
  private nextDoc = 0;
  private nextSeq = 0;

  // The window, struct-of-arrays.
  private readonly wDoc: Uint32Array;
  private readonly wStart: Uint32Array;
  private readonly wEnd: Uint32Array;
  private readonly wHeader: Uint32Array;
  private readonly wId: Uint32Array;
  private readonly wKey: Float64Array;
  private wSize = 0;

  // Open bins: slots with a bucket (doubly linked list per remaining room) and a unit list.
  private readonly index: CapacityIndex;
  private readonly bucketHead: Int32Array;
  private binRemaining: number[] = [];
  /** Per bin, its units flat as doc, start, end, header, id, ... (contiguous, as in the C++ core). */
  private binUnits: number[][] = [];
  private binPrev: number[] = [];
  private binNext: number[] = [];
  private binSeq: number[] = [];
  private freeBins: number[] = [];
  private openBins = 0;

  private heldCount = 0; // units in open bins

  private readonly outStart = new U32List();
  private readonly outDoc = new U32List();
  private readonly outUStart = new U32List();
  private readonly outUEnd = new U32List();
  private readonly outHeader = new U32List();
  private readonly outId = new U32List();

  constructor(opts: PackerOptions) {
    this.options = resolvePackerOptions(opts);
    this.L = this.options.capacity;
    const w = this.options.windowUnits;
    this.wDoc = new Uint32Array(w);
    this.wStart = new Uint32Array(w);
    this.wEnd = new Uint32Array(w);
    this.wHeader = new Uint32Array(w);
    this.wId = new Uint32Array(w);
    this.wKey = new Float64Array(w);
    this.index = new CapacityIndex(this.L);
    this.bucketHead = new Int32Array(this.L + 1).fill(-1);
    this.outStart.push(0);
  }

  push(batch: DocBatch): ClosedBins {
    checkBatch(batch);
    const { lengths, boundaryCounts, boundaryOffsets, headerLens } = batch;
    const L = this.L;
    const st = this.st;
    let b = 0;
    for (let i = 0; i < lengths.length; i++) {
      const doc = this.nextDoc++;
      const len = lengths[i]!;
      const count = boundaryCounts ? boundaryCounts[i]! : 0;
      st.docs++;
      st.tokens += len;
      if (len <= L) {
        this.addUnit(doc, 0, len, 0);
      } else {
        st.overlongDocs++;
        const r = cutDocument(len, this.options, (s, e, h) => this.addUnit(doc, s, e, h), boundaryOffsets, b, count, headerLens ? headerLens[i]! : 0);
        st.droppedTokens += r.droppedTokens;
        st.duplicatedTokens += r.duplicatedTokens;
        if (r.dropped) st.droppedDocs++;
      }
      b += count;
    }
    return this.drain();
  }

  finish(): ClosedBins {
    if (this.wSize > 0) this.placeWindow();
    const open: number[] = [];
    for (let room = this.index.successor(0); room >= 0; room = room === this.L ? -1 : this.index.successor(room + 1)) {
      for (let slot = this.bucketHead[room]!; slot >= 0; slot = this.binNext[slot]!) open.push(slot);
    }
    open.sort((a, b) => this.binSeq[a]! - this.binSeq[b]!);
    for (const slot of open) {
      this.bucketErase(slot);
      this.closeBin(slot);
    }
    return this.drain();
  }

  stats(): PackerStats {
    return { ...this.st };
  }

  private addUnit(doc: number, start: number, end: number, header: number): void {
    const k = this.wSize++;
    this.wId[k] = this.st.units++;
    this.wDoc[k] = doc;
    this.wStart[k] = start;
    this.wEnd[k] = end;
    this.wHeader[k] = header;
    if (this.wSize >= this.options.windowUnits) this.placeWindow();
  }

  // Longest first, ties in arrival order: the key orders by (L - length, position).
  private placeWindow(): void {
    const n = this.wSize;
    const w = this.options.windowUnits;
    const keys = this.wKey.subarray(0, n);
    for (let i = 0; i < n; i++) keys[i] = (this.L - (this.wHeader[i]! + this.wEnd[i]! - this.wStart[i]!)) * w + i;
    keys.sort();
    for (let k = 0; k < n; k++) {
      const i = keys[k]! % w;
      this.place(this.wDoc[i]!, this.wStart[i]!, this.wEnd[i]!, this.wHeader[i]!, this.wId[i]!);
    }
    this.wSize = 0;
  }

  private place(doc: number, start: number, end: number, header: number, id: number): void {
    const len = header + end - start;
    const room = this.index.successor(len);
    let slot: number;
    if (room >= 0) {
      slot = this.bucketHead[room]!;
      this.bucketErase(slot);
    } else {
      slot = this.newBin();
    }
    this.appendUnit(slot, doc, start, end, header, id);
    const remaining = (this.binRemaining[slot] = this.binRemaining[slot]! - len);
    if (remaining === 0) this.closeBin(slot);
    else this.bucketInsert(slot);
    while (this.openBins > this.options.maxOpenBins || this.heldCount > this.options.maxHeldUnits) this.closeFullest();
  }

  private newBin(): number {
    const slot = this.freeBins.length ? this.freeBins.pop()! : this.binRemaining.length;
    this.binRemaining[slot] = this.L;
    if (!this.binUnits[slot]) this.binUnits[slot] = [];
    this.binPrev[slot] = -1;
    this.binNext[slot] = -1;
    this.binSeq[slot] = this.nextSeq++;
    this.openBins++;
    return slot;
  }

  private bucketInsert(slot: number): void {
    const r = this.binRemaining[slot]!;
    const head = this.bucketHead[r]!;
    this.binPrev[slot] = -1;
    this.binNext[slot] = head;
    if (head >= 0) this.binPrev[head] = slot;
    else this.index.insert(r);
    this.bucketHead[r] = slot;
  }

  private bucketErase(slot: number): void {
    const r = this.binRemaining[slot]!;
    const prev = this.binPrev[slot]!;
    const next = this.binNext[slot]!;
    if (prev >= 0) this.binNext[prev] = next;
    else this.bucketHead[r] = next;
    if (next >= 0) this.binPrev[next] = prev;
    if (this.bucketHead[r]! < 0) this.index.erase(r);
    this.binPrev[slot] = this.binNext[slot] = -1;
  }

  private appendUnit(slot: number, doc: number, start: number, end: number, header: number, id: number): void {
    this.binUnits[slot]!.push(doc, start, end, header, id);
    this.heldCount++;
  }

  private closeBin(slot: number): void {
    const units = this.binUnits[slot]!;
    for (let k = 0; k < units.length; k += 5) {
      this.outDoc.push(units[k]!);
      this.outUStart.push(units[k + 1]!);
      this.outUEnd.push(units[k + 2]!);
      this.outHeader.push(units[k + 3]!);
      this.outId.push(units[k + 4]!);
    }
    this.heldCount -= units.length / 5;
    // a freed bin keeps a small buffer for reuse, as the C++ core does
    if (units.length > 5 * 1024) this.binUnits[slot] = [];
    else units.length = 0;
    this.outStart.push(this.outDoc.length);
    this.st.bins++;
    this.st.paddingTokens += this.binRemaining[slot]!;
    this.openBins--;
    this.freeBins.push(slot);
  }

  private closeFullest(): void {
    const slot = this.bucketHead[this.index.successor(0)]!;
    this.bucketErase(slot);
    this.closeBin(slot);
  }

  private drain(): ClosedBins {
    // closeBin records positions relative to this drain's units, which take() restarts at 0.
    const starts = this.outStart.take();
    this.outStart.push(0);
    return {
      binCount: starts.length - 1,
      binUnitStart: starts,
      unitDoc: this.outDoc.take(),
      unitStart: this.outUStart.take(),
      unitEnd: this.outUEnd.take(),
      unitHeader: this.outHeader.take(),
      unitId: this.outId.take(),
    };
  }
}
