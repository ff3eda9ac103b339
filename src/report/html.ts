import { writeFileAtomic } from '../write/files.js';
import type { GroupFigures, Histogram, ReportJson } from './figures.js';

/**
 * report.html: one self-contained page (inline CSS and SVG, no script, no network) with the
 * packing figures, the document-length and bin-fill histograms, the token mix by kind, and
 * the accounting.
 */
export function renderReportHtml(r: ReportJson, manifest?: { ledger?: { dropped: Record<string, number>; records_in: number; records_out: number } }): string {
  const p = r.packing;
  const pct = (x: number) => `${(x * 100).toFixed(4)}%`;
  const num = (x: number) => x.toLocaleString('en-US');
  const figures: [string, string][] = [
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
  const lengthLabels = r.doc_length_histogram.edges.map((e) => `≤${compact(e)}`);
  const fillLabels = r.bin_fill_histogram.edges.map((e) => `${Math.round(e * 100)}%`);
  const kinds = Object.entries(r.by_kind);
  const topSources = Object.entries(r.by_source).sort((a, b) => b[1].tokens - a[1].tokens).slice(0, 50);
  const ledger = manifest?.ledger;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>midpack report</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0}td,th{padding:.2rem .7rem;border-bottom:1px solid #eee;text-align:right}
td:first-child,th:first-child{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:2rem}
figure{margin:0}figcaption{font-weight:600;margin-bottom:.3rem}svg text{font-size:10px;fill:#444}
</style></head><body>
<h1>midpack report</h1>
<h2>Packing</h2>
${table(['figure', 'value'], figures)}
<div class="charts">
<figure><figcaption>Document lengths (tokens)</figcaption>${barChart(lengthLabels, r.doc_length_histogram)}</figure>
<figure><figcaption>Bin fill</figcaption>${barChart(fillLabels, r.bin_fill_histogram)}</figure>
<figure><figcaption>Tokens by kind</figcaption>${barChart(kinds.map(([k]) => k), { edges: [], counts: kinds.map(([, g]) => g.tokens) })}</figure>
</div>
<h2>By kind</h2>${groupTable(r.by_kind)}
${Object.keys(r.by_ordering).length ? `<h2>By repository ordering</h2>${groupTable(r.by_ordering)}` : ''}
${Object.keys(r.by_language).length ? `<h2>By language</h2>${groupTable(r.by_language)}` : ''}
<h2>By source (top ${topSources.length} by tokens)</h2>${groupTable(Object.fromEntries(topSources))}
${ledger ? `<h2>Accounting</h2>${table(['', 'records'], [['in', num(ledger.records_in)], ['out', num(ledger.records_out)], ...Object.entries(ledger.dropped).map(([k, v]) => [`dropped: ${k}`, num(v)] as [string, string])])}` : ''}
${r.stages ? `<h2>Stages</h2><pre>${escapeHtml(JSON.stringify(r.stages, null, 2).slice(0, 200_000))}</pre>` : ''}
</body></html>
`;
}

export function writeReportHtml(path: string, r: ReportJson, manifest?: Parameters<typeof renderReportHtml>[1]): void {
  writeFileAtomic(path, renderReportHtml(r, manifest));
}

function groupTable(groups: Record<string, GroupFigures>): string {
  return table(
    ['', 'documents', 'tokens', 'masked fraction'],
    Object.entries(groups).map(([k, g]) => [k, g.documents.toLocaleString('en-US'), g.tokens.toLocaleString('en-US'), `${(g.masked_fraction * 100).toFixed(2)}%`]),
  );
}

function table(head: string[], rows: string[][]): string {
  const tr = (cells: string[], tag: string) => `<tr>${cells.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`;
  return `<table>${tr(head, 'th')}${rows.map((r) => tr(r, 'td')).join('')}</table>`;
}

function barChart(labels: string[], h: Histogram): string {
  const w = 18;
  const height = 140;
  const max = Math.max(1, ...h.counts);
  const bars = h.counts
    .map((c, i) => {
      const bh = Math.round((c / max) * (height - 20));
      const x = 30 + i * (w + 4);
      return `<rect x="${x}" y="${height - bh}" width="${w}" height="${bh}" fill="#4a7ab5"><title>${escapeHtml(labels[i] ?? '')}: ${c}</title></rect>` +
        `<text x="${x + w / 2}" y="${height + 12}" text-anchor="end" transform="rotate(-45 ${x + w / 2} ${height + 12})">${escapeHtml(labels[i] ?? '')}</text>`;
    })
    .join('');
  const width = 40 + h.counts.length * (w + 4);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height + 50}" role="img"><text x="0" y="10">${max.toLocaleString('en-US')}</text><line x1="28" y1="${height}" x2="${width}" y2="${height}" stroke="#999"/>${bars}</svg>`;
}

function compact(n: number): string {
  return n >= 1 << 20 ? `${n / (1 << 20)}Mi` : n >= 1024 ? `${n / 1024}Ki` : String(n);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
