export * from './ledger.js';
export * from './random.js';
export * from './stage.js';
export * from './ranks.js';
export * from './weights.js';
