/** Function-aware FIM: the repository's call graph picks a whole function worth predicting as the middle. */
export * from './model.js';
export * from './options.js';
export * from './graph.js';
export * from './criterion.js';
export * from './alone.js';
export * from './select.js';
export { pythonFacts } from './python.js';
export { javascriptFacts } from './javascript.js';
export * from './rows.js';
