import type { ParquetParsers } from '../src/types.js';
/**
 * Recursively decode variant structs into native values.
 *
 * @param {any} value
 * @param {ParquetParsers} [parsers]
 * @returns {any}
 */
export declare function decodeVariantColumn(value: any, parsers?: ParquetParsers): any;
//# sourceMappingURL=variant.d.ts.map