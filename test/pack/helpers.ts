import { Rng } from '../../src/core/random.js';
import type { ClosedBins, DocBatch, Packer } from '../../src/pack/index.js';

/** Every bin of a run, flattened: bins[b] = its units as [doc, start, end, header]. */
export type Assignment = [number, number, number, number][][];

export function collect(into: Assignment, closed: ClosedBins): void {
  for (let b = 0; b < closed.binCount; b++) {
    const bin: [number, number, number, number][] = [];
    for (let u = closed.binUnitStart[b]!; u < closed.binUnitStart[b + 1]!; u++) {
      bin.push([closed.unitDoc[u]!, closed.unitStart[u]!, closed.unitEnd[u]!, closed.unitHeader[u]!]);
    }
    into.push(bin);
  }
}

export interface Docs {
  lengths: number[];
  boundaries?: number[][];
  headers?: number[];
}

/** Pushes the documents in batches of random sizes (seeded by `split`), then finishes. */
export function runPacker(packer: Packer, docs: Docs, split: number): Assignment {
  const rng = new Rng('batches', split);
  const out: Assignment = [];
  for (let i = 0; i < docs.lengths.length; ) {
    const n = Math.min(docs.lengths.length - i, 1 + rng.int(0, 40));
    const batch: DocBatch = { lengths: Uint32Array.from(docs.lengths.slice(i, i + n)) };
    if (docs.boundaries) {
      const bs = docs.boundaries.slice(i, i + n);
      batch.boundaryCounts = Uint32Array.from(bs.map((b) => b.length));
      batch.boundaryOffsets = Uint32Array.from(bs.flat());
      batch.headerLens = Uint32Array.from(docs.headers!.slice(i, i + n));
    }
    collect(out, packer.push(batch));
    i += n;
  }
  collect(out, packer.finish());
  return out;
}

export const unitLength = ([, start, end, header]: [number, number, number, number]) => header + end - start;
