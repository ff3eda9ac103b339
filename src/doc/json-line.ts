import { nativeBinding } from '../pack/packer.js';
import { docToJson, type Doc } from './document.js';

/**
 * A document's JSONL line as bytes, written straight into a buffer: the same bytes as
 * `docToJson(doc) + '\n'` in UTF-8, with the text (nearly all of a line) encoded by V8's UTF-8
 * encoder and escaped by the native core (native/include/json_string.hpp). JSON.stringify and
 * then Buffer.from took about 1.3 s a 100 MB of texts with many quotes and newlines (a history's
 * HTML fixtures, source code); the prepare phase writes every document it makes so. Without the
 * native addon, for a text with a lone surrogate (JSON.stringify writes it as \udxxx, it has no
 * UTF-8) or over NATIVE_TEXT_UNITS (the native call holds its UTF-8 in a buffer of the thread's),
 * the line is docToJson's string, encoded.
 */
export interface LineSink {
  /** The buffer to write into, with at least `bytes` free from `used` (it may be a new one). */
  room(bytes: number): Buffer;
  used: number;
}

type WellFormed = string & { isWellFormed(): boolean };

/** Texts up to this many UTF-16 units are written natively (their UTF-8 in a buffer of 12 MB at most, kept by the thread). */
const NATIVE_TEXT_UNITS = 1 << 22;

type JsonStringInto = (text: string, out: Uint8Array, at: number) => number;
let native: JsonStringInto | null | undefined;
function nativeJsonString(): JsonStringInto | null {
  if (native === undefined) {
    try {
      native = nativeBinding().jsonStringInto ?? null; // an addon built before it: docToJson's string
    } catch {
      native = null; // not built: docToJson's string
    }
  }
  return native;
}

/** Appends `text` as UTF-8. */
function appendUtf8(sink: LineSink, text: string): void {
  const buf = sink.room(3 * text.length);
  sink.used += buf.write(text, sink.used);
}

/** The key order and fields of docToJson, around the text: what comes before it and after it. */
function aroundText(doc: Doc): [string, string] | undefined {
  if (typeof doc.id !== 'string' || typeof doc.kind !== 'string' || typeof doc.source !== 'string' || doc.meta === null || typeof doc.meta !== 'object') return undefined;
  const head = `{"id":${JSON.stringify(doc.id)},"kind":${JSON.stringify(doc.kind)},"source":${JSON.stringify(doc.source)},"text":`;
  let tail = `,"meta":${JSON.stringify(doc.meta)}`;
  if (doc.loss_mask_spans && doc.loss_mask_spans.length) tail += `,"loss_mask_spans":${JSON.stringify(doc.loss_mask_spans)}`;
  if (doc.special_spans && doc.special_spans.length) tail += `,"special_spans":${JSON.stringify(doc.special_spans)}`;
  return [head, tail + '}\n'];
}

/** Appends the document's JSONL line (docToJson's bytes and a newline) to `sink`. */
export function appendDocLine(doc: Doc, sink: LineSink): void {
  const write = nativeJsonString();
  const text = doc.text;
  const parts = write && typeof text === 'string' && text.length <= NATIVE_TEXT_UNITS && (text as WellFormed).isWellFormed() ? aroundText(doc) : undefined;
  if (!parts) return appendUtf8(sink, docToJson(doc) + '\n');
  appendUtf8(sink, parts[0]);
  // Room for the text's UTF-8 (3 bytes a unit at most) and its quotes: only control characters need more.
  let n = write!(text, sink.room(3 * text.length + 2), sink.used);
  if (n < 0) n = write!(text, sink.room(-n), sink.used);
  sink.used += n;
  appendUtf8(sink, parts[1]);
}

/** A growing buffer of JSONL lines: the lines of a batch, taken as one Buffer to write. */
export class LineBuffer implements LineSink {
  used = 0;
  protected buf: Buffer;

  constructor(private readonly initialBytes = 1 << 20) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  room(bytes: number): Buffer {
    if (this.used + bytes > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.used + bytes));
      this.buf.copy(bigger, 0, 0, this.used);
      this.buf = bigger;
    }
    return this.buf;
  }

  /**
   * The lines so far, as a Buffer of their own; a new buffer of the size this one grew to follows
   * (a history's samples of hundreds of KB each would grow and copy a smaller one every time;
   * pages never written are never touched).
   */
  take(): Buffer {
    const out = this.buf.subarray(0, this.used);
    this.buf = Buffer.allocUnsafe(Math.max(this.initialBytes, this.buf.length));
    this.used = 0;
    return out;
  }
}
