import xxhash from 'xxhash-wasm';
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

/** Called once per segment: its hash halves, its raw line span [start, end), its normalized text. */
export type SegmentVisitor = (hi: number, lo: number, start: number, end: number, normalized: string) => void;

let h64: ((input: string, seed?: bigint) => bigint) | undefined;

/** Loads the hash (a WebAssembly module: the first call is async, later ones are cached). */
export async function loadSegmenter(params: SegmentParams): Promise<(doc: Pick<Doc, 'text' | 'special_spans'>, visit: SegmentVisitor) => void> {
  if (params.unit !== 'line' || params.normalize !== 'trim' || params.hash !== 'xxh64') {
    throw new Error(`unsupported segment unit ${JSON.stringify(params)}`);
  }
  h64 ??= (await xxhash()).h64;
  const hash = h64;
  const minChars = params.min_chars;
  return (doc, visit) => {
    const { text } = doc;
    const specials = doc.special_spans ?? [];
    let s = 0; // first special span that may still touch a later line
    let start = 0;
    while (start < text.length) {
      const nl = text.indexOf('\n', start);
      const end = nl < 0 ? text.length : nl + 1;
      const lineEnd = nl < 0 ? text.length : nl;
      while (s < specials.length && specials[s]![1] <= start) s++;
      const touchesSpecial = s < specials.length && specials[s]![0] < lineEnd;
      if (!touchesSpecial && lineEnd - start >= minChars) {
        const normalized = text.slice(start, lineEnd).trim();
        if (normalized.length >= minChars) {
          const h = hash(normalized);
          visit(Number(h >> 32n), Number(BigInt.asUintN(32, h)), start, end, normalized);
        }
      }
      start = end;
    }
  };
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
