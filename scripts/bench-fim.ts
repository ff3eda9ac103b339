/**
 * FIM benchmark: samples/s and MB/s of source for each format and span mode on real code
 * (JavaScript/TypeScript from node_modules, Python from Debian's python3), one core, one run.
 * Every sample is built and verified, exactly as the stage does it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { collect, defaultContext, fromArray } from '../src/core/stage.js';
import { DEFAULT_FIM_OPTIONS, fimStage, transformDoc, type FimOptions, type FimStats } from '../src/stages/fim/stage.js';
import type { Doc } from '../src/doc/document.js';
import { loadTokenizer } from '../src/tokenize/tokenizer.js';

function collectFiles(dir: string, exts: RegExp, limitBytes: number, out: Doc[] = [], state = { bytes: 0 }): Doc[] {
  for (const name of readdirSync(dir).sort()) {
    if (state.bytes >= limitBytes) break;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) collectFiles(p, exts, limitBytes, out, state);
    else if (exts.test(name) && st.size < 200_000) {
      const text = readFileSync(p, 'utf8');
      out.push({ id: p, kind: 'text', source: p, text, meta: { path: p } });
      state.bytes += text.length;
    }
  }
  return out;
}

const root = new URL('../../', import.meta.url).pathname;
const pyDir = execFileSync('python3', ['-c', 'import os; print(os.path.dirname(os.__file__))'], { encoding: 'utf8' }).trim();
const corpus = [
  ...collectFiles(join(root, 'node_modules'), /\.(js|ts|mjs)$/, 4_000_000),
  ...collectFiles(pyDir, /\.py$/, 3_000_000),
];
const mb = corpus.reduce((s, d) => s + d.text.length, 0) / 1e6;
console.log(`corpus: ${corpus.length} files, ${mb.toFixed(1)} M chars (js/ts from node_modules, python from ${pyDir})`);

function run(label: string, opts: Partial<FimOptions>): void {
  const o: FimOptions = { ...DEFAULT_FIM_OPTIONS, fimRate: 1, ...opts };
  const stats: FimStats = { transformed: 0, untouched: 0, formats: {}, span_modes: {}, unit_fallback: {}, skipped: {}, verify_failed: {}, source_chars: 0 };
  const t0 = process.hrtime.bigint();
  let made = 0;
  for (const d of corpus) if (transformDoc(d, o, 1, stats)) made++;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const skipped = Object.values(stats.skipped).reduce((a, b) => a + b, 0);
  console.log(
    `${label.padEnd(24)} ${(made / s).toFixed(0).padStart(7)} samples/s  ${(mb / s).toFixed(1).padStart(6)} MB/s of source  ` +
      `(${made} samples, ${skipped} skipped, ${Object.keys(stats.verify_failed).length} verify failures)`,
  );
}

const only = (f: 'fim' | 'chat_fim' | 'sr_fim') => ({ fim: 0, chat_fim: 0, sr_fim: 0, [f]: 1 });
// Function-aware spans need repositories: the same files, grouped by their folder as file rows of one repository.
const rows: Doc[] = corpus.map((d) => ({ ...d, meta: { path: d.source.slice(dirname(d.source).length + 1), repo: dirname(d.source) } }));
async function runFunctionAware(label: string, opts: Partial<FimOptions>): Promise<void> {
  const o: FimOptions = { ...DEFAULT_FIM_OPTIONS, fimRate: 1, spans: { char: 0, line: 0, unit: 0, 'function-aware': 1 }, ...opts };
  const ctx = defaultContext({ seed: 1 });
  const t0 = process.hrtime.bigint();
  const out = await collect(fimStage(o)(fromArray(rows), ctx));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const stats = ctx.stats.fim as FimStats;
  const made = out.filter((d) => d.meta.function).length;
  const fa = stats.function_aware!;
  const langs = Object.entries(fa.languages).map(([l, f]) => `${l} ${f.functions} seen/${f.candidates} candidates`).join(', ');
  console.log(
    `${label.padEnd(24)} ${(made / s).toFixed(0).padStart(7)} samples/s  ${(mb / s).toFixed(1).padStart(6)} MB/s of source  ` +
      `(${made} samples, ${fa.graphs} graphs, ${langs}, ${Object.keys(stats.verify_failed).length} verify failures)`,
  );
}
for (const span of ['char', 'line', 'unit'] as const) {
  const spans = { char: 0, line: 0, unit: 0, [span]: 1 };
  run(`psm/spm ${span}`, { formats: only('fim'), spans });
  run(`chat_fim ${span}`, { formats: only('chat_fim'), spans });
  run(`sr_fim ${span}`, { formats: only('sr_fim'), spans });
}
await runFunctionAware('psm/spm function-aware', { formats: only('fim') });
await runFunctionAware('chat_fim function-aware', { formats: only('chat_fim') });
await runFunctionAware('sr_fim function-aware', { formats: only('sr_fim') });
run('default mix', {});
run('default mix, no unit', { spans: { char: 0.4, line: 0.6, unit: 0 } });
// For scale: the tokenizer on the same kind of text (a 1 M char slice), which the samples go through next.
const tok = await loadTokenizer();
const slice: Doc[] = [];
for (let n = 0, i = 0; n < 1_000_000 && i < corpus.length; i++) (slice.push(corpus[i]!), (n += corpus[i]!.text.length));
const t0 = process.hrtime.bigint();
for (const d of slice) tok.encodeDoc(d);
const ts = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(`tokenizer (qwen3)        ${(slice.reduce((s, d) => s + d.text.length, 0) / 1e6 / ts).toFixed(1).padStart(6)} MB/s of source`);
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
