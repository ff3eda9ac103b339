/** The building blocks of report.html: tables with ids (for readers and tests) and labelled SVG bar charts. */

export function table(head: string[], rows: string[][], id?: string): string {
  const tr = (cells: string[], tag: string) => `<tr>${cells.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`;
  return `<table${id ? ` id="${escapeHtml(id)}"` : ''}><thead>${tr(head, 'th')}</thead><tbody>${rows.map((r) => tr(r, 'td')).join('')}</tbody></table>`;
}

/**
 * A bar chart with both axes: y from 0 to the largest count (ticks at 0, half and max), x labelled
 * per bar, axis titles, and each bar's value above it.
 */
export function barChart(labels: string[], counts: number[], xTitle: string, yTitle: string): string {
  const w = 22;
  const gap = 4;
  const left = 56;
  const top = 16;
  const plot = 140;
  const max = Math.max(1, ...counts);
  const width = left + counts.length * (w + gap) + 10;
  const baseY = top + plot;
  const bars = counts
    .map((c, i) => {
      const bh = Math.round((c / max) * plot);
      const x = left + i * (w + gap);
      const cx = x + w / 2;
      const label = escapeHtml(labels[i] ?? '');
      return (
        `<rect x="${x}" y="${baseY - bh}" width="${w}" height="${bh}" fill="#4a7ab5"><title>${label}: ${c}</title></rect>` +
        (c > 0 ? `<text class="value" x="${cx}" y="${baseY - bh - 3}" text-anchor="middle">${short(c)}</text>` : '') +
        `<text class="label" x="${cx}" y="${baseY + 12}" text-anchor="end" transform="rotate(-45 ${cx} ${baseY + 12})">${label}</text>`
      );
    })
    .join('');
  const ticks = [0, max / 2, max]
    .map((v) => {
      const y = baseY - (v / max) * plot;
      return `<line x1="${left - 4}" y1="${y}" x2="${left}" y2="${y}" stroke="#999"/><text class="tick" x="${left - 6}" y="${y + 3}" text-anchor="end">${short(v)}</text>`;
    })
    .join('');
  const height = baseY + 70;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(`${yTitle} by ${xTitle}`)}">` +
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${baseY}" stroke="#999"/><line x1="${left}" y1="${baseY}" x2="${width}" y2="${baseY}" stroke="#999"/>` +
    ticks +
    bars +
    `<text class="axis-title" x="${left + (width - left) / 2}" y="${height - 4}" text-anchor="middle">${escapeHtml(xTitle)}</text>` +
    `<text class="axis-title" x="12" y="${top + plot / 2}" text-anchor="middle" transform="rotate(-90 12 ${top + plot / 2})">${escapeHtml(yTitle)}</text></svg>`
  );
}

/** 1234567 → 1.2M: bar values and ticks stay narrow. */
function short(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toFixed(1)}G`;
  if (a >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (a >= 1e4) return `${(v / 1e3).toFixed(0)}k`;
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
