import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compareStrategies, strategyRow, type StrategyFigures } from '../pack/strategies.js';
import type { OverlongPolicy } from '../pack/packer.js';
import { writeFileAtomic } from '../write/files.js';
import { VERSION } from '../version.js';
import type { GroupFigures, Histogram, ReportJson } from './figures.js';
import { barChart, escapeHtml, table } from './html-parts.js';
import { groupedNumber } from '../core/format.js';

/** What report.html shows from the manifest (pack's, run's or merge's); every part optional. */
export interface ReportManifest {
  midpack_version?: string;
  config?: Record<string, unknown>;
  tokenizer?: { name: string; sha256: string; eos_id: number; pad_id: number };
  inputs?: { path: string; bytes: number; sha256: string }[];
  ledger?: { dropped: Record<string, number>; records_in: number; records_out: number };
  stages?: Record<string, unknown>;
  doc_lengths?: { path: string; sha256: string };
}

export interface ReportExtras {
  /** The Table 13 strategies on the run's own document lengths. */
  comparison?: Record<string, StrategyFigures>;
  /** The command that made the output (its settings are the config). */
  command?: string;
  /** YYYY-MM-DD, UTC. */
  date?: string;
}

/**
 * report.html: one self-contained page (inline CSS and SVG, no script, no network): the run header
 * (date, version, command, config, inputs with checksums, tokenizer), the packing figures and the
 * Table 13 comparison on the run's own lengths, charts with axes and values, tables by named
 * source, kind, ordering and language, the stages' accounting and figures as tables, the top
 * masked segments.
 */
export function renderReportHtml(r: ReportJson, manifest: ReportManifest = {}, extras: ReportExtras = {}): string {
  const stages = (manifest.stages ?? r.stages ?? {}) as Record<string, StageRecord>;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>midpack report</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}h3{font-size:1rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{padding:.2rem .7rem;border-bottom:1px solid #eee;text-align:right}
td:first-child,th:first-child{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:2rem}code{font-size:12px}
figure{margin:0}figcaption{font-weight:600;margin-bottom:.3rem}svg text{font-size:10px;fill:#444}
</style></head><body>
<h1>midpack report</h1>
${headerSection(manifest, extras)}
<h2>Packing</h2>
${table(['figure', 'value'], packingRows(r), 'packing')}
${extras.comparison ? comparisonSection(extras.comparison, r.packing.seq_len) : ''}
${chartsSection(r)}
${namedSourcesSection(stages)}
<h2>By kind</h2>${groupTable(r.by_kind, 'by-kind')}
${Object.keys(r.by_ordering).length ? `<h2>By repository ordering</h2>${groupTable(r.by_ordering, 'by-ordering')}` : ''}
${Object.keys(r.by_language).length ? `<h2>By language</h2>${groupTable(r.by_language, 'by-language')}` : ''}
${fileLanguagesSection(stages)}
${documentSourcesSection(r.by_source)}
${accountingSection(manifest)}
${stagesSection(stages)}
${stageTimesSection(r.stage_times)}
${maskedSegmentsSection(stages)}
</body></html>
`;
}

/** Writes report.html beside its manifest; the comparison uses the output's doc_lengths file. */
export async function writeReportHtml(path: string, r: ReportJson, manifest: ReportManifest = {}): Promise<void> {
  const lengthsPath = join(dirname(path), manifest.doc_lengths?.path ?? 'doc_lengths.u32');
  let comparison: Record<string, StrategyFigures> | undefined;
  if (existsSync(lengthsPath)) {
    const buf = readFileSync(lengthsPath);
    const lengths = new Uint32Array(buf.buffer, buf.byteOffset, buf.byteLength >> 2);
    comparison = await compareStrategies(lengths, { capacity: r.packing.seq_len, overlong: r.packing.overlong_policy as OverlongPolicy });
  }
  writeFileAtomic(path, renderReportHtml(r, manifest, { comparison, command: commandLine(), date: reportDate() }));
}

/** SOURCE_DATE_EPOCH (seconds) when set, so a report can be byte-identical across days; else today. */
function reportDate(): string {
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  return new Date(Number.isFinite(epoch) && process.env.SOURCE_DATE_EPOCH ? epoch * 1000 : Date.now()).toISOString().slice(0, 10);
}

/**
 * The command that made the output, without its arguments: paths and worker counts differ between
 * runs that must give the same bytes; the settings that decide the output are in the config table.
 */
function commandLine(): string {
  const [, script = '', sub] = process.argv;
  return /cli[\\/]main\.js$/.test(script) ? `midpack ${sub ?? ''}`.trim() : `node ${script.split(/[\\/]/).pop()} (library call)`;
}

const num = groupedNumber;
const pct = (x: number, digits = 4) => `${(x * 100).toFixed(digits)}%`;

function headerSection(m: ReportManifest, x: ReportExtras): string {
  const rows: [string, string][] = [
    ['date', x.date ?? ''],
    ['midpack version', m.midpack_version ?? VERSION],
    ['command', x.command ?? ''],
  ];
  if (m.tokenizer) rows.push(['tokenizer', `${m.tokenizer.name} (sha256 ${m.tokenizer.sha256.slice(0, 16)}…, eos ${m.tokenizer.eos_id}, pad ${m.tokenizer.pad_id})`]);
  const config = Object.entries(m.config ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]);
  const inputs = (m.inputs ?? []).map((i) => [i.path, num(i.bytes), i.sha256]);
  return `<h2>Run</h2>${table(['', ''], rows, 'header')}
<h3>Config</h3>${table(['key', 'value'], config, 'config')}
<h3>Inputs (${inputs.length})</h3>${table(['path', 'bytes', 'sha256'], inputs, 'inputs')}`;
}

function packingRows(r: ReportJson): [string, string][] {
  const p = r.packing;
  return [
    ['sequence length L', num(p.seq_len)],
    ['overlong policy', p.overlong_policy],
    ['documents', num(p.documents)],
    ['tokens', num(p.tokens)],
    ['packing units', num(p.units)],
    ['bins', num(p.bins)],
    ['lower bound ceil(tokens / L)', num(p.lower_bound)],
    ['bins / lower bound', p.bins_over_lower_bound.toFixed(6)],
    ['padding rate', pct(p.padding_rate)],
    ['fragmentation rate', pct(p.fragmentation_rate)],
    ['overlong rate', pct(p.overlong_rate)],
    ['dropped tokens', num(p.dropped_tokens)],
    ['masked-token fraction', pct(r.masked_fraction)],
  ];
}

function comparisonSection(figures: Record<string, StrategyFigures>, L: number): string {
  const rows = Object.entries(figures).map(([name, f]) => strategyRow(name, f, num));
  const head = ['strategy', 'fragmentation', 'padding', 'bins', 'lower bound', 'bins / lb', 'units', 'overlong', 'dropped tokens', 'duplicated tokens'];
  return `<h2>Table 13: packing strategies on this run's document lengths (L = ${num(L)})</h2>${table(head, rows, 'table13')}`;
}

function chartsSection(r: ReportJson): string {
  const kinds = Object.entries(r.by_kind);
  const lengthLabels = r.doc_length_histogram.edges.map((e) => `≤${compact(e)}`);
  const fillLabels = r.bin_fill_histogram.edges.map((e) => `${Math.round(e * 100)}%`);
  const trim = (labels: string[], h: Histogram) => {
    // Empty buckets at both ends carry no information: show the populated range.
    const first = h.counts.findIndex((c) => c > 0);
    const last = h.counts.length - 1 - [...h.counts].reverse().findIndex((c) => c > 0);
    return first < 0 ? { labels, h } : { labels: labels.slice(first, last + 1), h: { edges: h.edges.slice(first, last + 1), counts: h.counts.slice(first, last + 1) } };
  };
  const lengths = trim(lengthLabels, r.doc_length_histogram);
  const fill = trim(fillLabels, r.bin_fill_histogram);
  return `<div class="charts">
<figure><figcaption>Document lengths</figcaption>${barChart(lengths.labels, lengths.h.counts, 'tokens (bucket upper edge)', 'documents')}</figure>
<figure><figcaption>Bin fill</figcaption>${barChart(fill.labels, fill.h.counts, 'fill of L (bucket upper edge)', 'bins')}</figure>
<figure><figcaption>Tokens by kind</figcaption>${barChart(kinds.map(([k]) => k), kinds.map(([, g]) => g.tokens), 'kind', 'tokens')}</figure>
</div>`;
}

interface StageRecord {
  type?: string;
  ledger?: { records_in: number; records_out: number; dropped: Record<string, number>; produced?: Record<string, number> };
  balanced?: boolean;
  stats?: Record<string, unknown>;
  counts?: string;
}

const dropText = (d: Record<string, number> = {}) => Object.entries(d).map(([k, v]) => `${k} ${num(v)}`).join(', ');

/** A config's sources by name (`midpack run`): the stages record them, their `then:` stages as name.type. */
function namedSourcesSection(stages: Record<string, StageRecord>): string {
  const names = Object.keys(stages).filter((k) => !k.includes('.') && k !== 'mask');
  if (!names.length) return '';
  const rows = names.map((name) => {
    const s = stages[name]!;
    const thenKeys = Object.keys(stages).filter((k) => k.startsWith(`${name}.`));
    const out = (thenKeys.length ? stages[thenKeys[thenKeys.length - 1]!]! : s).ledger?.records_out ?? 0;
    const then = thenKeys.map((k) => stages[k]!.type ?? k).join(' → ') || '—';
    return [name, s.type ?? '', then, num(s.ledger?.records_in ?? 0), num(out), dropText(s.ledger?.dropped)];
  });
  return `<h2>By named source</h2>${table(['source', 'type', 'then', 'records in', 'documents out', 'dropped'], rows, 'by-named-source')}`;
}

function documentSourcesSection(bySource: Record<string, GroupFigures>): string {
  const top = Object.entries(bySource).sort((a, b) => b[1].tokens - a[1].tokens).slice(0, 50);
  return `<h2>By document source (top ${top.length} by tokens)</h2>${groupTable(Object.fromEntries(top), 'by-source')}`;
}

function accountingSection(m: ReportManifest): string {
  const l = m.ledger;
  if (!l) return '';
  const rows: [string, string][] = [['in', num(l.records_in)], ['out', num(l.records_out)], ...Object.entries(l.dropped).map(([k, v]) => [`dropped: ${k}`, num(v)] as [string, string])];
  return `<h2>Accounting</h2>${table(['', 'records'], rows, 'accounting')}`;
}

/** Each stage: its ledger, then its figures flattened into key/value rows. */
function stagesSection(stages: Record<string, StageRecord>): string {
  const names = Object.keys(stages);
  if (!names.length) return '';
  const rows = names.map((n) => {
    const s = stages[n]!;
    return [n, s.type ?? '', num(s.ledger?.records_in ?? 0), num(s.ledger?.records_out ?? 0), dropText(s.ledger?.dropped), s.balanced === false ? 'NO' : 'yes'];
  });
  const details = names
    .map((n) => {
      // The languages have their own table (fileLanguagesSection): hundreds of rows would push the other figures out.
      const flat = flatten(stages[n]!.stats ?? {}).filter(([k]) => !k.includes('top_segments') && !k.startsWith('serialize_repos.by_language.'));
      return flat.length ? `<h3>${escapeHtml(n)}</h3>${table(['figure', 'value'], flat.slice(0, 200), `stage-${n}`)}` : '';
    })
    .join('\n');
  return `<h2>Stages</h2>${table(['stage', 'type', 'in', 'out', 'dropped', 'balanced'], rows, 'stages')}\n${details}`;
}

/**
 * Every language found in the repositories' files (Linguist's names), over all repository stages:
 * files, bytes, and the repositories it is the main language of. The table above files each
 * document under its main language only; this one lists the rest too, however many.
 */
function fileLanguagesSection(stages: Record<string, StageRecord>): string {
  const total = new Map<string, { documents: number; files: number; bytes: number }>();
  for (const s of Object.values(stages)) {
    const byLanguage = (s.stats?.serialize_repos as { by_language?: Record<string, { documents: number; files: number; bytes: number }> } | undefined)?.by_language;
    for (const [lang, v] of Object.entries(byLanguage ?? {})) {
      const t = total.get(lang) ?? { documents: 0, files: 0, bytes: 0 };
      total.set(lang, { documents: t.documents + v.documents, files: t.files + v.files, bytes: t.bytes + v.bytes });
    }
  }
  if (!total.size) return '';
  const rows = [...total].sort(([a, x], [b, y]) => y.bytes - x.bytes || (a < b ? -1 : 1)).map(([lang, t]) => [lang, num(t.files), num(t.bytes), num(t.documents)]);
  return `<h2>Languages of repository files (${total.size})</h2>${table(['language', 'files', 'bytes', 'documents (main language)'], rows, 'file-languages')}`;
}

/** Each stage's and phase's wall and CPU time, documents/s and MB/s (`midpack run`). */
function stageTimesSection(times: Record<string, unknown> | undefined): string {
  if (!times || !Object.keys(times).length) return '';
  const rows = Object.entries(times as Record<string, { wall_s: number; cpu_s: number; documents: number; bytes: number; docs_per_s: number; mb_per_s: number }>).map(([n, t]) => [
    n,
    t.wall_s.toFixed(2),
    t.cpu_s.toFixed(2),
    num(t.documents),
    (t.bytes / 1e6).toFixed(1),
    t.docs_per_s.toFixed(1),
    t.mb_per_s.toFixed(2),
  ]);
  return `<h2>Time per stage</h2>${table(['stage', 'wall s', 'CPU s', 'documents', 'MB', 'documents/s', 'MB/s'], rows, 'stage-times')}`;
}

/** Nested figures as `a.b.c` rows; lists shown by length (samples are in report.json). */
function flatten(o: Record<string, unknown>, prefix = '', depth = 0): [string, string][] {
  return Object.entries(o).flatMap(([k, v]): [string, string][] => {
    const key = prefix ? `${prefix}.${k}` : k;
    if (Array.isArray(v)) return [[key, `${v.length} items`]];
    if (v && typeof v === 'object') return depth < 3 ? flatten(v as Record<string, unknown>, key, depth + 1) : [[key, JSON.stringify(v).slice(0, 200)]];
    return [[key, typeof v === 'number' ? (Number.isInteger(v) ? num(v) : v.toFixed(6)) : String(v)]];
  });
}

function maskedSegmentsSection(stages: Record<string, StageRecord>): string {
  const mask = Object.values(stages).find((s) => s.type === 'mask')?.stats?.mask as { threshold_docs?: number; top_segments?: { docs: number; text: string | null }[] } | undefined;
  if (!mask?.top_segments?.length) return '';
  const rows = mask.top_segments.slice(0, 50).map((t) => [num(t.docs), t.text === null ? '(no sample)' : t.text.slice(0, 160)]);
  return `<h2>Top masked segments (threshold ${num(mask.threshold_docs ?? 0)} documents)</h2>${table(['documents', 'segment'], rows, 'masked-segments')}`;
}

function groupTable(groups: Record<string, GroupFigures>, id: string): string {
  return table(
    ['', 'documents', 'tokens', 'masked fraction'],
    Object.entries(groups).map(([k, g]) => [k, num(g.documents), num(g.tokens), `${(g.masked_fraction * 100).toFixed(2)}%`]),
    id,
  );
}

function compact(n: number): string {
  return n >= 1 << 20 ? `${n / (1 << 20)}Mi` : n >= 1024 ? `${n / 1024}Ki` : String(n);
}
