/** Packing: the native best-fit packer, its TypeScript twin, overlong policies and the Table 13 baselines. */
export * from './packer.js';
export { TsStreamingPacker, CapacityIndex } from './ts-packer.js';
export { cutDocument, type CutResult, type UnitSink } from './cut.js';
export * from './strategies.js';
export { readLengthFile, type ReadLengthsOptions } from './lengths.js';
export { DEFAULT_MIXTURE, mixtureBatches, mixtureLengths, type MixtureKind } from './mixture.js';
