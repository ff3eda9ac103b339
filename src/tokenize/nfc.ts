import { NFC_UNKNOWN_TO_REFERENCE } from './nfc-reference-table.js';

/**
 * NFC of a text with a map from normalized offsets back to the original ones, in memory
 * proportional to the runs normalization changed (not to the text).
 *
 * NFC never composes or reorders across an ASCII character (each is a starter that no
 * composition takes as its second part), so the text is normalized in runs that start at an
 * ASCII character: a run of non-ASCII characters together with the ASCII character before it.
 * Offsets outside changed runs map exactly; a token inside a changed run is widened to the
 * whole run (so it is masked only if the whole run is).
 */
export interface NfcText {
  normalized: string;
  /** Original offset of a normalized one; `roundUp` for an end offset. */
  toOriginal: ((n: number, roundUp: boolean) => number) | null;
}

const NON_ASCII = /[^\x00-\x7f]+/g;

/** The characters the reference's (older) Unicode tables do not know (nfc-reference-table.ts). */
const UNKNOWN_G = new RegExp(`[${NFC_UNKNOWN_TO_REFERENCE.map(([a, b]) => `\\u{${a.toString(16)}}-\\u{${b.toString(16)}}`).join('')}]`, 'gu');
/** The same test by a scan (a regex class with astral ranges ran at about 30 MB/s): a BMP bitmap, astral ranges searched. */
const UNKNOWN_BMP = new Uint8Array(0x10000);
const UNKNOWN_ASTRAL = NFC_UNKNOWN_TO_REFERENCE.filter(([, b]) => b >= 0x10000);
for (const [a, b] of NFC_UNKNOWN_TO_REFERENCE) for (let c = a; c <= Math.min(b, 0xffff); c++) UNKNOWN_BMP[c] = 1;
const FIRST_UNKNOWN = NFC_UNKNOWN_TO_REFERENCE[0]?.[0] ?? 0x110000;

function hasUnknown(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < FIRST_UNKNOWN) continue;
    if (c < 0xd800 || c >= 0xdc00) {
      if (UNKNOWN_BMP[c]) return true;
      continue;
    }
    const cp = text.codePointAt(i)!;
    if (cp >= 0x10000 && UNKNOWN_ASTRAL.some(([a, b]) => cp >= a && cp <= b)) return true;
  }
  return false;
}

/**
 * NFC as the Rust reference (HF tokenizers) applies it. Its Unicode tables are older than V8's,
 * and normalization is stable for characters already assigned, so the two differ only where a
 * text holds a character the reference does not know: to it an inert starter, across which
 * nothing reorders or composes. The text is normalized by V8 between those characters.
 */
export function referenceNfc(text: string): string {
  // A text V8 leaves unchanged the reference leaves unchanged: what V8 normalizes is a superset
  // of what the reference does (an unknown character only blocks), so most texts stop here.
  const v8 = text.normalize('NFC');
  if (v8 === text || !hasUnknown(text)) return v8;
  let out = '';
  let at = 0;
  UNKNOWN_G.lastIndex = 0;
  for (let m = UNKNOWN_G.exec(text); m; m = UNKNOWN_G.exec(text)) {
    out += text.slice(at, m.index).normalize('NFC') + m[0];
    at = m.index + m[0].length;
  }
  return out + text.slice(at).normalize('NFC');
}

export function nfcWithMap(original: string): NfcText {
  const normalized = referenceNfc(original);
  if (normalized === original) return { normalized, toOriginal: null };
  // Changed runs: original [os, oe) became normalized [ns, ne).
  const os: number[] = [];
  const oe: number[] = [];
  const ns: number[] = [];
  const ne: number[] = [];
  let shift = 0; // normalized minus original length so far
  NON_ASCII.lastIndex = 0;
  for (let m = NON_ASCII.exec(original); m; m = NON_ASCII.exec(original)) {
    const start = m.index > 0 ? m.index - 1 : 0;
    const end = m.index + m[0].length;
    const run = original.slice(start, end);
    const norm = referenceNfc(run);
    if (norm === run) continue;
    os.push(start);
    oe.push(end);
    ns.push(start + shift);
    shift += norm.length - run.length;
    ne.push(end + shift);
  }
  if (original.length + shift !== normalized.length) throw new Error('NFC offset map: runs do not add up');
  return {
    normalized,
    toOriginal: (n, roundUp) => {
      // The last changed run starting at or before n.
      let lo = 0;
      let hi = ns.length - 1;
      if (hi < 0 || n < ns[0]!) return n;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (ns[mid]! <= n) lo = mid;
        else hi = mid - 1;
      }
      if (n === ns[lo]) return os[lo]!;
      if (n >= ne[lo]!) return oe[lo]! + (n - ne[lo]!);
      return roundUp ? oe[lo]! : os[lo]!;
    },
  };
}

/**
 * Whether a tokenizer.json's normalizer is NFC (alone, or a Sequence of NFC steps). None, and
 * an empty Sequence (DeepSeek-V3's), change nothing; another normalizer is left to the hf
 * backend's library (the fast backend refuses it).
 */
export function normalizerIsNfc(normalizer: unknown): boolean {
  const n = normalizer as { type?: string; normalizers?: unknown[] } | null | undefined;
  if (n?.type === 'NFC') return true;
  return n?.type === 'Sequence' && (n.normalizers?.length ?? 0) > 0 && n.normalizers!.every((s) => normalizerIsNfc(s));
}

/** A normalizer that changes nothing: none, or an empty Sequence. */
export function normalizerIsNone(normalizer: unknown): boolean {
  const n = normalizer as { type?: string; normalizers?: unknown[] } | null | undefined;
  return !n || (n.type === 'Sequence' && (n.normalizers?.length ?? 0) === 0);
}
