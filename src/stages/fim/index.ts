/** FIM, chat-FIM and search-and-replace FIM, each verified before it is kept (edits: ../edits). */
export * from './spans.js';
export * from './search-replace.js';
export * from './fim-sample.js';
export * from './stage.js';
export { chatTurns, countOccurrences, splitLines, lineBoundaries, decodeText } from './text.js';
export * from './inputs.js';
