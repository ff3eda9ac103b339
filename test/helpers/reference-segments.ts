import xxhash from 'xxhash-wasm';
import type { Doc } from '../../src/doc/document.js';

/**
 * The masking segments by their definition (src/stages/mask/segments.ts), written out in
 * JavaScript: lines split at '\n', trimmed by String.prototype.trim, at least `minChars` UTF-16
 * units, touching no special span, hashed by xxhash-wasm's h64 (XXH64 of the UTF-8 bytes,
 * TextEncoder's: a lone surrogate as U+FFFD). The native segmenter must give the same words:
 * hash high, hash low, line start, line end before its newline; with `distinct`, first occurrences.
 */
export async function referenceSegmenter(minChars: number): Promise<(doc: Pick<Doc, 'text' | 'special_spans'>, distinct?: boolean) => number[]> {
  const { h64 } = await xxhash();
  return (doc, distinct = false) => {
    const { text } = doc;
    const specials = doc.special_spans ?? [];
    const seen = new Set<bigint>();
    const out: number[] = [];
    let start = 0;
    while (start < text.length) {
      const nl = text.indexOf('\n', start);
      const lineEnd = nl < 0 ? text.length : nl;
      const touchesSpecial = specials.some(([a, b]) => a < lineEnd && b > start);
      const normalized = text.slice(start, lineEnd).trim();
      if (!touchesSpecial && normalized.length >= minChars) {
        const h = h64(normalized);
        if (!distinct || !seen.has(h)) out.push(Number(h >> 32n), Number(BigInt.asUintN(32, h)), start, lineEnd);
        seen.add(h);
      }
      start = nl < 0 ? text.length : nl + 1;
    }
    return out;
  };
}
