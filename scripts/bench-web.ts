/**
 * Throughput of the rule-based rewriter on real pages (one core, one process):
 *   npm run bench:web [-- [DIR] [--baseline CHECKOUT]]   (default DIR: the readability test pages in ../shared/data)
 * Prints pages/s, MB/s and peak RSS, measured after one warm-up pass. With `--baseline`, another
 * built checkout's rewriter (CHECKOUT/dist/src/stages/web/rules.js, e.g. main in a temp clone) runs
 * in the same process, its rounds alternating with ours, and the ratio of the two per-core rates is
 * printed: load on a shared machine falls on both alike.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rewriteWithRules } from '../src/stages/web/rules.js';

type Rewrite = (html: string) => { ok: boolean };

const args = process.argv.slice(2);
const baselineAt = args.indexOf('--baseline');
const baselineDir = baselineAt >= 0 ? args[baselineAt + 1] : undefined;
const positional = args.filter((_, i) => i !== baselineAt && i !== baselineAt + 1);
const dir = positional[0] ?? ['../shared/data/readability-test-pages', '/work/shared/data/readability-test-pages'].find((d) => existsSync(d));
if (!dir) throw new Error('usage: bench-web DIR (a folder of page folders with source.html)');
const pages = readdirSync(dir)
  .filter((d) => existsSync(join(dir, d, 'source.html')))
  .sort()
  .map((d) => readFileSync(join(dir, d, 'source.html'), 'utf8'));
const bytes = pages.reduce((s, p) => s + Buffer.byteLength(p), 0);

async function loadBaseline(checkout: string): Promise<Rewrite> {
  const file = resolve(checkout, 'dist', 'src', 'stages', 'web', 'rules.js');
  if (!existsSync(file)) throw new Error(`--baseline ${checkout}: ${file} is missing (build that checkout first: npm ci)`);
  return ((await import(pathToFileURL(file).href)) as { rewriteWithRules: Rewrite }).rewriteWithRules;
}

interface Timing {
  cpuSeconds: number;
  wallSeconds: number;
  kept: number;
}

/** One round over every page; CPU seconds of this process (one thread does the work), which other load changes less than wall time. */
function round(rewrite: Rewrite, t: Timing): void {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (const p of pages) if (rewrite(p).ok) t.kept++;
  const cpu = process.cpuUsage(cpu0);
  t.cpuSeconds += (cpu.user + cpu.system) / 1e6;
  t.wallSeconds += (performance.now() - t0) / 1000;
}

function report(name: string, t: Timing, rounds: number): number {
  const perCore = (pages.length * rounds) / t.cpuSeconds;
  console.log(`  ${name.padEnd(9)} per core (CPU time): ${perCore.toFixed(1)} pages/s, ${((bytes * rounds) / 1e6 / t.cpuSeconds).toFixed(2)} MB/s; wall clock: ${((pages.length * rounds) / t.wallSeconds).toFixed(1)} pages/s; ${t.kept} rewritten`);
  return perCore;
}

async function main(): Promise<void> {
  const baseline = baselineDir ? await loadBaseline(baselineDir) : undefined;
  const rounds = 4;
  const ours: Timing = { cpuSeconds: 0, wallSeconds: 0, kept: 0 };
  const theirs: Timing = { cpuSeconds: 0, wallSeconds: 0, kept: 0 };
  for (const p of pages) rewriteWithRules(p); // warm-up
  if (baseline) for (const p of pages) baseline(p);
  // Each side goes first in every other round, so neither gains from the order.
  for (let r = 0; r < rounds; r++) {
    if (baseline && r % 2 === 1) round(baseline, theirs);
    round(rewriteWithRules, ours);
    if (baseline && r % 2 === 0) round(baseline, theirs);
  }
  console.log(`rule-based rewriter: ${pages.length} pages x ${rounds} rounds, ${(bytes / 1e6).toFixed(1)} MB per round`);
  const ourRate = report('this tree', ours, rounds);
  if (baseline) {
    const theirRate = report('baseline', theirs, rounds);
    console.log(`  this tree / baseline (${baselineDir}), per core: ${(ourRate / theirRate).toFixed(3)} (rounds alternated in one process)`);
  }
  console.log(`  peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
}

main().catch((e) => {
  console.error(`bench-web: ${(e as Error).message}`);
  process.exitCode = 1;
});
