import type { Manifest } from '../job/pack-job.js';
import type { ReportJson } from '../report/figures.js';
import { formatPeaks } from '../core/phase-peaks.js';
import { groupedNumber } from '../core/format.js';

/** The one-screen summary at the end of a pack run. */
export function formatSummary(out: string, m: Pick<Manifest, 'ledger' | 'balanced' | 'shards' | 'megatron'>, r: ReportJson): string {
  const p = r.packing;
  const pct = (x: number) => `${(x * 100).toFixed(4)}%`;
  const n = groupedNumber;
  const lines = [
    `midpack pack → ${out}`,
    `  records      ${n(m.ledger.records_in)} in, ${n(m.ledger.records_out)} packed${m.balanced ? ' (balanced)' : ' (NOT balanced)'}`,
    ...Object.entries(m.ledger.dropped).map(([k, v]) => `    dropped ${k}: ${n(v)}`),
    `  documents    ${n(p.documents)}  tokens ${n(p.tokens)}  units ${n(p.units)}`,
    `  bins         ${n(p.bins)} of L=${n(p.seq_len)}  lower bound ${n(p.lower_bound)}  ratio ${p.bins_over_lower_bound.toFixed(6)}`,
    `  padding      ${pct(p.padding_rate)}   fragmentation ${pct(p.fragmentation_rate)}   overlong ${pct(p.overlong_rate)} (${p.overlong_policy}, ${n(p.dropped_tokens)} tokens dropped)`,
    `  masked       ${pct(r.masked_fraction)} of tokens`,
    `  by kind      ${Object.entries(r.by_kind).map(([k, g]) => `${k} ${n(g.tokens)}`).join(', ')}`,
    `  outputs      ${m.shards.length} Arrow shard(s) in shards/, ${m.megatron.length} Megatron files in megatron/, manifest.json, report.json, report.html`,
  ];
  if (r.peak_rss_mb && Object.keys(r.peak_rss_mb).length) lines.push(`  peak RSS     ${formatPeaks(r.peak_rss_mb)}`);
  return lines.join('\n');
}

export function printSummary(out: string, m: Parameters<typeof formatSummary>[1], r: ReportJson): void {
  process.stderr.write(formatSummary(out, m, r) + '\n');
}
