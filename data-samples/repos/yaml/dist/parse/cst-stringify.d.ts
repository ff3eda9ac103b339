import type { CollectionItem, Token } from './cst';
/**
 * Stringify a CST document, token, or collection item
 *
 * Fair warning: This applies no validation whatsoever, and
 * simply concatenates the sources in their logical order.
 */
export declare const stringify: (cst: Token | CollectionItem) => string;
