import type { MixtureCounts, SourceCounts } from './counts.js';
import type { MixtureSpec, SourceTarget } from './spec.js';
import { bucketOf, unitHash } from './unit-hash.js';

/**
 * The sampling decisions of a mixture, from the merged counts: per source the target tokens, the
 * repeat factor f = target / available capped by maxRepeat, the whole repeats floor(f), and the
 * bucket threshold of the fractional part: a unit whose hash bucket is below it is used once more.
 * The threshold is chosen from the histogram so the kept tokens are the closest to the target a
 * bucket boundary gives (off by at most the tokens of one bucket).
 */
export interface SourcePlan {
  name: string;
  target_tokens: number;
  target_share: number;
  available_tokens: number;
  available_documents: number;
  /** Uses of the source's tokens: achieved / available as planned, after the maxRepeat cap. */
  repeat_factor: number;
  whole_repeats: number;
  /** Units with a hash bucket below this get whole_repeats + 1 uses. */
  bucket_threshold: number;
  /** The tokens the decisions keep, from the counts (repeats counted at the original's length). */
  planned_tokens: number;
  /** Target tokens the source cannot give within maxRepeat (0 when met). */
  shortfall_tokens: number;
  max_repeat: number;
  /** Tokens of the fullest hash bucket: the step the threshold moves in (about one document's). */
  granularity_tokens: number;
}

export interface MixturePlan {
  seed: number;
  buckets: number;
  total_target_tokens: number;
  /** How the total was set: pack.tokens, the sum of the sources, or the largest the shares allow. */
  total_from: 'pack.tokens' | 'sources' | 'shares';
  sources: SourcePlan[];
}

export function planMixture(spec: MixtureSpec, counts: MixtureCounts): MixturePlan {
  const available = (name: string) => counts.sources.get(name)?.tokens ?? 0;
  const { targets, total, from } = targetTokens(spec.sources, available, spec.tokens);
  const sum = [...targets.values()].reduce((a, b) => a + b, 0);
  const sources = spec.sources.map((s) => sourcePlan(s, targets.get(s.name)!, sum, counts.sources.get(s.name), counts.bucketCount));
  return { seed: counts.seed, buckets: counts.bucketCount, total_target_tokens: total, total_from: from, sources };
}

/** Each source's target tokens (see docs/mixing.md, "Targets"). */
export function targetTokens(sources: SourceTarget[], available: (name: string) => number, total?: number): { targets: Map<string, number>; total: number; from: MixturePlan['total_from'] } {
  const targets = new Map<string, number>();
  const shares = sources.reduce((s, x) => s + (x.share ?? 0), 0);
  const untargeted = sources.filter((s) => s.share === undefined && s.tokens === undefined);
  let from: MixturePlan['total_from'] = 'pack.tokens';
  let T = total;
  if (T === undefined) {
    if (sources.every((s) => s.share !== undefined)) {
      // Shares only: the largest total every source can give within its maxRepeat.
      from = 'shares';
      T = Math.min(...sources.filter((s) => s.share! > 0).map((s) => (s.maxRepeat * available(s.name)) / s.share!));
      if (!Number.isFinite(T)) T = 0;
    } else {
      from = 'sources';
      const fixed = sources.reduce((sum, s) => sum + (s.share !== undefined ? 0 : (s.tokens ?? available(s.name))), 0);
      T = shares >= 1 ? fixed : fixed / (1 - shares);
    }
  }
  for (const s of sources) if (s.share !== undefined || s.tokens !== undefined) targets.set(s.name, s.tokens ?? s.share! * T);
  const assigned = [...targets.values()].reduce((a, b) => a + b, 0);
  // With pack.tokens, sources without a target share what is left, in proportion to their tokens.
  const rest = from === 'pack.tokens' ? Math.max(0, T - assigned) : undefined;
  const untargetedTokens = untargeted.reduce((sum, s) => sum + available(s.name), 0);
  for (const s of untargeted) targets.set(s.name, rest === undefined ? available(s.name) : untargetedTokens > 0 ? (rest * available(s.name)) / untargetedTokens : 0);
  return { targets, total: T, from };
}

function sourcePlan(s: SourceTarget, target: number, sum: number, c: SourceCounts | undefined, buckets: number): SourcePlan {
  const available = c?.tokens ?? 0;
  const wanted = available > 0 ? target / available : 0;
  const factor = Math.min(wanted, s.maxRepeat);
  const whole = Math.floor(factor + 1e-12);
  let threshold = 0;
  let kept = whole * available;
  if (c && factor - whole > 1e-12) {
    const want = (factor - whole) * available;
    // The bucket boundary whose tokens below it come closest to the fractional part.
    let below = 0;
    let best = Math.abs(want);
    for (let b = 0; b < buckets; b++) {
      below += c.buckets[b]!;
      const err = Math.abs(want - below);
      if (err < best) {
        best = err;
        threshold = b + 1;
      }
      if (below >= want) break;
    }
    kept += tokensBelow(c, threshold);
  }
  return {
    name: s.name,
    target_tokens: target,
    target_share: sum > 0 ? target / sum : 0,
    available_tokens: available,
    available_documents: c?.documents ?? 0,
    repeat_factor: factor,
    whole_repeats: whole,
    bucket_threshold: threshold,
    planned_tokens: kept,
    shortfall_tokens: Math.max(0, target - s.maxRepeat * available),
    max_repeat: s.maxRepeat,
    granularity_tokens: c ? fullestBucket(c.buckets) : 0,
  };
}

function fullestBucket(buckets: Float64Array): number {
  let m = 0;
  for (const t of buckets) if (t > m) m = t;
  return m;
}

function tokensBelow(c: SourceCounts, threshold: number): number {
  let t = 0;
  for (let b = 0; b < threshold; b++) t += c.buckets[b]!;
  return t;
}

/** How many times the unit (source, id) is used: 0 drops it, 1 keeps it, n > 1 adds n - 1 repeats. */
export function usesOf(plan: MixturePlan, byName: Map<string, SourcePlan>, source: string, id: string): number {
  const p = byName.get(source);
  if (!p) return 1;
  const extra = p.bucket_threshold > 0 && bucketOf(unitHash(plan.seed, source, id), plan.buckets) < p.bucket_threshold ? 1 : 0;
  return p.whole_repeats + extra;
}

/** Shortfalls as one line each, for the message before packing (and the --strict-mixture error). */
export function shortfallLines(plan: MixturePlan): string[] {
  return plan.sources
    .filter((s) => s.shortfall_tokens > 0.5)
    .map((s) => `${s.name}: target ${Math.round(s.target_tokens)} tokens, ${s.available_tokens} available × maxRepeat ${s.max_repeat} = ${Math.round(s.available_tokens * s.max_repeat)} (short by ${Math.round(s.shortfall_tokens)})`);
}
