/**
 * Throughput of the rule-based rewriter on real pages (one core, one process):
 *   npm run bench:web [-- DIR]   (default: the readability test pages in ../shared/data)
 * Prints pages/s, MB/s and peak RSS, measured after one warm-up pass.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rewriteWithRules } from '../src/stages/web/rules.js';

const dir = process.argv[2] ?? ['../shared/data/readability-test-pages', '/work/shared/data/readability-test-pages'].find((d) => existsSync(d));
if (!dir) throw new Error('usage: bench-web DIR (a folder of page folders with source.html)');
const pages = readdirSync(dir)
  .filter((d) => existsSync(join(dir, d, 'source.html')))
  .sort()
  .map((d) => readFileSync(join(dir, d, 'source.html'), 'utf8'));
const bytes = pages.reduce((s, p) => s + Buffer.byteLength(p), 0);
for (const p of pages) rewriteWithRules(p); // warm-up
const rounds = 3;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
let kept = 0;
for (let r = 0; r < rounds; r++) for (const p of pages) if (rewriteWithRules(p).ok) kept++;
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
// CPU seconds of this process (one thread does the work): throughput per core, which other load
// on a shared machine does not change the way it changes wall time.
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
console.log(`rule-based rewriter: ${pages.length} pages x ${rounds} rounds, ${(bytes / 1e6).toFixed(1)} MB per round, ${kept} rewritten`);
console.log(`  per core (CPU time): ${((pages.length * rounds) / cpuSeconds).toFixed(1)} pages/s, ${((bytes * rounds) / 1e6 / cpuSeconds).toFixed(2)} MB/s`);
console.log(`  wall clock:          ${((pages.length * rounds) / seconds).toFixed(1)} pages/s, ${((bytes * rounds) / 1e6 / seconds).toFixed(2)} MB/s`);
console.log(`  peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
