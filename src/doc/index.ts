export * from './document.js';
export * from './text-builder.js';
export * from './specials.js';
export * from './unicode.js';
