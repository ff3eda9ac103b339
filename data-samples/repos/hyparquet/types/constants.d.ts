/** @type {import('../src/types.d.ts').ParquetType[]} */
export declare const ParquetTypes: import('../src/types.d.ts').ParquetType[];
/** @type {import('../src/types.d.ts').Encoding[]} */
export declare const Encodings: import('../src/types.d.ts').Encoding[];
/** @type {import('../src/types.d.ts').FieldRepetitionType[]} */
export declare const FieldRepetitionTypes: import('../src/types.d.ts').FieldRepetitionType[];
/** @type {import('../src/types.d.ts').ConvertedType[]} */
export declare const ConvertedTypes: import('../src/types.d.ts').ConvertedType[];
/** @type {import('../src/types.d.ts').CompressionCodec[]} */
export declare const CompressionCodecs: import('../src/types.d.ts').CompressionCodec[];
/** @type {import('../src/types.d.ts').PageType[]} */
export declare const PageTypes: import('../src/types.d.ts').PageType[];
/** @type {import('../src/types.d.ts').BoundaryOrder[]} */
export declare const BoundaryOrders: import('../src/types.d.ts').BoundaryOrder[];
/** @type {import('../src/types.d.ts').EdgeInterpolationAlgorithm[]} */
export declare const EdgeInterpolationAlgorithms: import('../src/types.d.ts').EdgeInterpolationAlgorithm[];
//# sourceMappingURL=constants.d.ts.map