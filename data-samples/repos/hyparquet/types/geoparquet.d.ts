/**
 * @param {SchemaElement[]} schema
 * @param {KeyValue[] | undefined} key_value_metadata
 * @returns {void}
 */
export declare function markGeoColumns(schema: SchemaElement[], key_value_metadata: KeyValue[] | undefined): void;
import type { KeyValue, SchemaElement } from '../src/types.js';
/**
 * @import {KeyValue, LogicalType, SchemaElement} from '../src/types.js'
 */
//# sourceMappingURL=geoparquet.d.ts.map