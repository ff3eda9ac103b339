/** Redundancy masking: count segment document frequencies (pass 1), mask the frequent ones (pass 2). */
export * from './segments.js';
export * from './counts-file.js';
export * from './count.js';
export * from './apply.js';
export * from './spans.js';
export { HashTable } from './hash-table.js';
