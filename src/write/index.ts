export * from './bin.js';
export { AtomicFile, sha256File, writeFileAtomic } from './files.js';
export * from './arrow-shards.js';
export * from './megatron.js';
