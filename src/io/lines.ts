import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { Decompress } from 'fzstd';
import { openRaw } from './storage.js';

/** Opens a file or s3:// object as a byte stream, decompressing `.gz` and `.zst` as the bytes arrive, by extension. '-' is stdin. */
export function openBytes(path: string): AsyncIterable<Buffer> {
  if (path === '-') return process.stdin;
  const raw = openRaw(path);
  if (path.endsWith('.gz')) {
    // pipe() does not pass a source's failure on: without this, a read that fails would leave the reader waiting.
    const gunzip = createGunzip();
    raw.on('error', (e) => gunzip.destroy(e));
    return raw.pipe(gunzip);
  }
  if (path.endsWith('.zst') || path.endsWith('.zstd')) return zstdStream(raw);
  return raw;
}

async function* zstdStream(raw: Readable): AsyncIterable<Buffer> {
  const out: Uint8Array[] = [];
  const d = new Decompress((chunk) => {
    out.push(chunk);
  });
  for await (const chunk of raw) {
    d.push(chunk as Buffer);
    while (out.length) yield Buffer.from(out.shift()!);
  }
  d.push(new Uint8Array(0), true);
  while (out.length) yield Buffer.from(out.shift()!);
}

export interface Line {
  /** 1-based line number in the file. */
  lineNo: number;
  /** The line's text, or null when it could not be decoded (see `error`). */
  text: string | null;
  error?: 'invalid_utf8' | 'line_too_long';
  bytes: number;
}

const fatalDecoder = new TextDecoder('utf-8', { fatal: true });

/** A line's bytes (its newline excluded) as text, a trailing CR dropped (CRLF files); null when they are not UTF-8. */
export function decodeLine(buf: Uint8Array): string | null {
  let end = buf.length;
  if (end > 0 && buf[end - 1] === 0x0d) end--; // tolerate CRLF files
  try {
    return fatalDecoder.decode(buf.subarray(0, end));
  } catch {
    return null;
  }
}

/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one line:
 * a longer line is skipped to its end and reported, so a huge line cannot exhaust memory.
 * Each line is a batch of one (readLineBatches), decoded; its buffer is filled again by a later
 * line once decoded.
 */
export async function* readLines(bytes: AsyncIterable<Buffer>, maxLineBytes = 256 << 20): AsyncIterable<Line> {
  const spare: Uint8Array[] = [];
  for await (const b of readLineBatches(bytes, 1, maxLineBytes, spare)) {
    if (b.tooLong !== undefined) {
      yield { lineNo: b.firstLineNo, text: null, error: 'line_too_long', bytes: b.tooLong };
      continue;
    }
    const raw = b.bytes.subarray(0, b.bytes.length - 1); // the line, without the newline the batch adds
    const text = decodeLine(raw);
    if (b.bytes.buffer.byteLength <= KEEP_LINE_BUFFER) spare.push(new Uint8Array(b.bytes.buffer));
    yield text === null ? { lineNo: b.firstLineNo, text, error: 'invalid_utf8', bytes: raw.length } : { lineNo: b.firstLineNo, text, bytes: raw.length };
  }
}

/** A line buffer up to this size is kept for the next line (a huge line's is let go). */
const KEEP_LINE_BUFFER = 1 << 20;

/**
 * Whole lines, undecoded, in one buffer of their own (so it can be transferred to a worker
 * thread): each line as in the input followed by a newline. A line over the limit is a batch of
 * its own with no bytes and `tooLong` its size.
 */
export interface LineBatch {
  /** 1-based number of the first line. */
  firstLineNo: number;
  lines: number;
  bytes: Uint8Array;
  tooLong?: number;
}

/**
 * readLines without decoding: lines gathered into batches of about `batchBytes`, for a worker to
 * decode and parse (src/tokenize/line-docs.ts). The same lines, numbers and limit as readLines.
 * `spare`: buffers of batches already read (a worker hands each back with its reply), filled
 * again before new memory is taken: memory touched for the first time is slow on some VMs
 * (docs/outputs.md), and this copy was most of the reading thread's time.
 */
export async function* readLineBatches(bytes: AsyncIterable<Buffer>, batchBytes: number, maxLineBytes = 256 << 20, spare: Uint8Array[] = []): AsyncIterable<LineBatch> {
  let parts: Buffer[] = []; // complete lines of the batch, and their newlines
  let partsBytes = 0;
  let lines = 0;
  let firstLineNo = 1;
  let line: Buffer[] = []; // the line being read
  let lineBytes = 0;
  let overflow = false;
  const flush = (): LineBatch | undefined => {
    if (!lines) return undefined;
    const out = batchBuffer(partsBytes, 2 * batchBytes, spare);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    const batch = { firstLineNo, lines, bytes: out.subarray(0, partsBytes) };
    firstLineNo += lines;
    parts = [];
    partsBytes = 0;
    lines = 0;
    return batch;
  };
  // The line read so far is complete: into the batch, or a batch of its own when over the limit.
  const endLine = function* (): Iterable<LineBatch> {
    if (overflow) {
      const before = flush();
      if (before) yield before;
      yield { firstLineNo: firstLineNo++, lines: 1, bytes: new Uint8Array(0), tooLong: lineBytes };
    } else {
      parts.push(...line, NEWLINE);
      partsBytes += lineBytes + 1;
      lines++;
      if (partsBytes >= batchBytes) yield flush()!;
    }
    line = [];
    lineBytes = 0;
    overflow = false;
  };
  try {
    for await (const chunk of bytes) {
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
        lineBytes += piece.length;
        if (!overflow) {
          if (lineBytes > maxLineBytes) {
            overflow = true;
            line = [];
          } else if (piece.length) line.push(piece); // a view: stream chunks are never written again
        }
        if (nl < 0) break;
        yield* endLine();
        start = nl + 1;
      }
    }
  } catch (e) {
    // The lines complete before a fault are read, as readLines yields them.
    const before = flush();
    if (before) yield before;
    throw e;
  }
  if (lineBytes > 0 || overflow) yield* endLine();
  const last = flush();
  if (last) yield last;
}

const NEWLINE = Buffer.from('\n');

/** A buffer with its own ArrayBuffer (it is transferred) of at least `need` bytes: a spare one when it is large enough. */
function batchBuffer(need: number, size: number, spare: Uint8Array[]): Uint8Array {
  for (let b = spare.pop(); b; b = spare.pop()) if (b.byteLength >= need) return b;
  return new Uint8Array(Math.max(need, size));
}
