import { forEachNgram, mix32, tokenize, type TokenSeq } from './tokens.js';

/**
 * MinHash over token n-gram shingles. Permutation i of a shingle hash h is mix32(h ^ seed_i)
 * (seeds from a fixed generator), the usual stand-in for k independent permutations; the
 * fraction of equal positions of two signatures estimates the Jaccard similarity of the
 * shingle sets with standard error sqrt(J(1 - J) / k).
 */
export interface MinHashParams {
  /** Tokens per shingle. */
  shingle: number;
  /** Signature length k = bands × rows. */
  bands: number;
  rows: number;
}

export function permutationSeeds(k: number): Uint32Array {
  const seeds = new Uint32Array(k);
  let x = 0x6d2b79f5;
  for (let i = 0; i < k; i++) {
    x = (x + 0x9e3779b9) >>> 0;
    seeds[i] = mix32(x);
  }
  return seeds;
}

/** The shingle hashes of a token sequence (32 bits each, the two lanes folded). */
export function shingleHashes(seq: TokenSeq, shingle: number): Uint32Array {
  const out = new Uint32Array(Math.max(0, seq.length - shingle + 1) || (seq.length ? 1 : 0));
  let n = 0;
  forEachNgram(seq, shingle, (hi, lo) => {
    out[n++] = (hi ^ Math.imul(lo, 0x9e3779b1)) >>> 0;
  });
  return out;
}

export function signatureOf(shingles: Uint32Array, seeds: Uint32Array): Uint32Array {
  const k = seeds.length;
  const sig = new Uint32Array(k).fill(0xffffffff);
  for (let s = 0; s < shingles.length; s++) {
    const h = shingles[s]!;
    for (let i = 0; i < k; i++) {
      const v = mix32(h ^ seeds[i]!);
      if (v < sig[i]!) sig[i] = v;
    }
  }
  return sig;
}

export function minhashSignature(text: string, params: MinHashParams, seeds = permutationSeeds(params.bands * params.rows)): Uint32Array {
  return signatureOf(shingleHashes(tokenize(text), params.shingle), seeds);
}

export function estimatedJaccard(a: Uint32Array, b: Uint32Array): number {
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
}

/** Exact Jaccard similarity of two texts' shingle sets (the truth the estimate is measured against). */
export function exactJaccard(a: string, b: string, shingle: number): number {
  const sa = new Set(shingleHashes(tokenize(a), shingle));
  const sb = new Set(shingleHashes(tokenize(b), shingle));
  let inter = 0;
  for (const h of sa) if (sb.has(h)) inter++;
  const union = sa.size + sb.size - inter;
  return union === 0 ? 1 : inter / union;
}

/**
 * The probability that a pair of Jaccard similarity s shares at least one band (becomes a
 * candidate): 1 - (1 - s^rows)^bands. Stated in the docs for the defaults.
 */
export function candidateProbability(s: number, bands: number, rows: number): number {
  return 1 - (1 - s ** rows) ** bands;
}
