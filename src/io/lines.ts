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

/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one line:
 * a longer line is skipped to its end and reported, so a huge line cannot exhaust memory.
 */
export async function* readLines(bytes: AsyncIterable<Buffer>, maxLineBytes = 256 << 20): AsyncIterable<Line> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overflow = false;
  let lineNo = 0;
  const emit = (): Line => {
    lineNo++;
    const size = pendingBytes;
    if (overflow) {
      pending = [];
      pendingBytes = 0;
      overflow = false;
      return { lineNo, text: null, error: 'line_too_long', bytes: size };
    }
    const buf = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    let end = buf.length;
    if (end > 0 && buf[end - 1] === 0x0d) end--; // tolerate CRLF files
    try {
      return { lineNo, text: fatalDecoder.decode(buf.subarray(0, end)), bytes: size };
    } catch {
      return { lineNo, text: null, error: 'invalid_utf8', bytes: size };
    }
  };
  for await (const chunk of bytes) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
      pendingBytes += piece.length;
      if (!overflow) {
        if (pendingBytes > maxLineBytes) {
          overflow = true;
          pending = [];
        } else if (piece.length) pending.push(piece); // a view: stream chunks are never written again
      }
      if (nl < 0) break;
      yield emit();
      start = nl + 1;
    }
  }
  if (pendingBytes > 0 || overflow) yield emit();
}
