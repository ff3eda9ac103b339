import { Ledger, isLedgerJson } from '../core/ledger.js';
import { mergeMixtureReports } from '../mix/report.js';
import { ratio, type GroupFigures, type Histogram, type PackingFigures, type ReportJson } from '../report/figures.js';

/**
 * The figures of a multi-rank run, recomputed from the ranks' reports: counts are summed,
 * every rate is recomputed from the sums (never averaged), histograms are added bucket by
 * bucket. Pure functions over the parsed report.json files, given in rank order.
 */

/** The most sources a merged report names, as in a single run (FiguresBuilder's default); the rest fold into "(other)". */
export const MAX_SOURCES = 1000;
const OTHER = '(other)';

export function mergeReports(reports: readonly ReportJson[]): ReportJson {
  if (reports.length === 0) throw new Error('mergeReports: no reports');
  const packing = mergePacking(reports.map((r) => r.packing));
  const masked = sum(reports, (r) => r.masked_tokens);
  const merged: ReportJson = {
    packing,
    masked_tokens: masked,
    masked_fraction: ratio(masked, packing.tokens),
    by_kind: mergeGroups(reports.map((r) => r.by_kind)),
    by_source: foldSmallest(mergeGroups(reports.map((r) => r.by_source)), MAX_SOURCES),
    by_ordering: mergeGroups(reports.map((r) => r.by_ordering)),
    by_language: mergeGroups(reports.map((r) => r.by_language)),
    doc_length_histogram: addHistograms(reports.map((r) => r.doc_length_histogram)),
    bin_fill_histogram: addHistograms(reports.map((r) => r.bin_fill_histogram)),
  };
  // Trajectory figures, where the ranks packed trajectories.
  const templates = reports.flatMap((r) => (r.by_template ? [r.by_template] : []));
  if (templates.length) merged.by_template = mergeGroups(templates);
  const cuts = reports.flatMap((r) => (r.turn_cuts ? [r.turn_cuts] : []));
  if (cuts.length) merged.turn_cuts = { trajectories_cut: sum(cuts, (c) => c.trajectories_cut), between_turns: sum(cuts, (c) => c.between_turns), inside_turn: sum(cuts, (c) => c.inside_turn) };
  const groups = reports.flatMap((r) => (r.doc_groups ? [r.doc_groups] : []));
  if (groups.length) merged.doc_groups = { groups: sum(groups, (g) => g.groups), grouped_docs: sum(groups, (g) => g.grouped_docs), groups_split: sum(groups, (g) => g.groups_split) };
  const mixtureGroups = reports.flatMap((r) => (r.by_mixture_source ? [r.by_mixture_source] : []));
  if (mixtureGroups.length) merged.by_mixture_source = mergeGroups(mixtureGroups);
  const mixtures = reports.flatMap((r) => (r.mixture ? [r.mixture] : []));
  if (mixtures.length) merged.mixture = mergeMixtureReports(mixtures);
  const stages = mergeStages(reports.map((r) => r.stages));
  if (stages) merged.stages = stages;
  return merged;
}

export function mergePacking(parts: readonly PackingFigures[]): PackingFigures {
  const first = parts[0]!;
  for (const p of parts) {
    // The manifests' configs were checked equal already; this guards the library entry point.
    if (p.seq_len !== first.seq_len || p.overlong_policy !== first.overlong_policy) {
      throw new Error(`reports disagree on seq_len/overlong_policy: ${first.seq_len}/${first.overlong_policy} vs ${p.seq_len}/${p.overlong_policy}`);
    }
  }
  const L = first.seq_len;
  const s = (f: (p: PackingFigures) => number) => sum(parts, f);
  const documents = s((p) => p.documents);
  const tokens = s((p) => p.tokens);
  const units = s((p) => p.units);
  const bins = s((p) => p.bins);
  const padding = s((p) => p.padding_tokens);
  const fragmented = s((p) => p.fragmented_units);
  const overlong = s((p) => p.overlong_docs);
  const lowerBound = Math.ceil(tokens / L);
  return {
    seq_len: L,
    overlong_policy: first.overlong_policy,
    documents,
    tokens,
    units,
    bins,
    lower_bound: lowerBound,
    bins_over_lower_bound: ratio(bins, lowerBound),
    padding_tokens: padding,
    padding_rate: ratio(padding, bins * L),
    fragmented_units: fragmented,
    fragmentation_rate: ratio(fragmented, units),
    overlong_docs: overlong,
    overlong_rate: ratio(overlong, documents),
    dropped_docs: s((p) => p.dropped_docs),
    dropped_tokens: s((p) => p.dropped_tokens),
    duplicated_tokens: s((p) => p.duplicated_tokens),
  };
}

/** Groups summed key by key, fractions recomputed, keys sorted as FiguresBuilder sorts them. */
export function mergeGroups(parts: readonly Record<string, GroupFigures>[]): Record<string, GroupFigures> {
  const acc = new Map<string, { documents: number; tokens: number; masked_tokens: number }>();
  for (const groups of parts) {
    for (const [k, g] of Object.entries(groups ?? {})) {
      const a = acc.get(k) ?? { documents: 0, tokens: 0, masked_tokens: 0 };
      a.documents += g.documents;
      a.tokens += g.tokens;
      a.masked_tokens += g.masked_tokens;
      acc.set(k, a);
    }
  }
  return Object.fromEntries([...acc.keys()].sort().map((k) => [k, withFraction(acc.get(k)!)]));
}

function withFraction(g: { documents: number; tokens: number; masked_tokens: number }): GroupFigures {
  return { ...g, masked_fraction: ratio(g.masked_tokens, g.tokens) };
}

/**
 * Keeps the `max` - 1 groups with the most tokens (ties by name) and folds the rest into
 * "(other)", so the merged report stays bounded however many ranks there are.
 */
export function foldSmallest(groups: Record<string, GroupFigures>, max: number): Record<string, GroupFigures> {
  const keys = Object.keys(groups);
  if (keys.length <= max) return groups;
  const ranked = keys.filter((k) => k !== OTHER).sort((a, b) => groups[b]!.tokens - groups[a]!.tokens || (a < b ? -1 : 1));
  const kept = new Set(ranked.slice(0, max - 1));
  const other = { documents: 0, tokens: 0, masked_tokens: 0 };
  for (const k of keys) {
    if (kept.has(k)) continue;
    other.documents += groups[k]!.documents;
    other.tokens += groups[k]!.tokens;
    other.masked_tokens += groups[k]!.masked_tokens;
  }
  const out: Record<string, GroupFigures> = {};
  for (const k of [...kept, OTHER].sort()) out[k] = k === OTHER ? withFraction(other) : groups[k]!;
  return out;
}

/** Histograms added bucket by bucket, aligned on their edges (a rank's trimmed histogram has fewer). */
export function addHistograms(parts: readonly Histogram[]): Histogram {
  const counts = new Map<number, number>();
  for (const h of parts) {
    if (h.edges.length !== h.counts.length) throw new Error(`histogram has ${h.edges.length} edges but ${h.counts.length} counts`);
    h.edges.forEach((e, i) => counts.set(e, (counts.get(e) ?? 0) + h.counts[i]!));
  }
  const edges = [...counts.keys()].sort((a, b) => a - b);
  return { edges, counts: edges.map((e) => counts.get(e)!) };
}

/** Keys whose values are settings, not counts: kept when the ranks agree, never summed. */
const SETTING_KEYS = new Set(['config', 'settings', 'options']);

/**
 * Stage figures from `midpack run`, merged across ranks: ledgers merged (Ledger.merge),
 * integer counts summed, nested objects merged key by key, values the ranks agree on kept
 * once; anything else (rates, lists, settings that differ) is kept per rank as
 * `{ per_rank: [...] }` in rank order, since it cannot be summed.
 */
export function mergeStages(parts: readonly (Record<string, unknown> | undefined)[]): Record<string, unknown> | undefined {
  if (parts.every((p) => p === undefined)) return undefined;
  return mergeValues(parts, '', 'ranks') as Record<string, unknown>;
}

/**
 * Figures of the pieces of one source (prepare-source.ts: mergePieces), merged as ranks' are,
 * but for what one run of the whole source would have given: every number summed, lists joined
 * in piece order, values the pieces disagree on kept from the first.
 */
export function mergePieceFigures(parts: readonly Record<string, unknown>[]): Record<string, unknown> {
  return mergeValues(parts, '', 'pieces') as Record<string, unknown>;
}

/** One value per rank or piece (undefined where one lacks it: a count it never bumped, a stage it did not run). */
function mergeValues(values: readonly unknown[], key: string, of: 'ranks' | 'pieces'): unknown {
  const present = values.filter((v) => v !== undefined);
  const disagree = () => (of === 'pieces' ? present[0] : { per_rank: values.map((v) => v ?? null) });
  if (SETTING_KEYS.has(key)) return allEqual(present) ? present[0] : disagree();
  if (present.every(isLedgerJson)) {
    const ledger = new Ledger();
    for (const v of present) ledger.merge(v);
    return ledger.toJSON();
  }
  if (present.every((v) => Number.isInteger(v) || (of === 'pieces' && typeof v === 'number'))) return (present as number[]).reduce((a, b) => a + b, 0);
  if (of === 'pieces' && present.every(Array.isArray)) return present.flat();
  if (present.every(isPlainObject)) {
    const keys = [...new Set(present.flatMap((v) => Object.keys(v)))].sort();
    return Object.fromEntries(keys.map((k) => [k, mergeValues(values.map((v) => (v as Record<string, unknown> | undefined)?.[k]), k, of)]));
  }
  return allEqual(present) ? present[0] : disagree();
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function allEqual(values: readonly unknown[]): boolean {
  const first = JSON.stringify(values[0]);
  return values.every((v) => JSON.stringify(v) === first);
}

function sum<T>(xs: readonly T[], f: (x: T) => number): number {
  let s = 0;
  for (const x of xs) s += f(x);
  return s;
}
