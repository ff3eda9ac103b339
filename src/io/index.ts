export * from './lines.js';
export * from './jsonl.js';
export * from './inputs.js';
