import { createHash } from 'node:crypto';

/**
 * Seeded randomness that depends only on (seed, identity), never on arrival order,
 * so any number of workers or ranks make the same choices.
 */
export function hash64(...parts: (string | number)[]): bigint {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(String(p));
    h.update('\u0000');
  }
  return h.digest().readBigUInt64LE(0);
}

/** A short stable hex id from parts: used for document ids. */
export function stableId(...parts: (string | number)[]): string {
  return hash64(...parts).toString(16).padStart(16, '0');
}

/** A small fast PRNG (sfc32) seeded from (seed, identity). */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(...identity: (string | number)[]) {
    const digest = createHash('sha256').update(identity.map(String).join('\u0000')).digest();
    this.a = digest.readUInt32LE(0);
    this.b = digest.readUInt32LE(4);
    this.c = digest.readUInt32LE(8);
    this.d = digest.readUInt32LE(12);
    for (let i = 0; i < 12; i++) this.nextU32();
  }

  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [lo, hi). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo));
  }

  /** Picks a key by weight, e.g. {alpha: 0.3, dependency: 0.5, random: 0.2}. */
  weighted<K extends string>(weights: Record<K, number>): K {
    const entries = (Object.entries(weights) as [K, number][]).filter(([, w]) => w > 0);
    const total = entries.reduce((s, [, w]) => s + w, 0);
    let x = this.next() * total;
    for (const [k, w] of entries) {
      x -= w;
      if (x < 0) return k;
    }
    return entries[entries.length - 1]![0];
  }

  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.int(0, i + 1);
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  }
}
