import { nativeBinding } from '../../pack/packer.js';
import type { Doc } from '../../doc/document.js';

/**
 * The segment unit: one line of a document (split at '\n'), normalized by trimming
 * whitespace at both ends (so indentation, trailing spaces and CRLF do not make two
 * copies of a license line differ). A line is a segment only when its normalized text
 * has at least `minChars` UTF-16 units, so blank lines and a lone `}` are never counted,
 * and when it does not touch a stage-placed special token (`<|file_sep|>path` lines are
 * document structure, not boilerplate). A segment's span is its whole raw line including
 * the trailing newline, so adjacent masked lines merge into one span.
 */
export interface SegmentParams {
  unit: 'line';
  normalize: 'trim';
  hash: 'xxh64';
  min_chars: number;
}

export const DEFAULT_MIN_CHARS = 10;

export function segmentParams(minChars = DEFAULT_MIN_CHARS): SegmentParams {
  return { unit: 'line', normalize: 'trim', hash: 'xxh64', min_chars: minChars };
}

/**
 * A document's segments, four words each (SEGMENT_WORDS): the hash's high and low 32 bits, the
 * line's start, and the line's end before its newline. With `distinct`, only the first
 * occurrence of each hash. The raw line span of a segment is [start, lineEnd + 1) when a newline
 * follows the line (segmentEnd), else [start, lineEnd).
 */
export type Segmenter = (doc: Pick<Doc, 'text' | 'special_spans'>, distinct?: boolean) => Uint32Array;

export const SEGMENT_WORDS = 4;

/** A segment's raw line span end: past its newline when it has one. */
export const segmentEnd = (text: string, lineEnd: number): number => (lineEnd < text.length ? lineEnd + 1 : lineEnd);

/** A segment's normalized text: its line trimmed. */
export const normalizedAt = (text: string, start: number, lineEnd: number): string => text.slice(start, lineEnd).trim();

/**
 * The segmenter of `params`: the native core's (native/src/segments.cpp), one call a document.
 * It finds lines, trims them as String.prototype.trim does and hashes their UTF-8 bytes with
 * XXH64 (seed 0), the same 64 bits as xxhash-wasm's h64 of the trimmed string: a test checks it
 * against that definition on real documents. About three times the speed of doing it here.
 */
export function loadSegmenter(params: SegmentParams): Segmenter {
  if (params.unit !== 'line' || params.normalize !== 'trim' || params.hash !== 'xxh64') {
    throw new Error(`unsupported segment unit ${JSON.stringify(params)}`);
  }
  const { lineSegments } = nativeBinding();
  const minChars = params.min_chars;
  return (doc, distinct = false) => {
    const specials = doc.special_spans?.length ? Uint32Array.from(doc.special_spans.flat()) : undefined;
    return lineSegments(doc.text, specials, minChars, distinct);
  };
}

/**
 * A document's text read from its JSONL line by the native core without parsing the line:
 * counting samples a few lines of most documents, and parsing each whole document for them was a
 * third of counting's time on the main thread. Slices taken in the order of their lines walk the
 * line once (the cursor); `parse` gives the document when the line is not one the core reads (or
 * the addon was built before it).
 */
export class LineText {
  private readonly cursor = Float64Array.of(-1, 0, 0, 0);

  constructor(
    private readonly line: Uint8Array,
    private readonly parse: () => Pick<Doc, 'text'>,
  ) {}

  /** text.slice(start, end). */
  slice(start: number, end: number): string {
    return nativeBinding().jsonTextSlice?.(this.line, 'text', start, end, this.cursor) ?? this.parse().text.slice(start, end);
  }
}

/** The 16-hex-digit form of a hash, as the counts file's samples and the report show it. */
export function hashHex(hi: number, lo: number): string {
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

export function parseHashHex(hex: string): { hi: number; lo: number } {
  if (!/^[0-9a-f]{16}$/.test(hex)) throw new Error(`bad segment hash "${hex}"`);
  return { hi: parseInt(hex.slice(0, 8), 16), lo: parseInt(hex.slice(8), 16) };
}

/** Samples are for a person reading the report: long (minified) lines are cut. */
export const SAMPLE_CHARS = 200;

/** A segment's sample: truncated, and a flat copy so it does not pin the document it was sliced from. */
export function sampleText(normalized: string): string {
  return Buffer.from(normalized.slice(0, SAMPLE_CHARS), 'utf8').toString('utf8');
}
