/**
 * The byte-level alphabet of GPT-2 style BPE vocabularies: every byte is written as one
 * printable character (printable Latin-1 bytes as themselves, the rest shifted to U+0100...).
 * A vocabulary token string is its bytes in this alphabet, so its length is its byte length.
 */
export const BYTE_TO_CHAR: string[] = (() => {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const out: string[] = [];
  let shifted = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCharCode(printable(b) ? b : 256 + shifted++);
  return out;
})();

/** Byte of each byte-level alphabet character by char code (-1 elsewhere): the alphabet lies below U+0200. */
const CODE_TO_BYTE = (() => {
  const t = new Int16Array(512).fill(-1);
  BYTE_TO_CHAR.forEach((c, b) => (t[c.charCodeAt(0)] = b));
  return t;
})();

/** The byte of the alphabet character at token[i], or -1 when it is outside the alphabet. */
const byteAt = (token: string, i: number): number => {
  const c = token.charCodeAt(i);
  return c < 512 ? CODE_TO_BYTE[c]! : -1;
};

/** The bytes of a vocabulary token, or undefined when it uses a character outside the alphabet. */
export function tokenBytes(token: string): Uint8Array | undefined {
  const out = new Uint8Array(token.length);
  for (let i = 0; i < token.length; i++) {
    const b = byteAt(token, i);
    if (b < 0) return undefined;
    out[i] = b;
  }
  return out;
}

/** UTF-8 length of the code point at text[unit], and how many UTF-16 units it takes. */
export function codePointWidth(text: string, unit: number): { bytes: number; units: number } {
  const c = text.codePointAt(unit)!;
  return { bytes: c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4, units: c >= 0x10000 ? 2 : 1 };
}

/**
 * Character ranges of a piece's tokens from their byte lengths: a token owns every character
 * it has a byte of, so a token that ends inside a multi-byte character owns that whole
 * character, and so does the token that holds the character's next bytes (their ranges
 * overlap by that character). Writes [start, end) in UTF-16 units of `piece` per token.
 */
export function tokenCharRanges(piece: string, byteLens: ArrayLike<number>, starts: Int32Array | number[], ends: Int32Array | number[], at = 0): void {
  let cpUnit = 0; // where the code point holding `byte` starts, in units and in bytes
  let cpByte = 0;
  let byte = 0;
  for (let i = 0; i < byteLens.length; i++) {
    const tokenEnd = byte + byteLens[i]!;
    for (let w = codePointWidth(piece, cpUnit); cpByte + w.bytes <= byte; w = codePointWidth(piece, cpUnit)) {
      cpByte += w.bytes;
      cpUnit += w.units;
    }
    let eUnit = cpUnit;
    let eByte = cpByte;
    while (eByte < tokenEnd) {
      const w = codePointWidth(piece, eUnit);
      eByte += w.bytes;
      eUnit += w.units;
    }
    starts[at + i] = cpUnit;
    ends[at + i] = eUnit;
    byte = tokenEnd;
  }
}

const BASE64 = Uint8Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', (c) => c.charCodeAt(0));

/**
 * A vocabulary of byte-level tokens as tiktoken's ranks file ("base64(bytes) id" a line),
 * written into one byte array: a worker builds it on load, and building it a token at a time
 * (a Buffer and two strings each) took most of the fast backend's start-up.
 */
export function tiktokenRanks(vocab: Record<string, number>): string {
  let size = 0;
  for (const token in vocab) size += 4 * Math.ceil(token.length / 3) + 12;
  const out = new Uint8Array(size);
  const bytes = new Uint8Array(3);
  let at = 0;
  for (const token in vocab) {
    for (let i = 0; i < token.length; i += 3) {
      const n = Math.min(3, token.length - i);
      for (let k = 0; k < 3; k++) bytes[k] = k < n ? byteOf(token, i + k) : 0;
      const v = (bytes[0]! << 16) | (bytes[1]! << 8) | bytes[2]!;
      out[at++] = BASE64[v >> 18]!;
      out[at++] = BASE64[(v >> 12) & 63]!;
      out[at++] = n > 1 ? BASE64[(v >> 6) & 63]! : 61; // '='
      out[at++] = n > 2 ? BASE64[v & 63]! : 61;
    }
    out[at++] = 32;
    const id = String(vocab[token]);
    for (let i = 0; i < id.length; i++) out[at++] = id.charCodeAt(i);
    out[at++] = 10;
  }
  return Buffer.from(out.buffer, 0, at > 0 ? at - 1 : 0).toString('latin1');
}

function byteOf(token: string, i: number): number {
  const b = byteAt(token, i);
  if (b < 0) throw new Error(`vocabulary token ${JSON.stringify(token)} is not byte-level`);
  return b;
}
