import { readFileSync } from 'node:fs';
import { tableFromIPC } from 'apache-arrow';
import type { Ledger } from '../core/ledger.js';

/**
 * Reads rows of an Arrow IPC file (stream or file format) as plain objects. Used for document
 * tables (a `text` column); a file that is not Arrow is counted under `corrupt_arrow`.
 */
export async function* readArrowRows(file: string, ledger: Ledger, owns?: (key: string) => boolean): AsyncIterable<{ file: string; row: number; value: Record<string, unknown> }> {
  let table;
  try {
    table = tableFromIPC(readFileSync(file));
  } catch (e) {
    ledger.input();
    ledger.drop('corrupt_arrow', `${file}: not a readable Arrow IPC file: ${(e as Error).message}`);
    return;
  }
  const names = table.schema.fields.map((f) => f.name);
  let row = 0;
  for (const batch of table.batches) {
    const cols = names.map((n) => batch.getChild(n));
    for (let i = 0; i < batch.numRows; i++, row++) {
      if (owns && !owns(`${file}#row${row}`)) continue;
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
