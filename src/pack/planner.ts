import { nativeBinding, resolvePackerOptions, checkBatch, DEFAULT_WINDOW_UNITS, type ClosedBins, type DocBatch, type PackerOptions, type PackerStats, type ResolvedPackerOptions } from './packer.js';
import { UnitTally } from './fragmentation.js';

/**
 * Whole-corpus bin planning (native/include/planner.hpp): units are spread over planning
 * passes by a seeded hash of their identity, so every pass is a fair sample of the corpus
 * whatever order the documents come in. Each pass is placed best-fit decreasing as a whole
 * (longest first, ties by hash, into the open bin with the least room that holds the unit);
 * the bins with the most room carry into the next pass, at most `maxOpenBins` of them holding
 * at most `maxHeldUnits` units. The lengths are streamed 1 + passes times (a counting pass,
 * then each planning pass keeps its share of the units): memory is bounded by the options.
 */
export interface PlanOptions extends PackerOptions {
  /** Seeds the unit hash; default 0. */
  seed?: number;
  /** Units one planning pass holds (about 60 bytes each); more units and the lengths are read again per pass. */
  passUnits?: number;
}

export const DEFAULT_PASS_UNITS = 1 << 22;
/** The planner's window: 0 places each pass as a whole; n > 0 places it n units at a time (the streaming packer's way, kept to compare against). */
export const DEFAULT_PLAN_WINDOW_UNITS = 0;

/** A batch of documents; `keys` (one per document) is each document's identity hash, else its index is. */
export interface PlanBatch extends DocBatch {
  keys?: Uint32Array;
}

/** The corpus, streamable as often as the planner needs it, the same batches each time. */
export type PlanSource = () => AsyncIterable<PlanBatch> | Iterable<PlanBatch>;

export interface PlanResult extends PackerStats {
  passes: number;
  /** Units held by more than one bin, counted from the bins the planner emitted. */
  fragmentedUnits: number;
}

export interface ResolvedPlanOptions extends ResolvedPackerOptions {
  seed: number;
  passUnits: number;
}

export function resolvePlanOptions(opts: Partial<PlanOptions>): ResolvedPlanOptions {
  const windowUnits = opts.windowUnits ?? DEFAULT_PLAN_WINDOW_UNITS;
  // 0 (whole pass) is the planner's own value; any other window is checked as the packer checks it.
  const packer = resolvePackerOptions({ ...opts, windowUnits: windowUnits === 0 ? DEFAULT_WINDOW_UNITS : windowUnits });
  const r = { ...packer, windowUnits, seed: opts.seed ?? 0, passUnits: opts.passUnits ?? DEFAULT_PASS_UNITS };
  if (!Number.isSafeInteger(r.seed) || r.seed < 0) throw new RangeError(`planner: seed must be a non-negative integer, got ${r.seed}`);
  if (!Number.isInteger(r.passUnits) || r.passUnits < 1 || r.passUnits > 2 ** 31) throw new RangeError(`planner: passUnits must be an integer in [1, 2^31], got ${r.passUnits}`);
  return r;
}

/**
 * Plans the bins of the whole source and hands them to `onBins` in plan order (each call a
 * batch of bins). `onPass` reports each pass as it starts (pass 0 of `passes` is the count).
 */
export async function planBins(
  source: PlanSource,
  options: Partial<PlanOptions>,
  onBins: (bins: ClosedBins) => void | Promise<void>,
  onPass?: (pass: number, passes: number) => void,
): Promise<PlanResult> {
  const o = resolvePlanOptions(options);
  const core = new (nativeBinding().NativePlanner)(o.capacity, o.policyCode, o.slideStride, o.windowUnits, o.maxOpenBins, o.maxHeldUnits, o.passUnits, Math.floor(o.seed / 2 ** 32), o.seed >>> 0);
  onPass?.(0, 0);
  for await (const b of source()) {
    checkBatch(b);
    core.count(b.lengths, b.boundaryCounts, b.boundaryOffsets, b.headerLens);
  }
  const passes = core.passes();
  const tally = new UnitTally(core.stats().units);
  const emit = async (bins: ClosedBins) => {
    tally.add(bins);
    if (bins.binCount) await onBins(bins);
  };
  for (let p = 0; p < passes; p++) {
    onPass?.(p + 1, passes);
    core.beginPass(p);
    let docs = 0;
    for await (const b of source()) {
      if (b.keys && b.keys.length !== b.lengths.length) throw new RangeError('planner: keys needs one entry per document');
      core.feed(b.lengths, b.boundaryCounts, b.boundaryOffsets, b.headerLens, b.keys);
      docs += b.lengths.length;
    }
    if (docs !== core.stats().docs) throw new Error(`planner: the source gave ${docs} documents on pass ${p + 1}, ${core.stats().docs} when counted: it must give the same documents each time`);
    await emit(core.endPass());
  }
  await emit(core.finish());
  // Every unit the cut made is in exactly one bin: a bin short of one is a planner bug.
  if (tally.missing) throw new Error(`planner bug: ${tally.missing} of ${tally.units} units are in no bin`);
  return { ...core.stats(), passes, fragmentedUnits: tally.fragmented };
}
