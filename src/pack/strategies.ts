import { nativeBinding, type OverlongPolicy } from './packer.js';
import { planBins, resolvePlanOptions, type PlanOptions } from './planner.js';

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

export interface CompareOptions extends PlanOptions {
  capacity: number;
  overlong: OverlongPolicy;
}

/** Lengths in batches, streamable as often as the comparison needs them, the same each time. */
export type LengthSource = () => AsyncIterable<Uint32Array> | Iterable<Uint32Array>;

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
 * The five strategies of Table 13 over the same lengths. The three sequential baselines see the
 * units in the source's order; the two best-fit columns are what `midpack pack` does on these
 * lengths (the same whole-corpus planner, native core). Memory is bounded by the planner's
 * options, not by the number of lengths; the source is streamed several times.
 */
export async function compareStrategiesFrom(source: LengthSource, opts: Partial<CompareOptions>): Promise<Record<string, StrategyFigures>> {
  const o = resolvePlanOptions(opts);
  const L = o.capacity;
  const validated = async function* () {
    let docs = 0;
    for await (const raw of source()) {
      const lengths = toLengths(raw, docs);
      docs += lengths.length;
      yield { lengths };
    }
  };
  const baselines = new SequentialBaselines(L);
  const cut = { docs: 0, units: 0, tokens: 0, overlong: 0, dropped: 0, duplicated: 0 };
  for await (const { lengths } of validated()) {
    const c = nativeBinding().cutUnits(L, o.policyCode, o.slideStride, lengths);
    for (let i = 0; i < c.unitLength.length; i++) baselines.add(c.unitLength[i]!);
    cut.units += c.stats.units;
    cut.tokens += c.stats.tokens;
    cut.overlong += c.stats.overlongDocs;
    cut.dropped += c.stats.droppedTokens;
    cut.duplicated += c.stats.duplicatedTokens;
  }
  const lowerBound = Math.ceil(cut.tokens / L);
  const figures = (t: Tally, units: number, dropped: number, duplicated: number): StrategyFigures => ({
    fragmentation_rate: units ? t.fragmented / units : 0,
    padding_rate: t.bins ? t.padding / (t.bins * L) : 0,
    bins: t.bins,
    lower_bound: lowerBound,
    tokens: cut.tokens,
    units,
    overlong_docs: cut.overlong,
    dropped_tokens: dropped,
    duplicated_tokens: duplicated,
    fragmented_units: t.fragmented,
    padding_tokens: t.padding,
  });
  const planned = async (overlong: OverlongPolicy): Promise<StrategyFigures> => {
    // Only the figures matter here: the planned bins are let go at once.
    const s = await planBins(validated, { ...o, overlong }, () => {});
    return figures({ bins: s.bins, padding: s.paddingTokens, fragmented: s.fragmentedUnits, duplicated: 0 }, s.units, s.droppedTokens, s.duplicatedTokens);
  };
  const b = baselines.finish();
  const [concat, rld, pld, bfp, bfpPolicy] = strategyNames(o.overlong) as [string, string, string, string, string];
  return {
    [concat]: figures(b.concat_split, cut.units, cut.dropped, cut.duplicated),
    [rld]: figures(b.rld, cut.units, cut.dropped, cut.duplicated + b.rld.duplicated),
    [pld]: figures(b.pld, cut.units, cut.dropped, cut.duplicated),
    [bfp]: await planned('truncate'),
    [bfpPolicy]: await planned(o.overlong),
  };
}

/** The five strategies side by side over lengths held in memory (TRL data_utils style). */
export function compareStrategies(lengths: ArrayLike<number>, opts: Partial<CompareOptions>): Promise<Record<string, StrategyFigures>> {
  const batch = toLengths(lengths, 0);
  return compareStrategiesFrom(() => [batch], opts);
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

/**
 * One strategy's row of the Table 13 comparison, as `compare` and report.html show it: name,
 * fragmentation, padding, bins, lower bound, bins / lower bound, units, overlong documents,
 * dropped and duplicated tokens. `count` formats the counts (plain or with separators).
 */
export function strategyRow(name: string, f: StrategyFigures, count: (n: number) => string = String): string[] {
  const pct = (x: number, digits: number) => `${(100 * x).toFixed(digits)}%`;
  return [
    name,
    pct(f.fragmentation_rate, 2),
    pct(f.padding_rate, 4),
    count(f.bins),
    count(f.lower_bound),
    f.lower_bound ? (f.bins / f.lower_bound).toFixed(5) : '-',
    count(f.units),
    count(f.overlong_docs),
    count(f.dropped_tokens),
    count(f.duplicated_tokens),
  ];
}
