export * from './tokenizer.js';
export * from './token-mask.js';
export * from './encode.js';
export * from './pool.js';
