import { Ledger } from '../../core/ledger.js';
import { expandInputs, isJsonl, isParquet } from '../../io/inputs.js';
import { readJsonl } from '../../io/jsonl.js';
import { readParquetRows } from '../../io/parquet.js';
import { isInstanceRow } from './instances-decontam.js';

/**
 * Benchmark files for decontamination: `FILE[:FIELD,FIELD...]`, a JSONL (plain, .gz, .zst)
 * or Parquet file or a folder of them. Each row is one benchmark item, named by its
 * `task_id` (or `id`, `instance_id`) when it has one, else by file and row. Its text is the
 * named fields joined by newlines, in the order given; without fields, every string field.
 */
export interface BenchmarkItem {
  benchmark: string;
  name: string;
  text: string;
  /** The row, when it is a pull-request instance (instance_id, repo, base_commit, patch, problem_statement). */
  instance?: Record<string, unknown>;
}

/** The files or folders of benchmark specs (FILE[:FIELDS]). */
export const benchmarkPaths = (specs: readonly string[]): string[] => specs.map((s) => parseBenchmarkSpec(s).path);

export function parseBenchmarkSpec(spec: string): { path: string; fields?: string[] } {
  const m = /^(.*?)(?::([A-Za-z0-9_.,-]+))?$/.exec(spec)!;
  // A colon followed by field names; a Windows drive letter or a path with ':' elsewhere stays a path.
  if (m[2] && !m[2].includes('/')) return { path: m[1]!, fields: m[2].split(',').filter(Boolean) };
  return { path: spec };
}

const NAME_FIELDS = ['task_id', 'instance_id', 'id'];

export async function* readBenchmarkItems(spec: string, ledger = new Ledger()): AsyncIterable<BenchmarkItem> {
  const { path, fields } = parseBenchmarkSpec(spec);
  for (const file of expandInputs([path], (n) => isJsonl(n) || isParquet(n))) {
    const rows = isParquet(file) ? readParquetRows(file, ledger) : readJsonl(file, ledger);
    let n = 0;
    for await (const r of rows) {
      const row = r.value as Record<string, unknown>;
      const where = `${file}#${n++}`;
      if (!row || typeof row !== 'object') continue;
      // An instance row's text is its problem statement: its patch's context lines are the
      // repository's own code, which any file of that repository holds.
      const picked = fields ?? (isInstanceRow(row) && typeof row.problem_statement === 'string' ? ['problem_statement'] : Object.keys(row).filter((k) => typeof row[k] === 'string'));
      const missing = picked.filter((k) => typeof row[k] !== 'string');
      if (fields && missing.length === fields.length) throw new Error(`${where}: none of the fields ${fields.join(', ')} is a string field of the row (it has ${Object.keys(row).join(', ')})`);
      const nameField = NAME_FIELDS.find((k) => typeof row[k] === 'string' || typeof row[k] === 'number');
      const text = picked.filter((k) => typeof row[k] === 'string').map((k) => row[k] as string).join('\n');
      yield { benchmark: path, name: nameField ? String(row[nameField]) : where, text, ...(isInstanceRow(row) ? { instance: row } : {}) };
    }
  }
}
