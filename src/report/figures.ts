import type { ChunkDoc } from '../job/chunk-store.js';
import { TurnCuts } from './turn-cuts.js';
import type { MixtureReport } from '../mix/report.js';
import type { DocGroupFigures } from '../pack/groups.js';

/**
 * The report's figures (SPEC.md, "Figures the report gives"), accumulated as documents and
 * bins stream past, in memory bounded by configuration (sources beyond `maxSources` are
 * folded into "(other)").
 */
export interface GroupFigures {
  documents: number;
  tokens: number;
  masked_tokens: number;
  masked_fraction: number;
}

export interface Histogram {
  /** Upper edges of the buckets (inclusive). */
  edges: number[];
  counts: number[];
}

export interface PackingFigures {
  seq_len: number;
  overlong_policy: string;
  documents: number;
  tokens: number;
  units: number;
  bins: number;
  lower_bound: number;
  bins_over_lower_bound: number;
  padding_tokens: number;
  padding_rate: number;
  fragmented_units: number;
  fragmentation_rate: number;
  overlong_docs: number;
  overlong_rate: number;
  dropped_docs: number;
  dropped_tokens: number;
  duplicated_tokens: number;
}

export interface ReportJson {
  packing: PackingFigures;
  masked_tokens: number;
  masked_fraction: number;
  by_kind: Record<string, GroupFigures>;
  by_source: Record<string, GroupFigures>;
  by_ordering: Record<string, GroupFigures>;
  by_language: Record<string, GroupFigures>;
  /** Trajectories by tool-call template. */
  by_template?: Record<string, GroupFigures>;
  /** With the boundary policy: trajectory chunks cut between turns vs inside a turn longer than the room. */
  turn_cuts?: ReturnType<TurnCuts['toJSON']>;
  /** Documents that declared a group (meta.group): runs planned in one bin, their documents, runs longer than L planned apart. */
  doc_groups?: DocGroupFigures;
  doc_length_histogram: Histogram;
  bin_fill_histogram: Histogram;
  /** Figures that upstream stages reported (masking's top segments, LLM requests...). */
  stages?: Record<string, unknown>;
  /** Wall and CPU time, documents/s and MB/s of each stage and phase (`midpack run`, job/stage-times.ts). */
  stage_times?: Record<string, unknown>;
  /** Packed documents by the config source of a `midpack run` mixture (what the mixture achieved). */
  by_mixture_source?: Record<string, GroupFigures>;
  /** The token-budgeted mixture (docs/mixing.md). */
  mixture?: MixtureReport;
  /** Peak RSS of each phase in MiB (src/core/phase-peaks.ts): measured, so it varies from run to run. */
  peak_rss_mb?: Record<string, number>;
}

/**
 * Keys of report.json that are measurements of the machine, not figures of the data: they are
 * left out where outputs are compared byte for byte (a resumed run against an uninterrupted one).
 */
export const MEASURED_REPORT_KEYS: readonly string[] = ['peak_rss_mb', 'stage_times'];

const OTHER = '(other)';

class Groups {
  private readonly map = new Map<string, { documents: number; tokens: number; masked_tokens: number }>();
  constructor(private readonly max = Infinity) {}

  add(key: string, tokens: number, masked: number): void {
    let g = this.map.get(key);
    if (!g) {
      if (this.map.size >= this.max) key = OTHER;
      g = this.map.get(key) ?? { documents: 0, tokens: 0, masked_tokens: 0 };
      this.map.set(key, g);
    }
    g.documents++;
    g.tokens += tokens;
    g.masked_tokens += masked;
  }

  toJSON(): Record<string, GroupFigures> {
    const keys = [...this.map.keys()].sort();
    return Object.fromEntries(keys.map((k) => {
      const g = this.map.get(k)!;
      return [k, { ...g, masked_fraction: ratio(g.masked_tokens, g.tokens) }];
    }));
  }
}

/** Log2 buckets for document lengths: <=1, <=2, <=4, ... <=2^30. */
const LENGTH_EDGES = Array.from({ length: 31 }, (_, i) => 2 ** i);

export class FiguresBuilder {
  private readonly byKind = new Groups();
  private readonly bySource: Groups;
  private readonly byOrdering = new Groups();
  private readonly byLanguage = new Groups();
  private readonly byTemplate = new Groups();
  private readonly byMixture = new Groups();
  private readonly turnCuts: TurnCuts;
  private readonly lengthCounts = new Array<number>(LENGTH_EDGES.length).fill(0);
  private readonly fillCounts = new Array<number>(20).fill(0);
  private documents = 0;
  private tokens = 0;
  private masked = 0;
  private bins = 0;
  private binTokens = 0;
  private units = 0;

  constructor(
    readonly seqLen: number,
    maxSources = 1000,
  ) {
    this.bySource = new Groups(maxSources);
    this.turnCuts = new TurnCuts(seqLen);
  }

  addDoc(d: ChunkDoc): void {
    this.documents++;
    this.tokens += d.len;
    this.masked += d.masked;
    this.byKind.add(d.kind, d.len, d.masked);
    this.bySource.add(d.source, d.len, d.masked);
    if (d.ordering) this.byOrdering.add(d.ordering, d.len, d.masked);
    if (d.language) this.byLanguage.add(d.language, d.len, d.masked);
    if (d.template) this.byTemplate.add(d.template, d.len, d.masked);
    if (d.mix !== undefined) this.byMixture.add(d.mix, d.len, d.masked);
    if (d.kind === 'trajectory' && d.boundaries) this.turnCuts.add(d.len, d.boundaries);
    let b = 0;
    while (b < LENGTH_EDGES.length - 1 && d.len > LENGTH_EDGES[b]!) b++;
    this.lengthCounts[b]!++;
  }

  addBin(tokens: number, units: number): void {
    this.bins++;
    this.binTokens += tokens;
    this.units += units;
    const fill = tokens / this.seqLen;
    this.fillCounts[Math.min(19, Math.floor(fill * 20))]!++;
  }

  finish(p: {
    overlongPolicy: string;
    overlongDocs: number;
    droppedDocs: number;
    droppedTokens: number;
    duplicatedTokens: number;
    fragmentedUnits: number;
    groups?: DocGroupFigures;
  }): ReportJson {
    const padding = this.bins * this.seqLen - this.binTokens;
    const lowerBound = Math.ceil(this.tokens / this.seqLen);
    const byTemplate = this.byTemplate.toJSON();
    const byMixture = this.byMixture.toJSON();
    return {
      packing: {
        seq_len: this.seqLen,
        overlong_policy: p.overlongPolicy,
        documents: this.documents,
        tokens: this.tokens,
        units: this.units,
        bins: this.bins,
        lower_bound: lowerBound,
        bins_over_lower_bound: ratio(this.bins, lowerBound),
        padding_tokens: padding,
        padding_rate: ratio(padding, this.bins * this.seqLen),
        fragmented_units: p.fragmentedUnits,
        fragmentation_rate: ratio(p.fragmentedUnits, this.units),
        overlong_docs: p.overlongDocs,
        overlong_rate: ratio(p.overlongDocs, this.documents),
        dropped_docs: p.droppedDocs,
        dropped_tokens: p.droppedTokens,
        duplicated_tokens: p.duplicatedTokens,
      },
      masked_tokens: this.masked,
      masked_fraction: ratio(this.masked, this.tokens),
      by_kind: this.byKind.toJSON(),
      by_source: this.bySource.toJSON(),
      by_ordering: this.byOrdering.toJSON(),
      by_language: this.byLanguage.toJSON(),
      ...(Object.keys(byTemplate).length ? { by_template: byTemplate } : {}),
      ...(Object.keys(byMixture).length ? { by_mixture_source: byMixture } : {}),
      ...(p.overlongPolicy === 'boundary' && Object.keys(byTemplate).length ? { turn_cuts: this.turnCuts.toJSON() } : {}),
      ...(p.groups && (p.groups.groups || p.groups.groups_split) ? { doc_groups: p.groups } : {}),
      doc_length_histogram: trimHistogram(LENGTH_EDGES, this.lengthCounts),
      bin_fill_histogram: { edges: this.fillCounts.map((_, i) => (i + 1) / 20), counts: this.fillCounts },
    };
  }
}

function trimHistogram(edges: number[], counts: number[]): Histogram {
  let last = counts.length - 1;
  while (last > 0 && counts[last] === 0) last--;
  return { edges: edges.slice(0, last + 1), counts: counts.slice(0, last + 1) };
}

export function ratio(a: number, b: number): number {
  return b === 0 ? 0 : a / b;
}
