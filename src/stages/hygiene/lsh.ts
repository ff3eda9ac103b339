import { closeSync, openSync, readSync } from 'node:fs';
import { hex64, NAME_BYTES, readName, type IndexHeader } from './dedup-index.js';
import { estimatedJaccard } from './minhash.js';
import { RecordCursor } from './record-runs.js';
import { mix32 } from './tokens.js';

/**
 * Near-duplicate clusters from the signatures of a (merged) dedup index: LSH banding, then
 * verification of every candidate pair on the full signatures, then connected components.
 *
 * Memory, set by `memoryBytes` and not by the text: 8 bytes per item for the keys and 4 for
 * the union-find, plus 12 bytes per item for each band held at once; the bands are processed
 * in as many passes over the index as the budget needs. Verification reads the two
 * signatures from the file.
 */
export interface NearCluster {
  /** Index of the kept member (smallest item key) and the members' indexes. */
  keeper: number;
  members: number[];
}

/** Buckets larger than this are verified as a star around their first member, so one huge bucket costs linear work. */
const FULL_CHECK_BUCKET = 64;

export class SignatureFile {
  private readonly fd: number;
  private readonly buf: Buffer;
  readonly k: number;

  constructor(
    readonly path: string,
    readonly header: IndexHeader,
  ) {
    const near = header.sections.near!;
    this.k = header.params.near!.bands * header.params.near!.rows;
    this.fd = openSync(path, 'r');
    this.buf = Buffer.alloc(near.record_bytes);
  }

  signature(i: number): Uint32Array {
    const near = this.header.sections.near!;
    readSync(this.fd, this.buf, 0, near.record_bytes, near.offset + i * near.record_bytes);
    const sig = new Uint32Array(this.k);
    for (let j = 0; j < this.k; j++) sig[j] = this.buf.readUInt32LE(14 + NAME_BYTES + 4 * j);
    return sig;
  }

  name(i: number): string {
    const near = this.header.sections.near!;
    readSync(this.fd, this.buf, 0, near.record_bytes, near.offset + i * near.record_bytes);
    return readName(this.buf, 8);
  }

  keyHex(i: number): string {
    const near = this.header.sections.near!;
    readSync(this.fd, this.buf, 0, 8, near.offset + i * near.record_bytes);
    return hex64(this.buf.readUInt32LE(4), this.buf.readUInt32LE(0));
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * Calls `onPair(i, j, estimate)` for every verified pair (estimated Jaccard >= threshold),
 * possibly more than once for a pair that shares several bands.
 */
export function verifiedPairs(file: SignatureFile, threshold: number, memoryBytes: number, onPair: (i: number, j: number, estimate: number) => void): void {
  const { header } = file;
  const near = header.sections.near!;
  const p = header.params.near!;
  const n = near.records;
  if (n < 2) return;
  const perPass = Math.max(1, Math.min(p.bands, Math.floor(memoryBytes / (n * 12))));
  const hi = new Uint32Array(n * perPass);
  const lo = new Uint32Array(n * perPass);
  const cache = new Map<number, Uint32Array>();
  const sig = (i: number) => {
    let s = cache.get(i);
    if (!s) {
      if (cache.size > 4096) cache.clear();
      s = file.signature(i);
      cache.set(i, s);
    }
    return s;
  };
  for (let b0 = 0; b0 < p.bands; b0 += perPass) {
    const bands = Math.min(perPass, p.bands - b0);
    let i = 0;
    for (const c = new RecordCursor(file.path, near.record_bytes, near.offset, n); !c.done; c.next(), i++) {
      for (let b = 0; b < bands; b++) {
        let a = 0x811c9dc5 ^ (b0 + b);
        let z = 0x2545f491;
        for (let r = 0; r < p.rows; r++) {
          const v = c.buf.readUInt32LE(c.at + 14 + NAME_BYTES + 4 * ((b0 + b) * p.rows + r));
          a = Math.imul(a ^ v, 0x01000193);
          z = Math.imul((z << 7) | (z >>> 25), 0x9e3779b1) ^ v;
        }
        hi[b * n + i] = mix32(a);
        lo[b * n + i] = mix32(z);
      }
    }
    for (let b = 0; b < bands; b++) {
      const order = Array.from({ length: n }, (_, k) => k);
      const off = b * n;
      order.sort((x, y) => hi[off + x]! - hi[off + y]! || lo[off + x]! - lo[off + y]! || x - y);
      for (let s = 0; s < n; ) {
        let e = s + 1;
        while (e < n && hi[off + order[e]!] === hi[off + order[s]!] && lo[off + order[e]!] === lo[off + order[s]!]) e++;
        if (e - s > 1) checkBucket(order.slice(s, e), sig, threshold, onPair);
        s = e;
      }
    }
  }
}

function checkBucket(members: number[], sig: (i: number) => Uint32Array, threshold: number, onPair: (i: number, j: number, estimate: number) => void): void {
  const full = members.length <= FULL_CHECK_BUCKET;
  for (let x = 0; x < members.length; x++) {
    const until = full || x === 0 ? members.length : Math.min(members.length, x + 2);
    for (let y = x + 1; y < until; y++) {
      const i = members[x]!;
      const j = members[y]!;
      const est = estimatedJaccard(sig(i), sig(j));
      if (est >= threshold) onPair(Math.min(i, j), Math.max(i, j), est);
    }
  }
}

/** Connected components of the verified pairs; singletons are left out. Records are sorted by item key, so the smallest index is the keeper. */
export function nearClusters(file: SignatureFile, threshold: number, memoryBytes: number): NearCluster[] {
  const n = file.header.sections.near!.records;
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  verifiedPairs(file, threshold, memoryBytes, (i, j) => {
    const a = find(i);
    const b = find(j);
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
  });
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    if (r === i && byRoot.get(r) === undefined) continue;
    const m = byRoot.get(r) ?? [r];
    if (r !== i) m.push(i);
    byRoot.set(r, m);
  }
  return [...byRoot.entries()].filter(([, m]) => m.length > 1).map(([keeper, members]) => ({ keeper, members }));
}

export const pairKey = (a: string, b: string) => (a < b ? `${a}\t${b}` : `${b}\t${a}`);

/** The verified pairs by item name (`a\tb`, a < b) with their estimated Jaccard: what recall and precision are measured on. */
export function namedPairs(file: SignatureFile, threshold: number, memoryBytes: number): Map<string, number> {
  const seen = new Map<number, number>();
  const n = file.header.sections.near!.records;
  verifiedPairs(file, threshold, memoryBytes, (i, j, est) => seen.set(i * n + j, est));
  const out = new Map<string, number>();
  for (const [k, est] of seen) out.set(pairKey(file.name(Math.floor(k / n)), file.name(k % n)), est);
  return out;
}
