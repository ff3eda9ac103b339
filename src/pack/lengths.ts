import { closeSync, openSync, readSync } from 'node:fs';
import { openBytes } from '../io/lines.js';

export interface ReadLengthsOptions {
  /** Lengths per yielded batch (the memory knob), default 1,048,576. */
  batchSize?: number;
  /** Called with the number of bytes read so far, after each chunk. */
  onBytes?: (bytes: number) => void;
}

const MAX_LENGTH = 0xffffffff;

/**
 * Streams a file of document lengths, one non-negative integer (tokens) a line, as Uint32Array
 * batches. It parses bytes directly (no string per line) so 100M lengths stream in bounded memory.
 * A malformed, negative, too large or empty line stops with an error naming the file and line.
 * Spaces, tabs and a trailing CR around the number are allowed; `.gz`/`.zst` are decompressed.
 * A `.u32` file is binary instead: uint32 little-endian lengths back to back, as a pack's
 * OUT/doc_lengths.u32.
 */
export async function* readLengthFile(path: string, opts: ReadLengthsOptions = {}): AsyncIterable<Uint32Array> {
  if (path.endsWith('.u32')) return yield* readU32File(path, opts);
  const batchSize = opts.batchSize ?? 1 << 20;
  let batch = new Uint32Array(batchSize);
  let n = 0;
  let line = 1;
  let value = 0;
  let digits = 0;
  let afterNumber = false; // whitespace seen after the digits
  let bad = false;
  let badText = '';
  let bytes = 0;
  const fail = (): never => {
    const text = badText.trim();
    const what = /^-\s*\d/.test(text) ? 'negative length' : 'malformed length';
    throw new Error(`${path}:${line}: ${what} "${text.slice(0, 60)}" (expected one non-negative integer per line)`);
  };
  for await (const chunk of openBytes(path)) {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c === 0x0a) {
        if (bad) fail();
        if (digits === 0) throw new Error(`${path}:${line}: empty line (expected one non-negative integer per line)`);
        batch[n++] = value;
        if (n === batchSize) {
          yield batch;
          batch = new Uint32Array(batchSize);
          n = 0;
        }
        line++;
        value = 0;
        digits = 0;
        afterNumber = false;
        continue;
      }
      if (bad) {
        if (badText.length < 80) badText += String.fromCharCode(c);
        continue;
      }
      if (c >= 0x30 && c <= 0x39 && !afterNumber) {
        value = value * 10 + (c - 0x30);
        digits++;
        if (value > MAX_LENGTH) throw new Error(`${path}:${line}: length too large (more than ${MAX_LENGTH} tokens)`);
      } else if (c === 0x20 || c === 0x09 || c === 0x0d) {
        if (digits > 0) afterNumber = true;
      } else {
        bad = true;
        badText = (digits > 0 ? String(value) : '') + (afterNumber ? ' ' : '') + String.fromCharCode(c);
      }
    }
    bytes += chunk.length;
    opts.onBytes?.(bytes);
  }
  if (bad) fail();
  if (digits > 0) batch[n++] = value;
  if (n > 0) yield batch.subarray(0, n);
}

/** A binary file of uint32 LE lengths (OUT/doc_lengths.u32), read in batches. */
async function* readU32File(path: string, opts: ReadLengthsOptions): AsyncIterable<Uint32Array> {
  const batchSize = opts.batchSize ?? 1 << 20;
  const fd = openSync(path, 'r');
  try {
    let bytes = 0;
    for (;;) {
      const batch = new Uint32Array(batchSize);
      const buf = new Uint8Array(batch.buffer);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, bytes + got);
        if (n === 0) break;
        got += n;
      }
      bytes += got;
      if (got % 4 !== 0) throw new Error(`${path}: ${bytes} bytes is not a whole number of uint32 lengths`);
      if (got > 0) {
        opts.onBytes?.(bytes);
        yield batch.subarray(0, got / 4);
      }
      if (got < buf.length) return;
    }
  } finally {
    closeSync(fd);
  }
}
