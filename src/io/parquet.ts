import { hyparquet } from './hyparquet.js';
import type { Ledger } from '../core/ledger.js';
import { asyncBufferOf, rethrowStorageFailure } from './storage.js';

/**
 * Reads Parquet rows as objects, one row group at a time, so memory is bounded by the
 * file's row-group size, not the file (an s3:// object is read by range: footer, then row groups). hyparquet reads what real corpora ship (pyarrow's
 * defaults: format version 2, snappy; and zstd, gzip, brotli, lz4 through
 * hyparquet-compressors), which parquetjs-lite cannot.
 *
 * A corrupt file is counted once under `corrupt_parquet` (its rows are unknown) and skipped.
 * `owns` (one rank of several) is asked about the file's rows, `#rowN` (core/ranks.ts `inputOwns`).
 */
export async function* readParquetRows(
  file: string,
  ledger: Ledger,
  columns?: string[],
  owns?: (key: string) => boolean,
): AsyncIterable<{ file: string; row: number; value: Record<string, unknown> }> {
  const { parquetMetadataAsync, parquetReadObjects, compressors } = await hyparquet();
  let metadata;
  let buffer;
  try {
    buffer = await asyncBufferOf(file);
    metadata = await parquetMetadataAsync(buffer);
  } catch (e) {
    rethrowStorageFailure(e);
    ledger.input();
    ledger.drop('corrupt_parquet', `${file}: not a readable Parquet file: ${(e as Error).message}`);
    return;
  }
  let rowStart = 0;
  for (const [g, group] of metadata.row_groups.entries()) {
    const rowEnd = rowStart + Number(group.num_rows);
    let rows: Record<string, unknown>[];
    try {
      rows = (await parquetReadObjects({ file: buffer, metadata, compressors, rowStart, rowEnd, columns })) as Record<string, unknown>[];
    } catch (e) {
      rethrowStorageFailure(e);
      ledger.input(rowEnd - rowStart);
      ledger.drop('corrupt_parquet', `${file}: row group ${g} (rows ${rowStart}..${rowEnd - 1}) cannot be read: ${(e as Error).message}`, rowEnd - rowStart);
      rowStart = rowEnd;
      continue;
    }
    for (let i = 0; i < rows.length; i++) {
      if (owns && !owns(`#row${rowStart + i}`)) continue;
      ledger.input();
      yield { file, row: rowStart + i, value: rows[i]! };
    }
    rowStart = rowEnd;
  }
}
