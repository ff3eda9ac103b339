import { closeSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ClosedBins } from '../pack/index.js';

/**
 * The bin plan on disk (in OUT/.work), so bins can be written in any order with memory bounded
 * by one bin: plan.units holds every unit as 5 uint32 (doc, start, end, header, id), bins in
 * plan order; plan.bins holds where each bin's units start (float64, one more than bins).
 * A plan is only used once complete (written under temporary names, renamed last); a killed
 * run plans again, which gives the same plan.
 */
const UNIT_BYTES = 20;

export interface PlannedUnit {
  doc: number;
  start: number;
  end: number;
  header: number;
  id: number;
}

export class PlanWriter {
  private readonly fdUnits: number;
  private readonly fdBins: number;
  private units = 0;
  bins = 0;

  constructor(private readonly dir: string) {
    this.fdUnits = openSync(join(dir, 'plan.units.tmp'), 'w');
    this.fdBins = openSync(join(dir, 'plan.bins.tmp'), 'w');
    this.writeStarts([0]);
  }

  add(c: ClosedBins): void {
    const n = c.unitDoc.length;
    const buf = new Uint32Array(n * 5);
    for (let u = 0; u < n; u++) {
      buf[u * 5] = c.unitDoc[u]!;
      buf[u * 5 + 1] = c.unitStart[u]!;
      buf[u * 5 + 2] = c.unitEnd[u]!;
      buf[u * 5 + 3] = c.unitHeader[u]!;
      buf[u * 5 + 4] = c.unitId[u]!;
    }
    writeAll(this.fdUnits, new Uint8Array(buf.buffer));
    const starts: number[] = [];
    for (let b = 1; b <= c.binCount; b++) starts.push(this.units + c.binUnitStart[b]!);
    this.writeStarts(starts);
    this.units += n;
    this.bins += c.binCount;
  }

  private writeStarts(starts: number[]): void {
    writeAll(this.fdBins, new Uint8Array(Float64Array.from(starts).buffer));
  }

  commit(): void {
    closeSync(this.fdUnits);
    closeSync(this.fdBins);
    renameSync(join(this.dir, 'plan.units.tmp'), join(this.dir, 'plan.units'));
    renameSync(join(this.dir, 'plan.bins.tmp'), join(this.dir, 'plan.bins'));
  }

  abort(): void {
    closeSync(this.fdUnits);
    closeSync(this.fdBins);
    rmSync(join(this.dir, 'plan.units.tmp'), { force: true });
    rmSync(join(this.dir, 'plan.bins.tmp'), { force: true });
  }
}

/** Positioned reads of one bin's units at a time. */
export class PlanReader {
  private readonly fdUnits: number;
  private readonly fdBins: number;
  private readonly pair = new Float64Array(2);

  constructor(dir: string, readonly bins: number) {
    this.fdUnits = openSync(join(dir, 'plan.units'), 'r');
    this.fdBins = openSync(join(dir, 'plan.bins'), 'r');
  }

  bin(b: number): PlannedUnit[] {
    if (b < 0 || b >= this.bins) throw new RangeError(`plan: bin ${b} out of [0, ${this.bins})`);
    readAll(this.fdBins, new Uint8Array(this.pair.buffer), b * 8);
    const [from, to] = [this.pair[0]!, this.pair[1]!];
    const raw = new Uint32Array((to - from) * 5);
    readAll(this.fdUnits, new Uint8Array(raw.buffer), from * UNIT_BYTES);
    const out: PlannedUnit[] = [];
    for (let u = 0; u < to - from; u++) {
      out.push({ doc: raw[u * 5]!, start: raw[u * 5 + 1]!, end: raw[u * 5 + 2]!, header: raw[u * 5 + 3]!, id: raw[u * 5 + 4]! });
    }
    return out;
  }

  close(): void {
    closeSync(this.fdUnits);
    closeSync(this.fdBins);
  }
}

function writeAll(fd: number, buf: Uint8Array): void {
  for (let done = 0; done < buf.length; ) done += writeSync(fd, buf, done, buf.length - done);
}

function readAll(fd: number, buf: Uint8Array, position: number): void {
  for (let done = 0; done < buf.length; ) {
    const n = readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) throw new Error(`the bin plan ends early at byte ${position + done}`);
    done += n;
  }
}
