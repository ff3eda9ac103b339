import { writeFileAtomic } from '../write/files.js';
import { MIXTURE_BUCKETS, bucketOf, unitHash } from './unit-hash.js';
import { checkRankSet } from '../core/ranks.js';
import { readFileAnySync } from '../io/storage.js';

/**
 * Per source, the available tokens (and documents) by hash bucket: what the sampling thresholds
 * are chosen from. Histograms of ranks merge by addition, so thresholds from the merged counts are
 * those one rank holding everything would choose.
 */
export interface SourceCounts {
  documents: number;
  tokens: number;
  buckets: Float64Array;
}

export interface MixtureCountsJson {
  format: 'midpack-mixture-counts';
  version: 1;
  seed: number;
  buckets: number;
  /** The ranks whose units these are (one for a rank's file, all of them once merged). */
  ranks: number[];
  world_size: number;
  /** Ranks merged without (`mixture merge --allow-missing-ranks`): these counts are not the whole run's. */
  missing_ranks?: number[];
  /** Sparse: [bucket, tokens, documents] for every bucket holding a unit. */
  sources: Record<string, { documents: number; tokens: number; bins: [number, number, number][] }>;
}

export class MixtureCounts {
  readonly sources = new Map<string, SourceCounts & { docs: Uint32Array }>();

  constructor(
    readonly seed: number,
    readonly ranks: number[] = [0],
    readonly worldSize = 1,
    readonly bucketCount = MIXTURE_BUCKETS,
    readonly missingRanks: number[] = [],
  ) {}

  /** Declares a source (a source with no documents still has figures). */
  source(name: string): SourceCounts & { docs: Uint32Array } {
    let s = this.sources.get(name);
    if (!s) {
      s = { documents: 0, tokens: 0, buckets: new Float64Array(this.bucketCount), docs: new Uint32Array(this.bucketCount) };
      this.sources.set(name, s);
    }
    return s;
  }

  add(source: string, id: string, tokens: number): void {
    this.addAt(source, bucketOf(unitHash(this.seed, source, id), this.bucketCount), tokens, 1);
  }

  private addAt(source: string, bucket: number, tokens: number, docs: number): void {
    const s = this.source(source);
    s.documents += docs;
    s.tokens += tokens;
    s.buckets[bucket]! += tokens;
    s.docs[bucket]! += docs;
  }

  toJSON(): MixtureCountsJson {
    const sources: MixtureCountsJson['sources'] = {};
    for (const name of [...this.sources.keys()].sort()) {
      const s = this.sources.get(name)!;
      const bins: [number, number, number][] = [];
      for (let b = 0; b < this.bucketCount; b++) if (s.docs[b]) bins.push([b, s.buckets[b]!, s.docs[b]!]);
      sources[name] = { documents: s.documents, tokens: s.tokens, bins };
    }
    return { format: 'midpack-mixture-counts', version: 1, seed: this.seed, buckets: this.bucketCount, ranks: this.ranks, world_size: this.worldSize, ...(this.missingRanks.length ? { missing_ranks: this.missingRanks } : {}), sources };
  }

  write(path: string): void {
    writeFileAtomic(path, JSON.stringify(this.toJSON()) + '\n');
  }

  static fromJSON(j: MixtureCountsJson, what = 'mixture counts'): MixtureCounts {
    if (j?.format !== 'midpack-mixture-counts' || j.version !== 1) throw new Error(`${what}: not a midpack mixture counts file (format ${JSON.stringify(j?.format)}, version ${JSON.stringify(j?.version)})`);
    const c = new MixtureCounts(j.seed, j.ranks, j.world_size, j.buckets, j.missing_ranks ?? []);
    for (const [name, s] of Object.entries(j.sources)) {
      c.source(name);
      for (const [b, tokens, docs] of s.bins) c.addAt(name, b, tokens, docs);
    }
    return c;
  }

  static read(path: string): MixtureCounts {
    let j: MixtureCountsJson;
    try {
      j = JSON.parse(readFileAnySync(path).toString('utf8')) as MixtureCountsJson;
    } catch (e) {
      throw new Error(`mixture counts ${path}: not readable: ${(e as Error).message}`);
    }
    return MixtureCounts.fromJSON(j, path);
  }

  /**
   * The counts of ranks 0..W-1 of one run, added bucket by bucket. Refuses other seeds and a rank
   * given twice, naming them; a rank missing unless `allowMissing` (then recorded in the result).
   */
  static merge(parts: { counts: MixtureCounts; name: string }[], allowMissing = false): MixtureCounts {
    if (parts.length === 0) throw new Error('mixture merge: no counts given');
    const first = parts[0]!.counts;
    for (const { counts, name } of parts) {
      if (counts.seed !== first.seed) throw new Error(`mixture merge: ${name} has seed ${counts.seed}, ${parts[0]!.name} has ${first.seed}`);
      if (counts.bucketCount !== first.bucketCount) throw new Error(`mixture merge: ${name} has ${counts.bucketCount} buckets, ${parts[0]!.name} ${first.bucketCount}`);
    }
    const set = checkRankSet('mixture merge', parts.map(({ counts, name }) => ({ ranks: counts.ranks, worldSize: counts.worldSize, name })), allowMissing);
    const out = new MixtureCounts(first.seed, set.ranks, set.worldSize, first.bucketCount, set.missing);
    for (const { counts } of parts) {
      for (const [name, s] of counts.sources) {
        const o = out.source(name);
        o.documents += s.documents;
        o.tokens += s.tokens;
        for (let b = 0; b < out.bucketCount; b++) {
          o.buckets[b]! += s.buckets[b]!;
          o.docs[b]! += s.docs[b]!;
        }
      }
    }
    return out;
  }
}
