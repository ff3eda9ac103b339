import { createWriteStream, mkdirSync, renameSync, rmSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { createGzip } from 'node:zlib';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { openBytes, readLines, type Line } from './lines.js';
import { rethrowStorageFailure } from './storage.js';
import { removeStaleTemps } from './stale.js';
import type { Doc } from '../doc/document.js';
import { appendDocLine, LineBuffer } from '../doc/json-line.js';
import type { Ledger } from '../core/ledger.js';

export interface JsonRecord {
  file: string;
  lineNo: number;
  value: unknown;
}

/**
 * Reads JSONL (plain, .gz, .zst). Blank lines are skipped; a line that is not valid JSON,
 * not UTF-8 or too long is counted in the ledger with a message naming file and line. `owns`
 * (one rank of several) is asked about this file's records, `:LINE` (core/ranks.ts `inputOwns`).
 */
export async function* readJsonl(file: string, ledger: Ledger, maxLineBytes?: number, owns?: (key: string) => boolean, onLineBytes?: (bytes: number) => void): AsyncIterable<JsonRecord> {
  let lines = 0;
  try {
    for await (const rec of jsonlRecords(file, ledger, maxLineBytes, owns, onLineBytes)) {
      lines = rec.lineNo;
      yield rec;
    }
  } catch (e) {
    countFault(file, e, lines, ledger, owns);
  }
}

/**
 * A truncated or fake .gz/.zst (or an unreadable file) costs that file from the fault on, never
 * the run: one record dropped under its reason, after `lines` lines read.
 */
export function countFault(file: string, e: unknown, lines: number, ledger: Ledger, owns?: (key: string) => boolean): void {
  rethrowStorageFailure(e); // the storage itself failing stops the job (docs/scale.md), never a file's count
  const fault = unreadableFile(file, e);
  if (owns && !owns('#fault')) return; // one rank counts the file's fault
  ledger.input();
  ledger.drop(fault.reason, `${file}: ${fault.message} after line ${lines} (the ${lines} lines before it were read): ${(e as Error).message}`);
}

/** The reason a file cannot be read to its end: its compression is broken, or it cannot be opened. */
export function unreadableFile(file: string, e: unknown): { reason: string; message: string } {
  const code = String((e as NodeJS.ErrnoException).code ?? '');
  const systemError = /^E[A-Z]+$/.test(code); // ENOENT, EISDIR, EACCES, EIO: the file itself, not its bytes
  if (!systemError && /\.gz$/.test(file)) return { reason: 'corrupt_gzip', message: 'broken or truncated gzip stream' };
  if (!systemError && /\.zstd?$/.test(file)) return { reason: 'corrupt_zstd', message: 'broken or truncated zstd stream' };
  return { reason: 'unreadable_file', message: 'cannot be read' };
}

async function* jsonlRecords(file: string, ledger: Ledger, maxLineBytes?: number, owns?: (key: string) => boolean, onLineBytes?: (bytes: number) => void): AsyncIterable<JsonRecord> {
  for await (const line of readLines(openBytes(file), maxLineBytes)) {
    onLineBytes?.(line.bytes + 1); // its newline too
    const r = jsonlLine(file, line, owns);
    if (r === undefined) continue;
    ledger.input();
    if ('drop' in r) ledger.drop(r.drop, r.message);
    else yield { file, lineNo: line.lineNo, value: r.value };
  }
}

/**
 * One line of a JSONL file: undefined when it is not a record (blank, or another rank's), else
 * a record that is dropped (its reason and message) or its parsed value. The pack job's workers
 * read lines with this too (src/tokenize/line-docs.ts).
 */
export function jsonlLine(file: string, line: Line, owns?: (key: string) => boolean): { drop: string; message: string } | { value: unknown } | undefined {
  if (line.text !== null && line.text.trim() === '') return undefined;
  if (owns && !owns(`:${line.lineNo}`)) return undefined;
  if (line.text === null) {
    return { drop: line.error!, message: `${file}:${line.lineNo}: ${line.error === 'invalid_utf8' ? 'line is not valid UTF-8' : `line of ${line.bytes} bytes is over the limit`}` };
  }
  try {
    return { value: JSON.parse(line.text) };
  } catch (e) {
    return { drop: 'malformed_json', message: `${file}:${line.lineNo}: ${(e as Error).message}` };
  }
}

/**
 * Writes lines to a file atomically: to a temporary name, renamed into place on close(),
 * so a killed run never leaves a half-written file under the final name. '-' is stdout.
 */
const WRITE_BUFFER_BYTES = 4 << 20;

export class AtomicLineWriter {
  private out: Writable;
  private file: WriteStream | undefined;
  private readonly tmp: string;
  private error: Error | undefined;

  constructor(readonly path: string) {
    this.tmp = `${path}.tmp-${process.pid}`;
    if (path === '-') {
      this.out = process.stdout;
      return;
    }
    mkdirSync(dirname(path), { recursive: true });
    removeStaleTemps(path); // a killed earlier run's OUT.tmp-PID
    // A few MB buffered: the producer (a run's stages) goes on while the disk catches up,
    // instead of waiting for a drain every 16 KB.
    this.file = createWriteStream(this.tmp, { highWaterMark: WRITE_BUFFER_BYTES });
    // Kept for the next call: a write failing (disk full) or cut short by abort() must not be
    // an unhandled 'error' event, which ends the process instead of the job.
    this.file.on('error', (e) => (this.error ??= e));
    if (path.endsWith('.gz')) {
      const gz = createGzip();
      gz.on('error', (e) => (this.error ??= e));
      gz.pipe(this.file);
      this.out = gz;
    } else if (path.endsWith('.zst') || path.endsWith('.zstd')) {
      throw new Error(`${path}: writing zstd is not supported; use .jsonl or .jsonl.gz`);
    } else {
      this.out = this.file;
    }
  }

  /** Writes one line (a newline is added); waits for the stream to drain when it must. */
  async write(line: string): Promise<void> {
    await this.writeRaw(line + '\n');
  }

  /** Writes lines as they are, their newlines included (a Buffer is the stream's to keep until written). */
  async writeRaw(lines: string | Buffer): Promise<void> {
    this.check();
    if (this.out.write(lines)) return;
    // A file that failed closes without draining the gzip stream before it: wait for either.
    await (this.file ? Promise.race([once(this.out, 'drain'), this.closed()]) : once(this.out, 'drain'));
    this.check();
  }

  async close(): Promise<void> {
    if (!this.file) return;
    this.check();
    this.out.end();
    await this.closed();
    try {
      this.check();
      renameSync(this.tmp, this.path);
    } catch (e) {
      rmSync(this.tmp, { force: true }); // nothing of a failed file is left, under either name
      throw e;
    }
  }

  /**
   * Gives up: once the file has closed (writes in flight finish first), the temporary file is
   * removed; nothing appears under the final name. Removing it before then let the stream,
   * still opening, create it again.
   */
  async abort(): Promise<void> {
    if (!this.file) return;
    if (this.out !== this.file) this.out.destroy();
    this.file.destroy();
    await this.closed();
    rmSync(this.tmp, { force: true });
  }

  private closed(): Promise<void> {
    const file = this.file!;
    // Not once(): that rejects on the 'error' that destroying a stream with pending writes emits.
    return file.closed ? Promise.resolve() : new Promise((resolve) => file.once('close', () => resolve()));
  }

  private check(): void {
    if (this.error) throw new Error(`${this.path}: ${this.error.message}`);
  }
}

/** Lines gathered before a write to the file (one buffer, not a string a line). */
const LINE_BATCH_BYTES = 1 << 20;

/** Writes a document stream as JSONL; returns how many were written. */
export async function writeDocsJsonl(path: string, docs: AsyncIterable<Doc>): Promise<number> {
  const w = new AtomicLineWriter(path);
  const lines = new LineBuffer(LINE_BATCH_BYTES);
  let n = 0;
  try {
    for await (const d of docs) {
      appendDocLine(d, lines);
      n++;
      if (lines.used >= LINE_BATCH_BYTES) await w.writeRaw(lines.take());
    }
    if (lines.used > 0) await w.writeRaw(lines.take());
  } catch (e) {
    w.abort();
    throw e;
  }
  await w.close();
  return n;
}
