import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import { openBytes } from '../../io/lines.js';

/**
 * A streaming WARC reader (WARC/1.0 and 1.1, plain or gzip per record): one record at a time,
 * its block held only up to `maxBlockBytes` (a larger block is skipped as it streams by).
 * A record cut short by the end of the file, or a stream that stops decompressing, ends the
 * file with a `truncated` record instead of an exception. A record whose Content-Length is wrong
 * (its block does not end in CRLF CRLF, or runs past the end of the file while another record
 * header follows inside it) is reported `broken`, and reading resynchronizes on the next
 * `WARC/1.x` line, looking inside the broken block first, so later records are not lost.
 */
export interface WarcRecord {
  index: number;
  headers: Map<string, string>;
  /** The block, or undefined when it was over the size limit (then `blockBytes` says how big). */
  block: Buffer | undefined;
  blockBytes: number;
}

export type WarcItem =
  | { kind: 'record'; record: WarcRecord }
  | { kind: 'truncated'; index: number; message: string; headers?: Map<string, string> }
  | { kind: 'broken'; index: number; message: string; headers?: Map<string, string> };

/** Bytes pulled from a stream on demand, without concatenating the whole stream. */
class ByteReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private done = false;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  private async fill(): Promise<boolean> {
    if (this.done) return false;
    const r = await this.source.next();
    if (r.done) {
      this.done = true;
      return false;
    }
    this.chunks.push(r.value);
    this.length += r.value.length;
    return true;
  }

  private head(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.length)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  /** Reads up to and including `delimiter`, at most `limit` bytes; undefined at the end of the stream. */
  async readUntil(delimiter: Buffer, limit: number): Promise<Buffer | undefined> {
    let searchFrom = 0;
    for (;;) {
      const buf = this.head();
      const at = buf.indexOf(delimiter, searchFrom);
      if (at >= 0) return this.take(at + delimiter.length);
      if (buf.length > limit) throw new Error(`no end of headers within ${limit} bytes`);
      searchFrom = Math.max(0, buf.length - delimiter.length + 1);
      if (!(await this.fill())) return buf.length ? this.take(buf.length) : undefined;
    }
  }

  private take(n: number): Buffer {
    const buf = this.head();
    const out = buf.subarray(0, n);
    const rest = buf.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.length = rest.length;
    return out;
  }

  /** Puts bytes back at the front of the stream (to scan a broken block again). */
  unread(buf: Buffer): void {
    if (!buf.length) return;
    this.chunks.unshift(buf);
    this.length += buf.length;
  }

  /** Discards bytes up to the next `pattern`, which stays in the stream; false at the end of the stream. */
  async skipTo(pattern: Buffer): Promise<boolean> {
    for (;;) {
      const buf = this.head();
      const at = buf.indexOf(pattern);
      if (at >= 0) {
        this.take(at);
        return true;
      }
      this.take(buf.length - Math.min(buf.length, pattern.length - 1)); // keep a tail that may start a match
      if (!(await this.fill())) {
        this.take(this.length);
        return false;
      }
    }
  }

  /** Reads exactly n bytes (keeping them only when `keep`); returns what it got before the end of the stream. */
  async read(n: number, keep: boolean): Promise<{ data: Buffer | undefined; got: number }> {
    const parts: Buffer[] = [];
    let got = 0;
    while (got < n) {
      if (this.length === 0 && !(await this.fill())) break;
      const piece = this.take(Math.min(n - got, this.length));
      if (keep) parts.push(piece);
      got += piece.length;
    }
    return { data: keep ? Buffer.concat(parts, got) : undefined, got };
  }
}

const CRLF2 = Buffer.from('\r\n\r\n');
/** Where a record starts: a version line at the start of a line. */
const RECORD_START = Buffer.from('\nWARC/1.');

/** True when the bytes after a block are its CRLF CRLF end (or as much of it as the file holds). */
function endsRecord(trailer: Buffer): boolean {
  return trailer.equals(CRLF2) || (trailer.length < 4 && CRLF2.subarray(0, trailer.length).equals(trailer));
}

/** Moves the reader to the next record header, scanning `block` (put back first) before the rest. */
async function resync(reader: ByteReader, block: Buffer | undefined): Promise<boolean> {
  if (block) reader.unread(block.subarray(1)); // the record's own first byte cannot start the next one
  if (!(await reader.skipTo(RECORD_START))) return false;
  await reader.read(1, false); // the newline before the version line
  return true;
}
const MAX_HEADER_BYTES = 1 << 20;

function parseHeaderLines(text: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.split(/\r?\n/).slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

export async function* readWarc(file: string, maxBlockBytes: number): AsyncIterable<WarcItem> {
  const source = openBytes(file)[Symbol.asyncIterator]();
  const reader = new ByteReader(source);
  let index = 0;
  for (;;) {
    let head: Buffer | undefined;
    try {
      // Records are separated by blank lines; skip them before the version line.
      do head = await reader.readUntil(Buffer.from('\n'), MAX_HEADER_BYTES);
      while (head && head.toString('latin1').trim() === '');
      if (!head) return;
      if (!head.toString('latin1').startsWith('WARC/')) {
        yield { kind: 'broken', index, message: `record ${index} does not start with a WARC version line; skipped to the next record` };
        index++;
        if (!(await resync(reader, undefined))) return;
        continue;
      }
      const rest = await reader.readUntil(CRLF2, MAX_HEADER_BYTES);
      const headerText = head.toString('utf8') + (rest?.toString('utf8') ?? '');
      if (!rest || !rest.subarray(-4).equals(CRLF2)) {
        yield { kind: 'truncated', index, message: `record ${index}: the file ends inside the record headers` };
        return;
      }
      const headers = parseHeaderLines(headerText);
      const declared = Number(headers.get('content-length'));
      if (!Number.isSafeInteger(declared) || declared < 0) {
        yield { kind: 'broken', index, headers, message: `record ${index}: missing or bad Content-Length; skipped to the next record` };
        index++;
        if (!(await resync(reader, undefined))) return;
        continue;
      }
      const keep = declared <= maxBlockBytes;
      const { data, got } = await reader.read(declared, keep);
      const trailer = got === declared ? (await reader.read(4, true)).data! : Buffer.alloc(0);
      if (got === declared && endsRecord(trailer)) {
        yield { kind: 'record', record: { index, headers, block: data, blockBytes: declared } };
        index++;
        continue;
      }
      // A wrong Content-Length: the block stopped short of its end or ran into the next record.
      reader.unread(trailer);
      const found = await resync(reader, data);
      if (!found && got < declared) {
        yield { kind: 'truncated', index, headers, message: `record ${index}: block has ${got} of ${declared} bytes` };
        return;
      }
      yield { kind: 'broken', index, headers, message: `record ${index}: Content-Length ${declared} does not end the block (no CRLF CRLF after it); resynchronized on the next WARC record` };
      index++;
      if (!found) return;
    } catch (e) {
      // A gzip stream cut short ends here ("unexpected end of file").
      yield { kind: 'truncated', index, message: `record ${index}: ${(e as Error).message}` };
      return;
    }
  }
}

export interface HttpResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = Number.parseInt(body.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size <= 0) break;
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses the HTTP response a WARC `response` record holds: status, content type, decoded body. */
export function parseHttpResponse(block: Buffer, maxBodyBytes: number): HttpResponse {
  let end = block.indexOf(CRLF2);
  let sep = 4;
  if (end < 0) {
    end = block.indexOf('\n\n');
    sep = 2;
  }
  if (end < 0) throw new Error('HTTP headers have no end');
  const headers = parseHeaderLines(block.subarray(0, end).toString('latin1'));
  const status = Number(/^HTTP\/[\d.]+\s+(\d{3})/.exec(block.subarray(0, 32).toString('latin1'))?.[1] ?? NaN);
  let body = block.subarray(end + sep);
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) body = dechunk(body);
  const encoding = (headers.get('content-encoding') ?? '').toLowerCase();
  const limit = { maxOutputLength: maxBodyBytes };
  if (encoding === 'gzip' || encoding === 'x-gzip') body = gunzipSync(body, limit);
  else if (encoding === 'deflate') body = inflateSync(body, limit);
  else if (encoding === 'br') body = brotliDecompressSync(body, limit);
  return { status, contentType: headers.get('content-type') ?? '', body };
}
