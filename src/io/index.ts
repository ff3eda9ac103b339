export * from './lines.js';
export * from './jsonl.js';
export * from './inputs.js';
export * from './parquet.js';
export * from './arrow-rows.js';
export * from './documents.js';
export * from './stale.js';
