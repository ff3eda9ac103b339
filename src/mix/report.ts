import type { MixturePlan } from './plan.js';

/**
 * The report's and manifest's `mixture` section: per source the target, what was available,
 * the decisions, and what the bins actually hold (achieved, counted from the packed units).
 */
export interface MixtureSourceFigures {
  target_share: number;
  target_tokens: number;
  achieved_share: number;
  achieved_tokens: number;
  /** Documents that start in the packed bins (repeats included). */
  achieved_documents: number;
  available_tokens: number;
  available_documents: number;
  repeat_factor: number;
  max_repeat: number;
  /** Repeat documents made (`ID#rN`). */
  repeated_documents: number;
  /** Documents (and their tokens) the sampling left out. */
  dropped_by_sampling: number;
  dropped_by_sampling_tokens: number;
  shortfall_tokens: number;
  /** The tokens the plan's decisions keep, repeats counted at their first use's length. */
  planned_tokens: number;
  /** The step the sampling threshold moves in: the tokens of the fullest hash bucket (about one document). */
  step_tokens: number;
  /** achieved_share - target_share, in percentage points. */
  error_points: number;
  /** Why the share is more than 0.5 points off its target, when it is. */
  reason?: string;
}

export interface MixtureReport {
  seed: number;
  total_target_tokens: number;
  total_from: MixturePlan['total_from'];
  achieved_tokens: number;
  /** The largest |achieved_share - target_share| over the sources, in percentage points. */
  max_error_points: number;
  shortfalls: string[];
  sources: Record<string, MixtureSourceFigures>;
  /** pack.perSource: the Megatron blend line and the file holding it. */
  blend?: { data_path: string; file: string };
}

/** What one run did per source, counted as it happened. */
export class MixtureTally {
  readonly perSource = new Map<string, { achievedTokens: number; achievedDocs: number; repeatedDocs: number; droppedDocs: number; droppedTokens: number }>();

  private get(name: string) {
    let t = this.perSource.get(name);
    if (!t) {
      t = { achievedTokens: 0, achievedDocs: 0, repeatedDocs: 0, droppedDocs: 0, droppedTokens: 0 };
      this.perSource.set(name, t);
    }
    return t;
  }

  /** What the packed output holds of a source (the pack's by_mixture_source figures). */
  achieved(source: string, tokens: number, documents: number): void {
    const t = this.get(source);
    t.achievedTokens += tokens;
    t.achievedDocs += documents;
  }

  repeated(source: string): void {
    this.get(source).repeatedDocs++;
  }

  toJSON(): Record<string, { droppedDocs: number; droppedTokens: number; repeatedDocs: number }> {
    return Object.fromEntries([...this.perSource].map(([k, t]) => [k, { droppedDocs: t.droppedDocs, droppedTokens: t.droppedTokens, repeatedDocs: t.repeatedDocs }]));
  }

  /** The sampling's figures of an earlier run (resume), without what it packed. */
  static fromJSON(j: ReturnType<MixtureTally['toJSON']>): MixtureTally {
    const tally = new MixtureTally();
    for (const [k, v] of Object.entries(j)) Object.assign(tally.get(k), v);
    return tally;
  }

  dropped(source: string, tokens: number): void {
    const t = this.get(source);
    t.droppedDocs++;
    t.droppedTokens += tokens;
  }
}

export function mixtureReport(plan: MixturePlan, tally: MixtureTally, shortfalls: string[]): MixtureReport {
  const achievedTotal = [...tally.perSource.values()].reduce((s, t) => s + t.achievedTokens, 0);
  const sources: Record<string, MixtureSourceFigures> = {};
  for (const p of plan.sources) {
    const t = tally.perSource.get(p.name);
    const achieved = t?.achievedTokens ?? 0;
    const share = achievedTotal > 0 ? achieved / achievedTotal : 0;
    sources[p.name] = {
      target_share: p.target_share,
      target_tokens: p.target_tokens,
      achieved_share: share,
      achieved_tokens: achieved,
      achieved_documents: t?.achievedDocs ?? 0,
      available_tokens: p.available_tokens,
      available_documents: p.available_documents,
      repeat_factor: p.repeat_factor,
      max_repeat: p.max_repeat,
      repeated_documents: t?.repeatedDocs ?? 0,
      dropped_by_sampling: t?.droppedDocs ?? 0,
      dropped_by_sampling_tokens: t?.droppedTokens ?? 0,
      shortfall_tokens: p.shortfall_tokens,
      planned_tokens: p.planned_tokens,
      step_tokens: p.granularity_tokens,
      error_points: (share - p.target_share) * 100,
    };
    withReason(sources[p.name]!, achievedTotal);
  }
  return {
    seed: plan.seed,
    total_target_tokens: plan.total_target_tokens,
    total_from: plan.total_from,
    achieved_tokens: achievedTotal,
    max_error_points: maxError(sources),
    shortfalls,
    sources,
  };
}

/** The likely cause of a share off by more than half a point: too few tokens, repeats of another length, or documents too large for the step. */
function withReason(f: MixtureSourceFigures, total: number): void {
  delete f.reason;
  if (Math.abs(f.error_points) <= 0.5) return;
  const drift = f.achieved_tokens - f.planned_tokens;
  if (f.shortfall_tokens > 0.5) f.reason = `short by ${Math.round(f.shortfall_tokens)} tokens within maxRepeat ${f.max_repeat}`;
  else if (total > 0 && Math.abs(drift) / total > 0.0025) {
    f.reason = `the bins hold ${Math.abs(drift)} tokens ${drift > 0 ? 'more' : 'fewer'} than planned: repeats drawn afresh (FIM spans, templates, edit formats, file orders) differ in length from the first uses the plan counted them at`;
  } else if (total > 0 && f.step_tokens / total > 0.005) {
    f.reason = `documents too large for the target: the sampling moves in steps of about ${Math.round(f.step_tokens)} tokens (${((100 * f.step_tokens) / total).toFixed(2)} points)`;
  } else f.reason = 'other sources are off their targets (the shares are of the packed total)';
}

function maxError(sources: Record<string, MixtureSourceFigures>): number {
  return Math.max(0, ...Object.values(sources).map((s) => Math.abs(s.error_points)));
}

/**
 * The mixture of a multi-rank run: the plan's figures (from the merged counts, the same on every
 * rank) kept once, the counts summed, the shares recomputed from the sums.
 */
export function mergeMixtureReports(parts: readonly MixtureReport[]): MixtureReport {
  const first = parts[0]!;
  const achievedTotal = parts.reduce((s, r) => s + r.achieved_tokens, 0);
  const sources: Record<string, MixtureSourceFigures> = {};
  for (const [name, f] of Object.entries(first.sources)) {
    const sum = (k: keyof MixtureSourceFigures) => parts.reduce((s, r) => s + ((r.sources[name]?.[k] as number | undefined) ?? 0), 0);
    const achieved = sum('achieved_tokens');
    const share = achievedTotal > 0 ? achieved / achievedTotal : 0;
    sources[name] = {
      ...f,
      achieved_share: share,
      achieved_tokens: achieved,
      achieved_documents: sum('achieved_documents'),
      repeated_documents: sum('repeated_documents'),
      dropped_by_sampling: sum('dropped_by_sampling'),
      dropped_by_sampling_tokens: sum('dropped_by_sampling_tokens'),
      error_points: (share - f.target_share) * 100,
    };
    // The shares of the merged output, not rank 0's: their reason is found again.
    withReason(sources[name]!, achievedTotal);
  }
  return { ...first, achieved_tokens: achievedTotal, max_error_points: maxError(sources), sources };
}

/**
 * Megatron's blend: `--data-path W1 PREFIX1 W2 PREFIX2 ...`, the weights the target shares (Megatron
 * normalizes them), sources without tokens left out (an empty dataset cannot be sampled from).
 */
export function blendLine(plan: MixturePlan, prefixOf: (source: string) => string, available: (source: string) => boolean = () => true): string {
  const parts = plan.sources.filter((s) => s.target_share > 0 && available(s.name)).flatMap((s) => [String(s.target_share), prefixOf(s.name)]);
  return `--data-path ${parts.join(' ')}`;
}
