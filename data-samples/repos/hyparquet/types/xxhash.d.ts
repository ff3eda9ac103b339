/**
 * Compute the 64-bit xxHash of a byte buffer.
 *
 * @param {Uint8Array} input
 * @param {bigint} [seed]
 * @returns {bigint} 64-bit hash
 */
export declare function xxhash64(input: Uint8Array, seed?: bigint): bigint;
//# sourceMappingURL=xxhash.d.ts.map