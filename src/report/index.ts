export * from './figures.js';
export * from './html.js';
