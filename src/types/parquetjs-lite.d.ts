/** The part of parquetjs-lite that midpack uses (src/io/write-documents.ts); the package ships no types. */
declare module 'parquetjs-lite' {
  export class ParquetSchema {
    constructor(fields: Record<string, { type: string; optional?: boolean; compression?: string }>);
  }
  export class ParquetWriter {
    static openFile(schema: ParquetSchema, path: string, opts?: { rowGroupSize?: number }): Promise<ParquetWriter>;
    appendRow(row: Record<string, unknown>): Promise<void>;
    close(): Promise<void>;
  }
  const parquet: { ParquetSchema: typeof ParquetSchema; ParquetWriter: typeof ParquetWriter };
  export default parquet;
}
