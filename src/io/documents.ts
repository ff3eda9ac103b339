import { toDoc, RecordError, type Doc } from '../doc/document.js';
import type { Ledger } from '../core/ledger.js';
import { readJsonl } from './jsonl.js';
import { readParquetRows } from './parquet.js';
import { readArrowRows } from './arrow-rows.js';
import { expandInputs } from './inputs.js';

/** The document formats `pack` (and every stage reading documents) accepts. */
export const isDocumentFile = (name: string) => /\.(jsonl(\.gz|\.zst|\.zstd)?|parquet|arrow)$/.test(name);

/**
 * Reads documents from JSONL (plain, .gz, .zst), Parquet and Arrow IPC files (a `text`
 * column at least; `id`, `kind`, `source`, `meta`, `loss_mask_spans`, `special_spans`
 * when present). Files are read in sorted order; a record that is not a document is counted
 * under its reason with a message naming the file and record.
 */
export async function* readDocuments(inputs: string[], ledger: Ledger, owns?: (key: string) => boolean, opts: ReadDocumentsOptions = {}): AsyncIterable<Doc> {
  for (const file of expandInputs(inputs, isDocumentFile)) yield* readDocumentFile(file, ledger, owns, opts);
}

export interface ReadDocumentsOptions {
  /** The field (JSON key or column) that holds the text, when it is not `text`. */
  textField?: string;
}

export async function* readDocumentFile(file: string, ledger: Ledger, owns?: (key: string) => boolean, opts: ReadDocumentsOptions = {}): AsyncIterable<Doc> {
  const rows = file.endsWith('.parquet')
    ? mapRows(readParquetRows(file, ledger, undefined, owns), 'row')
    : file.endsWith('.arrow')
      ? mapRows(readArrowRows(file, ledger, owns), 'row')
      : mapRows(readJsonl(file, ledger, undefined, owns), 'line');
  for await (const { where, value } of rows) {
    try {
      yield toDoc(normalizeRow(value, opts.textField), where, file);
    } catch (e) {
      if (!(e instanceof RecordError)) throw e;
      ledger.drop(e.reason, `${where}: ${e.message}`);
    }
  }
}

async function* mapRows(
  rows: AsyncIterable<{ file: string; value: unknown; lineNo?: number; row?: number }>,
  unit: 'line' | 'row',
): AsyncIterable<{ where: string; value: unknown }> {
  for await (const r of rows) yield { where: unit === 'line' ? `${r.file}:${r.lineNo}` : `${r.file}#row${r.row}`, value: r.value };
}

/** Columnar formats keep meta and spans as JSON strings or nested values; accept both. */
function normalizeRow(value: unknown, textField?: string): unknown {
  if (!value || typeof value !== 'object') return value;
  const r = { ...(value as Record<string, unknown>) };
  if (textField && textField !== 'text') {
    if (!(textField in r)) throw new RecordError('missing_text', `record has no "${textField}" field (--text-field)`);
    r.text = r[textField];
    delete r[textField];
  }
  for (const key of ['meta', 'loss_mask_spans', 'special_spans']) {
    if (typeof r[key] === 'string') {
      try {
        r[key] = JSON.parse(r[key] as string);
      } catch {
        throw new RecordError('bad_meta', `"${key}" is a string that is not JSON`);
      }
    } else if (r[key] === null) delete r[key];
    else if (Array.isArray(r[key])) r[key] = (r[key] as unknown[]).map((s) => (Array.isArray(s) ? s.map(Number) : s));
  }
  if (typeof r.id === 'bigint') r.id = String(r.id);
  return r;
}
