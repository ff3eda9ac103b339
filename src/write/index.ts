export * from './bin.js';
export * from './files.js';
export * from './arrow-shards.js';
export * from './megatron.js';
