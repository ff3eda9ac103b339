import { closeSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { MinHeap } from '../../core/heap.js';

/**
 * Sorted runs of fixed-size records, the external sort under the dedup index (the same plan
 * as the masking counts: fill a bounded buffer, spill it sorted, k-way merge the runs with
 * the masking stage's MinHeap). Every record starts with its 64-bit sort key, little-endian
 * (low word at +0, high word at +4). Records with equal keys are folded by `combine`, which
 * must be commutative and associative (a sum, a minimum), so the merged bytes depend only on
 * the set of records, never on their order, the spill points or the number of ranks.
 */
export type Combine = (into: Buffer, intoAt: number, from: Buffer, fromAt: number) => void;

export const keyLess = (a: Buffer, ai: number, b: Buffer, bi: number): number => {
  const ah = a.readUInt32LE(ai + 4);
  const bh = b.readUInt32LE(bi + 4);
  if (ah !== bh) return ah - bh;
  return a.readUInt32LE(ai) - b.readUInt32LE(bi);
};

/** Buffers records up to a memory budget; each full buffer is sorted, folded and written as a run. */
export class RecordSorter {
  private buf: Buffer;
  private used = 0;
  readonly runs: string[] = [];

  constructor(
    readonly recordBytes: number,
    memoryBytes: number,
    private readonly workDir: string,
    private readonly name: string,
    private readonly combine: Combine,
  ) {
    this.buf = Buffer.alloc(Math.max(recordBytes * 64, Math.floor(memoryBytes / recordBytes) * recordBytes));
    mkdirSync(workDir, { recursive: true });
  }

  /** A slot for the next record, to be filled by the caller. */
  next(): { buf: Buffer; at: number } {
    if (this.used === this.buf.length) this.spill();
    const at = this.used;
    this.buf.fill(0, at, at + this.recordBytes);
    this.used += this.recordBytes;
    return { buf: this.buf, at };
  }

  spill(): void {
    const n = this.used / this.recordBytes;
    const order = Array.from({ length: n }, (_, i) => i * this.recordBytes);
    order.sort((a, b) => keyLess(this.buf, a, this.buf, b));
    const path = join(this.workDir, `${this.name}-${String(this.runs.length).padStart(6, '0')}.run`);
    const out = new RecordOutput(path, this.recordBytes, 0);
    for (const at of order) out.push(this.buf, at, this.combine);
    out.close();
    this.runs.push(path);
    this.used = 0;
  }

  /** Spills what is buffered; the runs hold every record pushed. */
  finish(): string[] {
    if (this.used || !this.runs.length) this.spill();
    return this.runs;
  }
}

/** Appends sorted records to a file at an offset, folding equal keys. */
export class RecordOutput {
  private readonly fd: number;
  private readonly buf: Buffer;
  private used = 0;
  private position: number;
  records = 0;

  constructor(
    readonly path: string,
    readonly recordBytes: number,
    offset: number,
    fd?: number,
  ) {
    this.fd = fd ?? openSync(path, 'w');
    this.ownsFd = fd === undefined;
    this.position = offset;
    this.buf = Buffer.alloc(recordBytes * 4096);
  }

  private readonly ownsFd: boolean;

  push(src: Buffer, at: number, combine: Combine): void {
    const last = this.used - this.recordBytes;
    if (this.records > 0 && last >= 0 && keyLess(this.buf, last, src, at) === 0) {
      combine(this.buf, last, src, at);
      return;
    }
    if (this.used === this.buf.length) this.flushKeepingLast();
    src.copy(this.buf, this.used, at, at + this.recordBytes);
    this.used += this.recordBytes;
    this.records++;
  }

  /** Writes all but the last record, which stays to absorb equal keys that follow. */
  private flushKeepingLast(): void {
    const keep = this.recordBytes;
    writeSync(this.fd, this.buf, 0, this.used - keep, this.position);
    this.position += this.used - keep;
    this.buf.copy(this.buf, 0, this.used - keep, this.used);
    this.used = keep;
  }

  /** Bytes written so far (after close: the section's length). */
  get end(): number {
    return this.position + this.used;
  }

  close(): void {
    writeSync(this.fd, this.buf, 0, this.used, this.position);
    this.position += this.used;
    this.used = 0;
    if (this.ownsFd) closeSync(this.fd);
  }
}

/** A forward cursor over `count` records of a file from `offset`, read in chunks. */
export class RecordCursor {
  readonly buf: Buffer;
  at = 0;
  done = false;
  private filled = 0;
  private remaining: number;
  private position: number;
  private readonly fd: number;

  constructor(
    readonly path: string,
    readonly recordBytes: number,
    offset: number,
    count: number,
  ) {
    this.fd = openSync(path, 'r');
    this.buf = Buffer.alloc(recordBytes * 2048);
    this.remaining = count;
    this.position = offset;
    this.at = -recordBytes;
    this.next();
  }

  next(): void {
    this.at += this.recordBytes;
    if (this.at < this.filled) return;
    if (this.remaining === 0) {
      this.done = true;
      closeSync(this.fd);
      return;
    }
    const want = Math.min(this.remaining, this.buf.length / this.recordBytes) * this.recordBytes;
    const got = readSync(this.fd, this.buf, 0, want, this.position);
    if (got !== want) throw new Error(`${this.path}: truncated records`);
    this.position += got;
    this.remaining -= got / this.recordBytes;
    this.filled = got;
    this.at = 0;
  }
}

/** k-way merges sorted record sections into `out`, folding equal keys. */
export function mergeRecords(inputs: { path: string; offset: number; count: number }[], recordBytes: number, out: RecordOutput, combine: Combine): void {
  const heap = new MinHeap<RecordCursor>((a, b) => keyLess(a.buf, a.at, b.buf, b.at) < 0);
  for (const i of inputs) {
    const c = new RecordCursor(i.path, recordBytes, i.offset, i.count);
    if (!c.done) heap.push(c);
  }
  while (heap.size) {
    const c = heap.peek()!;
    out.push(c.buf, c.at, combine);
    c.next();
    if (c.done) heap.pop();
    else heap.siftDown();
  }
}
