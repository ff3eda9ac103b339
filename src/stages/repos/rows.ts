import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hyparquet } from '../../io/hyparquet.js';
import { hash64 } from '../../core/random.js';
import { Ledger } from '../../core/ledger.js';
import { readJsonl } from '../../io/jsonl.js';
import { readLines, openBytes } from '../../io/lines.js';
import { markSpill, removeStaleSpills, spillPrefix } from '../../io/stale.js';
import { comparePaths, normalizePath } from './imports.js';

/**
 * File-level rows (The Stack v2 / StarCoder layout): `repo_name`, `path`, `content`,
 * in JSONL or Parquet. Rows of one repository may be spread anywhere over the inputs,
 * so they are grouped before serialization (see `groupRows`).
 */
export interface FileRow {
  repo: string;
  path: string;
  /** The text, or null when the bytes were not valid UTF-8 (the row is then dropped by that reason). */
  content: string | null;
  /** Where the row is: file and line or row number, for messages. */
  where: string;
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Turns a parsed row into a FileRow, or the reason it is unusable. */
export function toFileRow(value: unknown, where: string): FileRow | { reason: string; message: string } {
  const r = (value ?? {}) as Record<string, unknown>;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { reason: 'bad_row', message: `${where}: row is not an object` };
  for (const key of ['repo_name', 'path'] as const) {
    if (typeof r[key] !== 'string' || r[key] === '') return { reason: 'bad_row', message: `${where}: "${key}" is missing or not a string` };
  }
  let content: string | null;
  if (typeof r.content === 'string') content = r.content;
  else if (r.content instanceof InvalidUtf8) content = null;
  else if (r.content instanceof Uint8Array) content = decodeOrNull(r.content);
  else return { reason: 'bad_row', message: `${where}: "content" is missing or not a string` };
  const path = normalizePath((r.path as string).replace(/\\/g, '/'));
  if (!path || /[\n\r]/.test(path) || /[\n\r]/.test(r.repo_name as string)) {
    return { reason: 'bad_path', message: `${where}: path ${JSON.stringify(r.path)} is not a relative path inside the repository` };
  }
  return { repo: r.repo_name as string, path, content, where };
}

function decodeOrNull(bytes: Uint8Array): string | null {
  try {
    return fatalUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** A Parquet string that was not valid UTF-8: hyparquet would otherwise replace bad bytes silently. */
class InvalidUtf8 {}

/**
 * Reads rows of JSONL or Parquet files. Unusable lines and rows are counted in `ledger`
 * (one input and one drop each) and never reach the caller.
 */
export async function* readFileRows(file: string, ledger: Ledger, parquet: boolean): AsyncIterable<FileRow> {
  const take = (value: unknown, where: string): FileRow | undefined => {
    const row = toFileRow(value, where);
    if ('reason' in row) {
      ledger.input();
      ledger.drop(row.reason, row.message);
      return undefined;
    }
    return row;
  };
  if (!parquet) {
    // readJsonl counts every line it reads; here a line becomes a file only once it is judged,
    // so its accounting goes to a private ledger whose drops are forwarded.
    const lines = new Ledger();
    lines.onDrop = (reason, message) => {
      ledger.input();
      ledger.drop(reason, message);
    };
    for await (const rec of readJsonl(file, lines)) {
      const row = take(rec.value, `${file}:${rec.lineNo}`);
      if (row) yield row;
    }
    return;
  }
  let rowNo = 0;
  try {
    const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, compressors } = await hyparquet();
    const buffer = await asyncBufferFromFile(file);
    const metadata = await parquetMetadataAsync(buffer);
    const stringFromBytes = (b: Uint8Array) => decodeOrNull(b) ?? new InvalidUtf8();
    for (const group of metadata.row_groups) {
      const rows = await parquetReadObjects({
        file: buffer,
        metadata,
        columns: ['repo_name', 'path', 'content'],
        rowStart: rowNo,
        rowEnd: rowNo + Number(group.num_rows),
        compressors,
        parsers: { stringFromBytes },
      });
      for (const value of rows) {
        rowNo++;
        const row = take(value, `${file}: row ${rowNo}`);
        if (row) yield row;
      }
    }
  } catch (e) {
    ledger.input();
    ledger.drop('corrupt_parquet', `${file}: after row ${rowNo}: cannot read Parquet: ${(e as Error).message}`);
  }
}

export interface GroupOptions {
  /** Rows held in memory before grouping spills to disk, in bytes of content. */
  memoryBytes: number;
  /** Where spill files go (removed afterwards). */
  workDir?: string;
  log?: (m: string) => void;
}

/** Spill fan-out: each level splits by one more byte of the repository name's hash. */
const BUCKETS = 256;
const MAX_DEPTH = 4;
const FLUSH_BYTES = 1 << 20;

const groupKey = (repo: string) => hash64('repo-group', repo);
const bucketOf = (key: bigint, depth: number) => Number((key >> BigInt(56 - 8 * depth)) & 0xffn);

function rowBytes(r: FileRow): number {
  return (r.content?.length ?? 0) + r.path.length + r.repo.length + 64;
}

/**
 * Groups rows by repository with memory bounded by `memoryBytes`, whatever the input size.
 * While everything fits, rows stay in memory. Past the bound every row is spilled to 256
 * bucket files by the first byte of a hash of the repository name; each bucket is then
 * grouped alone, and a bucket still over the bound is split again by the next byte.
 * The output order is the same either way (by that hash, then by name), so the bound
 * never changes the bytes written. Within a repository, rows keep their arrival order.
 * The one thing that cannot be split is a single repository: it is held whole.
 */
const SPILL_PREFIX = 'midpack-repos-';

export async function* groupRows(rows: AsyncIterable<FileRow>, opts: GroupOptions): AsyncIterable<{ repo: string; rows: FileRow[] }> {
  const held: FileRow[] = [];
  let heldBytes = 0;
  let spill: Spill | undefined;
  for await (const r of rows) {
    if (spill) {
      spill.add(r);
      continue;
    }
    held.push(r);
    heldBytes += rowBytes(r);
    if (heldBytes > opts.memoryBytes) {
      const parent = opts.workDir ?? tmpdir();
      // Spill folders of killed runs (marked, their process gone) go first; then this run's, marked.
      for (const old of removeStaleSpills(parent, SPILL_PREFIX)) opts.log?.(`serialize-repos: removed the spill folder of a killed run: ${old}`);
      const dir = mkdtempSync(spillPrefix(parent, SPILL_PREFIX));
      markSpill(dir);
      opts.log?.(`serialize-repos: more than ${opts.memoryBytes} bytes of rows: grouping through spill files in ${dir}`);
      spill = new Spill(dir, 0);
      for (const h of held) spill.add(h);
      held.length = 0;
    }
  }
  if (!spill) {
    yield* groupInMemory(held);
    return;
  }
  try {
    yield* spill.drain(opts);
  } finally {
    rmSync(spill.dir, { recursive: true, force: true });
  }
}

function* groupInMemory(rows: FileRow[]): Iterable<{ repo: string; rows: FileRow[] }> {
  const groups = new Map<string, FileRow[]>();
  for (const r of rows) {
    const g = groups.get(r.repo);
    if (g) g.push(r);
    else groups.set(r.repo, [r]);
  }
  const keyed = [...groups.keys()].map((repo) => ({ repo, key: groupKey(repo) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : comparePaths(a.repo, b.repo)));
  for (const { repo } of keyed) yield { repo, rows: groups.get(repo)! };
}

class Spill {
  private pending: string[][] = Array.from({ length: BUCKETS }, () => []);
  private pendingBytes = 0;

  constructor(
    readonly dir: string,
    readonly depth: number,
  ) {}

  private file(b: number): string {
    return join(this.dir, `d${this.depth}-${b.toString(16).padStart(2, '0')}.jsonl`);
  }

  add(r: FileRow): void {
    const line = JSON.stringify([r.repo, r.path, r.content, r.where]) + '\n';
    this.pending[bucketOf(groupKey(r.repo), this.depth)]!.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes > FLUSH_BYTES) this.flush();
  }

  private flush(): void {
    this.pending.forEach((lines, b) => {
      if (lines.length) appendFileSync(this.file(b), lines.join(''));
      lines.length = 0;
    });
    this.pendingBytes = 0;
  }

  async *drain(opts: GroupOptions): AsyncIterable<{ repo: string; rows: FileRow[] }> {
    this.flush();
    for (let b = 0; b < BUCKETS; b++) {
      const file = this.file(b);
      let size: number;
      try {
        size = statSync(file).size;
      } catch {
        continue; // no repository hashed into this bucket
      }
      if (size > opts.memoryBytes && this.depth + 1 < MAX_DEPTH) {
        const sub = new Spill(this.dir, this.depth + 1);
        for await (const r of readSpillFile(file)) sub.add(r);
        rmSync(file);
        yield* sub.drain(opts);
        continue;
      }
      const rows: FileRow[] = [];
      for await (const r of readSpillFile(file)) rows.push(r);
      rmSync(file);
      yield* groupInMemory(rows);
    }
  }
}

async function* readSpillFile(file: string): AsyncIterable<FileRow> {
  for await (const line of readLines(openBytes(file))) {
    if (!line.text) continue;
    const [repo, path, content, where] = JSON.parse(line.text) as [string, string, string | null, string];
    yield { repo, path, content, where };
  }
}
