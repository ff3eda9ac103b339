import type { ClosedBins } from './packer.js';
import type { PlanBatch } from './planner.js';

/** One document as the planner's feed sees it, with the group it declares (`meta.group`), if any. */
export interface GroupableDoc {
  len: number;
  /** The planner key of the document (its identity hash). */
  key: number;
  group?: string;
  /** Token offsets where the boundary policy may cut (header = tokens before the first). */
  boundaries?: number[];
}

/**
 * One input batch of the planner's feed: its documents, or, when none declares a group, the
 * PlanBatch they make (planBatchOf), made once and given as it is on every walk.
 */
export type PlanChunk = readonly GroupableDoc[] | Required<PlanBatch>;

/** What grouping did, for the report: runs planned as one unit, their documents, runs too long for one bin. */
export interface DocGroupFigures {
  groups: number;
  grouped_docs: number;
  groups_split: number;
}

/**
 * Documents planned together. A run of consecutive documents that declare the same group (a
 * trajectory's faithful samples: their prefixes are the same bytes) and whose tokens fit in L
 * together is given to the planner as one document, the sum of their lengths, so best fit puts
 * them in one bin; `expand` turns that unit back into the run's documents, adjacent and in
 * order, each whole. A run longer than L goes as its documents, each planned on its own
 * (`groups_split`). Documents without a group pass through as they are, so a corpus without
 * groups gives the planner the very same documents as before.
 *
 * Memory: 12 bytes per run planned together and 4 per document in one, never per ungrouped
 * document. The table is rebuilt on every walk of the source (each planning pass), the same
 * each time since the documents are.
 */
export class DocGroups {
  /** Per merged run, in order: its planner document index, and its first member's index in the input. */
  private plannerDoc: number[] = [];
  private firstDoc: number[] = [];
  /** Members of merged runs before run g: lengths[memberStart[g] .. memberStart[g+1]). */
  private memberStart: number[] = [0];
  private memberLens: number[] = [];
  private split = 0;

  constructor(private readonly capacity: number) {}

  /** True once a walk merged any run: only then do bins need `expand`. */
  get active(): boolean {
    return this.plannerDoc.length > 0;
  }

  /** Input documents more than planner documents: the merged runs' members beyond their first. */
  get extraDocs(): number {
    return this.memberLens.length - this.plannerDoc.length;
  }

  figures(): DocGroupFigures {
    return { groups: this.plannerDoc.length, grouped_docs: this.memberLens.length, groups_split: this.split };
  }

  /**
   * The planner's batches: one per input batch, each run that fits merged into one document.
   * A run may cross input batches; it is given with the batch where it ends.
   */
  *batches(input: Iterable<PlanChunk>): Iterable<PlanBatch> {
    this.plannerDoc = [];
    this.firstDoc = [];
    this.memberStart = [0];
    this.memberLens = [];
    this.split = 0;
    let out: GroupableDoc[] = [];
    let run: GroupableDoc[] = [];
    let plannerDocs = 0;
    let inputDocs = 0;
    const endRun = () => {
      if (run.length > 1 && run.reduce((s, d) => s + d.len, 0) <= this.capacity) {
        this.plannerDoc.push(plannerDocs++);
        this.firstDoc.push(inputDocs - run.length);
        for (const d of run) this.memberLens.push(d.len);
        this.memberStart.push(this.memberLens.length);
        out.push({ len: run.reduce((s, d) => s + d.len, 0), key: run[0]!.key });
      } else {
        if (run.length > 1) this.split++;
        for (const d of run) out.push({ len: d.len, key: d.key, boundaries: d.boundaries });
        plannerDocs += run.length;
      }
      run = [];
    };
    for (const docs of input) {
      if (!Array.isArray(docs)) {
        // No document of this batch declares a group: each ends the run before it and passes as it is.
        const batch = docs as Required<PlanBatch>;
        endRun();
        plannerDocs += batch.lengths.length;
        inputDocs += batch.lengths.length;
        yield out.length ? concatBatches(toPlanBatch(out), batch) : batch;
        out = [];
        continue;
      }
      for (const d of docs as readonly GroupableDoc[]) {
        if (run.length && (d.group === undefined || d.group !== run[0]!.group)) endRun();
        run.push(d);
        inputDocs++;
        if (d.group === undefined) endRun();
      }
      if (out.length) yield toPlanBatch(out);
      out = [];
    }
    endRun();
    if (out.length) yield toPlanBatch(out);
  }

  /** The planner's bins with every merged run's unit replaced by its documents, in order; ids as if each were planned alone. */
  expand(bins: ClosedBins): ClosedBins {
    if (!this.active || bins.unitDoc.length === 0) return bins;
    const out = { doc: [] as number[], start: [] as number[], end: [] as number[], header: [] as number[], id: [] as number[] };
    const binUnitStart = new Uint32Array(bins.binCount + 1);
    for (let b = 0; b < bins.binCount; b++) {
      for (let u = bins.binUnitStart[b]!; u < bins.binUnitStart[b + 1]!; u++) this.expandUnit(bins, u, out);
      binUnitStart[b + 1] = out.doc.length;
    }
    return {
      binCount: bins.binCount,
      binUnitStart,
      unitDoc: Uint32Array.from(out.doc),
      unitStart: Uint32Array.from(out.start),
      unitEnd: Uint32Array.from(out.end),
      unitHeader: Uint32Array.from(out.header),
      unitId: Uint32Array.from(out.id),
    };
  }

  private expandUnit(bins: ClosedBins, u: number, out: { doc: number[]; start: number[]; end: number[]; header: number[]; id: number[] }): void {
    const v = bins.unitDoc[u]!;
    const g = lowerBound(this.plannerDoc, v);
    // Merged runs before this document each stand for (members - 1) more documents and units.
    const shift = this.memberStart[g]! - g;
    if (this.plannerDoc[g] !== v) {
      out.doc.push(v + shift);
      out.start.push(bins.unitStart[u]!);
      out.end.push(bins.unitEnd[u]!);
      out.header.push(bins.unitHeader[u]!);
      out.id.push(bins.unitId[u]! + shift);
      return;
    }
    for (let m = this.memberStart[g]!; m < this.memberStart[g + 1]!; m++) {
      const j = m - this.memberStart[g]!;
      out.doc.push(this.firstDoc[g]! + j);
      out.start.push(0);
      out.end.push(this.memberLens[m]!);
      out.header.push(0);
      out.id.push(bins.unitId[u]! + shift + j);
    }
  }
}

/**
 * The PlanBatch of documents none of which declares a group, as DocGroups.batches would give
 * them; undefined for an empty batch or one with a grouped document (those go as documents).
 */
export function planBatchOf(docs: readonly GroupableDoc[]): Required<PlanBatch> | undefined {
  if (docs.length === 0 || docs.some((d) => d.group !== undefined)) return undefined;
  return toPlanBatch(docs);
}

function concatBatches(a: Required<PlanBatch>, b: Required<PlanBatch>): Required<PlanBatch> {
  const join = (x: Uint32Array, y: Uint32Array) => {
    const out = new Uint32Array(x.length + y.length);
    out.set(x);
    out.set(y, x.length);
    return out;
  };
  return {
    lengths: join(a.lengths, b.lengths),
    boundaryCounts: join(a.boundaryCounts, b.boundaryCounts),
    boundaryOffsets: join(a.boundaryOffsets, b.boundaryOffsets),
    headerLens: join(a.headerLens, b.headerLens),
    keys: join(a.keys, b.keys),
  };
}

function toPlanBatch(docs: readonly GroupableDoc[]): Required<PlanBatch> {
  const n = docs.length;
  const lengths = new Uint32Array(n);
  const boundaryCounts = new Uint32Array(n);
  const headerLens = new Uint32Array(n);
  const keys = new Uint32Array(n);
  const offsets: number[] = [];
  docs.forEach((d, i) => {
    lengths[i] = d.len;
    keys[i] = d.key;
    const b = d.boundaries ?? [];
    boundaryCounts[i] = b.length;
    headerLens[i] = b.length ? b[0]! : 0;
    for (const x of b) offsets.push(x);
  });
  return { lengths, boundaryCounts, boundaryOffsets: Uint32Array.from(offsets), headerLens, keys };
}

/** The first index whose value is at least v, in an ascending array. */
function lowerBound(a: number[], v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
