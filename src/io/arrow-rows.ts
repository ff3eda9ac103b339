import { RecordBatchReader, type RecordBatch } from 'apache-arrow';
import type { Ledger } from '../core/ledger.js';
import { openRaw, rethrowStorageFailure } from './storage.js';

/**
 * Reads rows of an Arrow IPC file (stream or file format) as plain objects, one record batch at a
 * time, so memory is bounded by the batch size. Used for document tables (a `text` column); a file
 * that is not Arrow is counted under `corrupt_arrow`. `owns` (one rank of several) is asked about
 * the file's rows, `#rowN` (core/ranks.ts `inputOwns`).
 */
export async function* readArrowRows(file: string, ledger: Ledger, owns?: (key: string) => boolean): AsyncIterable<{ file: string; row: number; value: Record<string, unknown> }> {
  let batches: AsyncIterator<RecordBatch>;
  try {
    const reader = await RecordBatchReader.from(openRaw(file));
    batches = reader[Symbol.asyncIterator]();
  } catch (e) {
    rethrowStorageFailure(e);
    ledger.input();
    ledger.drop('corrupt_arrow', `${file}: not a readable Arrow IPC file: ${(e as Error).message}`);
    return;
  }
  let row = 0;
  for (;;) {
    let next: IteratorResult<RecordBatch>;
    try {
      next = await batches.next();
    } catch (e) {
      rethrowStorageFailure(e);
      ledger.input();
      ledger.drop('corrupt_arrow', `${file}: record batch after row ${row} cannot be read: ${(e as Error).message}`);
      return;
    }
    if (next.done) return;
    const batch = next.value;
    const names = batch.schema.fields.map((f) => f.name);
    const cols = names.map((n) => batch.getChild(n));
    for (let i = 0; i < batch.numRows; i++, row++) {
      if (owns && !owns(`#row${row}`)) continue;
      const value: Record<string, unknown> = {};
      names.forEach((n, c) => {
        const v = cols[c]?.get(i);
        value[n] = v && typeof v === 'object' && 'toArray' in v ? Array.from((v as { toArray(): ArrayLike<unknown> }).toArray()) : v;
      });
      ledger.input();
      yield { file, row, value };
    }
  }
}
