/** Packing (`midpack/pack`): the native best-fit packer and whole-corpus planner, overlong policies and the Table 13 baselines. */
export {
  StreamingPacker,
  OVERLONG_POLICIES,
  DEFAULT_CAPACITY,
  DEFAULT_WINDOW_UNITS,
  DEFAULT_MAX_OPEN_BINS,
  DEFAULT_MAX_HELD_UNITS,
  resolvePackerOptions,
  checkBatch,
  nativeBinding,
  type OverlongPolicy,
  type PackerOptions,
  type ResolvedPackerOptions,
  type DocBatch,
  type ClosedBins,
  type PackerStats,
  type Packer,
} from './packer.js';
export { planBins, resolvePlanOptions, DEFAULT_PASS_UNITS, DEFAULT_PLAN_WINDOW_UNITS, type PlanOptions, type PlanBatch, type PlanSource, type PlanResult, type ResolvedPlanOptions } from './planner.js';
export { UnitTally } from './fragmentation.js';
export { DocGroups, planBatchOf, type GroupableDoc, type DocGroupFigures, type PlanChunk } from './groups.js';
export { binOrder, type BinOrder } from './bin-order.js';
export { orderLengths, LENGTH_ORDERS, type LengthOrder } from './order.js';
export { compareStrategies, compareStrategiesFrom, strategyNames, strategyRow, type StrategyFigures, type CompareOptions, type LengthSource } from './strategies.js';
export { readLengthFile, type ReadLengthsOptions } from './lengths.js';
export { DEFAULT_MIXTURE, MIXTURE_ORDERS, mixtureBatches, mixtureKindBatches, mixtureLengths, mixtureSample, withRepoShare, type MixtureKind, type MixtureOrder } from './mixture.js';
