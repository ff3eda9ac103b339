/** midpack's library API: the CLI is a thin layer over these. */
export * from './doc/index.js';
export * from './core/index.js';
export * from './io/index.js';
export * as tokenize from './tokenize/index.js';
export * as pack from './pack/index.js';
export * as write from './write/index.js';
export * as report from './report/index.js';
export * as repos from './stages/repos/index.js';
export * as web from './stages/web/index.js';
export * as fim from './stages/fim/index.js';
export * as mask from './stages/mask/index.js';
export * as trajectories from './stages/trajectories/index.js';
