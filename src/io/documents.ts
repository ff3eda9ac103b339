import { toDoc, RecordError, type Doc } from '../doc/document.js';
import type { Ledger } from '../core/ledger.js';
import { readJsonl } from './jsonl.js';
import { expandInputs, portableNamer } from './inputs.js';
import { inputOwns } from '../core/ranks.js';
import { sizeOf } from './storage.js';

/** The document formats `pack` (and every stage reading documents) accepts. */
export const isDocumentFile = (name: string) => /\.(jsonl(\.gz|\.zst|\.zstd)?|parquet|arrow)$/.test(name);

/**
 * Reads documents from JSONL (plain, .gz, .zst), Parquet and Arrow IPC files (a `text`
 * column at least; `id`, `kind`, `source`, `meta`, `loss_mask_spans`, `special_spans`
 * when present). Files are read in sorted order; a record that is not a document is counted
 * under its reason with a message naming the file and record.
 */
export async function* readDocuments(inputs: string[], ledger: Ledger, owns?: (key: string) => boolean, opts: ReadDocumentsOptions = {}): AsyncIterable<Doc> {
  const nameOf = opts.nameOf ?? portableNamer(inputs);
  for (const file of expandInputs(inputs, isDocumentFile)) yield* readDocumentFile(file, ledger, owns, { ...opts, nameOf });
}

export interface ReadDocumentsOptions {
  /** The field (JSON key or column) that holds the text, when it is not `text`. */
  textField?: string;
  /** Counts the input bytes read, for progress: line by line in plain JSONL, else file by file. */
  bytes?: ByteTally;
  /**
   * Names a file in the rank partition's keys (core/ranks.ts `inputOwns`), by default its
   * portable name among the inputs read: where the inputs are changes no rank's share.
   */
  nameOf?: (file: string) => string;
}

/** Input bytes read so far of a known total (the files' sizes): what progress shows a percentage of. */
export class ByteTally {
  read = 0;
  constructor(readonly total: number) {}

  /** A tally over these files (stdin and folders count 0). */
  static ofFiles(files: string[]): ByteTally {
    return new ByteTally(files.reduce((sum, f) => sum + fileSize(f), 0));
  }
}

/** 0 for stdin and for a file that cannot be found (its reader counts that, not this). */
function fileSize(file: string): number {
  return file === '-' ? 0 : sizeOf(file);
}

export async function* readDocumentFile(file: string, ledger: Ledger, owns?: (key: string) => boolean, opts: ReadDocumentsOptions = {}): AsyncIterable<Doc> {
  const tally = opts.bytes;
  const fileOwns = inputOwns(owns, (opts.nameOf ?? portableNamer([file]))(file));
  const size = tally ? fileSize(file) : 0;
  let counted = 0;
  // Plain JSONL is counted line by line (its lines are the file's bytes); other formats at their end.
  const onLine = tally && /\.jsonl$/.test(file) ? (bytes: number) => {
    const n = Math.min(bytes, size - counted);
    counted += n;
    tally.read += n;
  } : undefined;
  // The columnar readers (hyparquet, apache-arrow) are loaded when a file needs them: a JSONL
  // job starts its tokenizer workers without waiting for their import.
  const rows = file.endsWith('.parquet')
    ? mapRows(lazyRows(async () => (await import('./parquet.js')).readParquetRows(file, ledger, undefined, fileOwns)), 'row')
    : file.endsWith('.arrow')
      ? mapRows(lazyRows(async () => (await import('./arrow-rows.js')).readArrowRows(file, ledger, fileOwns)), 'row')
      : mapRows(readJsonl(file, ledger, undefined, fileOwns, onLine), 'line');
  for await (const { where, value } of rows) {
    const doc = rowToDoc(value, where, file, opts.textField);
    if ('drop' in doc) ledger.drop(doc.drop, doc.message);
    else yield doc;
  }
  if (tally) tally.read += size - counted;
}

async function* lazyRows<R>(load: () => Promise<AsyncIterable<R>>): AsyncIterable<R> {
  yield* await load();
}

/** A row (its value, and where it is) as a document, or the reason it is not one and a message naming it. */
export function rowToDoc(value: unknown, where: string, file: string, textField?: string): Doc | { drop: string; message: string } {
  try {
    return toDoc(normalizeRow(value, textField), where, file);
  } catch (e) {
    if (!(e instanceof RecordError)) throw e;
    return { drop: e.reason, message: `${where}: ${e.message}` };
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
