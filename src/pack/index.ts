/** Packing: the native best-fit packer and whole-corpus planner, overlong policies and the Table 13 baselines. */
export * from './packer.js';
export * from './planner.js';
export { UnitTally } from './fragmentation.js';
export { binOrder, type BinOrder } from './bin-order.js';
export { orderLengths, LENGTH_ORDERS, type LengthOrder } from './order.js';
export * from './strategies.js';
export { readLengthFile, type ReadLengthsOptions } from './lengths.js';
export { DEFAULT_MIXTURE, MIXTURE_ORDERS, mixtureBatches, mixtureKindBatches, mixtureLengths, mixtureSample, withRepoShare, type MixtureKind, type MixtureOrder } from './mixture.js';
