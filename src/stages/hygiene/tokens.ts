/**
 * The tokens hygiene works on: runs of letters, digits and `_`, and every other non-space
 * character on its own. Whitespace is never a token, so reindenting, rewrapping or changing
 * line endings leaves the token sequence as it was. Each token is hashed once (FNV-1a, 32
 * bits); n-grams combine the n token hashes in two independent 32-bit lanes, a 64-bit key
 * that the typed-array hash table of the masking stage stores as (hi, lo).
 */
const TOKEN = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;
const WORD = /[\p{L}\p{N}_]+/gu;

export interface TokenOptions {
  /** Compare case-insensitively. */
  lowercase?: boolean;
  /**
   * Replace identifiers (words that are not keywords and do not start with a digit) by one
   * symbol, so a copy with renamed variables has the same sequence.
   */
  abstractIdentifiers?: boolean;
  /** Words only (letters, digits, `_`): punctuation is dropped, as in the common 13-gram decontamination. */
  wordsOnly?: boolean;
}

/** Python and JavaScript keywords and the builtins solutions lean on: kept as themselves when identifiers are abstracted. */
const KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda ' +
    'nonlocal not or pass raise return try while with yield self print len range enumerate zip sorted sum min max abs int str float list dict set ' +
    'tuple map filter any all isinstance append join split strip lower upper reversed const let var function new this null undefined true false ' +
    'typeof instanceof switch case default do void delete throw catch of export extends static super'
  ).split(' '),
);

const ID_HASH = fnv1a('\u0000ID');

export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Visits every token: its [start, end) in the text and its hash. */
export function forEachToken(text: string, options: TokenOptions, visit: (start: number, end: number, hash: number) => void): void {
  const re = options.wordsOnly ? WORD : TOKEN;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let t = m[0];
    if (options.lowercase) t = t.toLowerCase();
    const word = t.length > 1 || /[\p{L}_]/u.test(t);
    const h = options.abstractIdentifiers && word && !/^\p{N}/u.test(t) && !KEYWORDS.has(t) ? ID_HASH : fnv1a(t);
    visit(m.index, m.index + m[0].length, h);
  }
}

/** A token sequence: hashes and character offsets, as typed arrays. */
export interface TokenSeq {
  hashes: Uint32Array;
  starts: Uint32Array;
  ends: Uint32Array;
  length: number;
}

export function tokenize(text: string, options: TokenOptions = {}): TokenSeq {
  let cap = 1024;
  let hashes = new Uint32Array(cap);
  let starts = new Uint32Array(cap);
  let ends = new Uint32Array(cap);
  let n = 0;
  forEachToken(text, options, (s, e, h) => {
    if (n === cap) {
      cap *= 2;
      const grow = (a: Uint32Array) => {
        const b = new Uint32Array(cap);
        b.set(a);
        return b;
      };
      hashes = grow(hashes);
      starts = grow(starts);
      ends = grow(ends);
    }
    hashes[n] = h;
    starts[n] = s;
    ends[n] = e;
    n++;
  });
  return { hashes, starts, ends, length: n };
}

/** murmur3's finalizer: a cheap 32-bit mix with full avalanche. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Visits the 64-bit hash of every n-gram (hi, lo) with the index of its first token. A
 * sequence shorter than n is one n-gram of all its tokens, so a short text still has one.
 */
export function forEachNgram(seq: TokenSeq, n: number, visit: (hi: number, lo: number, first: number) => void): void {
  const last = Math.max(0, seq.length - n);
  if (seq.length === 0) return;
  const width = Math.min(n, seq.length);
  for (let i = 0; i <= last; i++) {
    let a = 0x9747b28c;
    let b = 0x2545f491;
    for (let k = i; k < i + width; k++) {
      const t = seq.hashes[k]!;
      a = Math.imul(a ^ t, 0x01000193);
      b = Math.imul((b << 5) | (b >>> 27), 0x9e3779b1) ^ t;
    }
    visit(mix32(a ^ width), mix32(b + width), i);
  }
}
