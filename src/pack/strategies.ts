import { cutDocument } from './cut.js';
import { resolvePackerOptions, StreamingPacker, type OverlongPolicy, type Packer, type PackerOptions, type PackerStats, type ResolvedPackerOptions } from './packer.js';
import { TsStreamingPacker } from './ts-packer.js';

/** Figures of one packing strategy over the same document lengths (definitions in docs/packing.md). */
export interface StrategyFigures {
  /** Units with at least one bin holding only part of them, over all units. */
  fragmentation_rate: number;
  /** Padding tokens over bins × L. */
  padding_rate: number;
  bins: number;
  /** ceil(tokens / L). */
  lower_bound: number;
  /** Tokens of the input documents. */
  tokens: number;
  /** Packing units: documents after the overlong policy. */
  units: number;
  /** Documents longer than L. */
  overlong_docs: number;
  /** Tokens of the input that no bin holds (dropped or truncated away). */
  dropped_tokens: number;
  /** Tokens that bins hold twice: slide overlaps, repeated boundary headers, RLD restarts. */
  duplicated_tokens: number;
  fragmented_units: number;
  padding_tokens: number;
}

export interface CompareOptions {
  capacity: number;
  overlong: OverlongPolicy;
  slideStride?: number;
  windowUnits?: number;
  maxOpenBins?: number;
  /** Which best-fit implementation computes the two BFP columns; default 'native'. */
  implementation?: 'native' | 'ts';
}

/** The strategy keys in the order Table 13 lists them, the last named after the policy. */
export function strategyNames(overlong: OverlongPolicy): string[] {
  return ['concat_split', 'rld', 'pld', 'bfp', `bfp_${overlong}`];
}

interface Tally {
  bins: number;
  padding: number;
  fragmented: number;
  duplicated: number;
}

/**
 * The three sequential baselines of Table 13, fed unit lengths in order:
 * - concat-then-split: units joined and cut every L tokens; a unit is fragmented when it crosses a cut.
 * - restart-last-document: a unit that does not fit the rest of the bin fills it with its head
 *   (fragmented, those tokens duplicated) and starts again whole in the next bin.
 * - pad-last-document: a unit that does not fit the rest of the bin moves whole to the next; the
 *   rest is padding.
 */
class SequentialBaselines {
  private concatPos = 0;
  private concatFragmented = 0;
  private rld: Tally = { bins: 0, padding: 0, fragmented: 0, duplicated: 0 };
  private rldRoom = 0;
  private pld: Tally = { bins: 0, padding: 0, fragmented: 0, duplicated: 0 };
  private pldRoom = 0;

  constructor(private readonly L: number) {}

  add(n: number): void {
    const L = this.L;
    if (n > 0 && Math.floor(this.concatPos / L) !== Math.floor((this.concatPos + n - 1) / L)) this.concatFragmented++;
    this.concatPos += n;

    if (n <= this.rldRoom) this.rldRoom -= n;
    else {
      if (this.rldRoom > 0) {
        this.rld.fragmented++;
        this.rld.duplicated += this.rldRoom;
      }
      this.rld.bins++;
      this.rldRoom = L - n;
    }

    if (n <= this.pldRoom) this.pldRoom -= n;
    else {
      this.pld.padding += this.pldRoom;
      this.pld.bins++;
      this.pldRoom = L - n;
    }
  }

  finish(): { concat_split: Tally; rld: Tally; pld: Tally } {
    const concatBins = Math.ceil(this.concatPos / this.L);
    return {
      concat_split: { bins: concatBins, padding: concatBins * this.L - this.concatPos, fragmented: this.concatFragmented, duplicated: 0 },
      rld: { ...this.rld, padding: this.rld.padding + this.rldRoom },
      pld: { ...this.pld, padding: this.pld.padding + this.pldRoom },
    };
  }
}

/**
 * Streams document lengths through all five strategies of Table 13 at once: memory is bounded
 * by the packers' windows, not by the number of lengths.
 */
export class StrategyComparer {
  private readonly opts: ResolvedPackerOptions;
  private readonly baselines: SequentialBaselines;
  private readonly plain: Packer;
  private readonly withPolicy: Packer;
  private tokens = 0;
  private units = 0;
  private overlongDocs = 0;
  private droppedTokens = 0;
  private duplicatedTokens = 0;
  private docs = 0;

  constructor(opts: CompareOptions) {
    this.opts = resolvePackerOptions(opts);
    this.baselines = new SequentialBaselines(this.opts.capacity);
    const make = (o: PackerOptions): Packer => (opts.implementation === 'ts' ? new TsStreamingPacker(o) : new StreamingPacker(o));
    const common = { capacity: this.opts.capacity, slideStride: this.opts.slideStride, windowUnits: this.opts.windowUnits, maxOpenBins: this.opts.maxOpenBins };
    this.plain = make({ ...common, overlong: 'truncate' });
    this.withPolicy = make({ ...common, overlong: this.opts.overlong });
  }

  push(lengths: ArrayLike<number>): void {
    const batch = toLengths(lengths, this.docs);
    this.docs += batch.length;
    const L = this.opts.capacity;
    const addUnit = (s: number, e: number, h: number) => {
      this.units++;
      this.baselines.add(h + e - s);
    };
    for (let i = 0; i < batch.length; i++) {
      const len = batch[i]!;
      this.tokens += len;
      if (len <= L) {
        this.units++;
        this.baselines.add(len);
        continue;
      }
      this.overlongDocs++;
      const r = cutDocument(len, this.opts, addUnit);
      this.droppedTokens += r.droppedTokens;
      this.duplicatedTokens += r.duplicatedTokens;
    }
    // Only the figures matter here: the closed bins are let go at once.
    this.plain.push({ lengths: batch });
    this.withPolicy.push({ lengths: batch });
  }

  finish(): Record<string, StrategyFigures> {
    const L = this.opts.capacity;
    const lowerBound = Math.ceil(this.tokens / L);
    const figures = (t: Tally, units: number, dropped: number, duplicated: number): StrategyFigures => ({
      fragmentation_rate: units ? t.fragmented / units : 0,
      padding_rate: t.bins ? t.padding / (t.bins * L) : 0,
      bins: t.bins,
      lower_bound: lowerBound,
      tokens: this.tokens,
      units,
      overlong_docs: this.overlongDocs,
      dropped_tokens: dropped,
      duplicated_tokens: duplicated,
      fragmented_units: t.fragmented,
      padding_tokens: t.padding,
    });
    const packed = (p: Packer): StrategyFigures => {
      p.finish();
      const s: PackerStats = p.stats();
      // Best fit never splits a unit across bins.
      return figures({ bins: s.bins, padding: s.paddingTokens, fragmented: 0, duplicated: 0 }, s.units, s.droppedTokens, s.duplicatedTokens);
    };
    const b = this.baselines.finish();
    const [concat, rld, pld, bfp, bfpPolicy] = strategyNames(this.opts.overlong) as [string, string, string, string, string];
    return {
      [concat]: figures(b.concat_split, this.units, this.droppedTokens, this.duplicatedTokens),
      [rld]: figures(b.rld, this.units, this.droppedTokens, this.duplicatedTokens + b.rld.duplicated),
      [pld]: figures(b.pld, this.units, this.droppedTokens, this.duplicatedTokens),
      [bfp]: packed(this.plain),
      [bfpPolicy]: packed(this.withPolicy),
    };
  }
}

/** Pure function over lengths (TRL data_utils style): the five strategies side by side. */
export function compareStrategies(lengths: ArrayLike<number>, opts: CompareOptions): Record<string, StrategyFigures> {
  const c = new StrategyComparer(opts);
  c.push(lengths);
  return c.finish();
}

/** Lengths as a Uint32Array, rejecting values that are not token counts (naming the document). */
function toLengths(lengths: ArrayLike<number>, firstDoc: number): Uint32Array {
  if (lengths instanceof Uint32Array) return lengths;
  const out = new Uint32Array(lengths.length);
  for (let i = 0; i < lengths.length; i++) {
    const v = lengths[i]!;
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`document ${firstDoc + i}: length must be an integer in [0, 2^32), got ${v}`);
    out[i] = v;
  }
  return out;
}
