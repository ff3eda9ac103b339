/** FIM, chat-FIM, search-and-replace FIM and edit samples from history, each verified before it is kept. */
export * from './spans.js';
export * from './search-replace.js';
export * from './git-diff.js';
export * from './git-apply.js';
export * from './fim-sample.js';
export * from './stage.js';
export { chatTurns, countOccurrences, splitLines, lineBoundaries, decodeText } from './text.js';
export * from './history.js';
export * from './edit-sample.js';
export * from './inputs.js';
