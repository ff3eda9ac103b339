/**
 * synth-qa against a scripted OpenAI-compatible server on loopback (scripts/synth-qa-server.ts,
 * run as its own process so its work is not counted as midpack's), which answers every request
 * after a fixed latency, as a model would:
 *   npm run bench:synth-qa [-- --latency-ms 100 --concurrency 4,16]
 * Documents: the Readability test pages (../shared/data) and data-samples/web, rewritten by the
 * rule-based rewriter first (not timed). Prints, at concurrency 4 (the default) and 16: documents/s
 * and midpack's own CPU per document (this process's user + system time: prompt, cache, parsing,
 * grounding, samples, apart from waiting on the server); then a rerun from the cache (no request);
 * and peak RSS.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { collect, countedIn, defaultContext, fromArray } from '../src/core/stage.js';
import type { Doc } from '../src/doc/document.js';
import { resolveSynthQaOptions } from '../src/stages/synth-qa/options.js';
import { synthQaStage } from '../src/stages/synth-qa/stage.js';
import { synthQaStats } from '../src/stages/synth-qa/stats.js';
import { rewriteWithRules } from '../src/stages/web/rules.js';

const latencyArg = process.argv.indexOf('--latency-ms');
const latencyMs = latencyArg > 0 ? Number(process.argv[latencyArg + 1]) : 100;
const concurrencyArg = process.argv.indexOf('--concurrency');
const concurrencies = concurrencyArg > 0 ? process.argv[concurrencyArg + 1]!.split(',').map(Number) : [4, 16];

function documents(): Doc[] {
  const pages: [string, string][] = [];
  const dev = ['../shared/data/readability-test-pages', '/work/shared/data/readability-test-pages'].find((d) => existsSync(d));
  if (dev) for (const d of readdirSync(dev).sort()) if (existsSync(join(dev, d, 'source.html'))) pages.push([d, readFileSync(join(dev, d, 'source.html'), 'utf8')]);
  const samples = join('data-samples', 'web');
  for (const f of readdirSync(samples).sort()) if (f.endsWith('.html')) pages.push([f, readFileSync(join(samples, f), 'utf8')]);
  const docs: Doc[] = [];
  for (const [name, html] of pages) {
    const r = rewriteWithRules(html);
    if (r.ok) docs.push({ id: name, kind: 'web', source: name, text: r.markdown, meta: {} });
  }
  return docs;
}

/** The server in its own process; `stop` ends it and returns what it says it cost. */
async function startServer(): Promise<{ url: string; stop: () => Promise<{ requests: number; cpu_ms: number } | undefined> }> {
  const child = spawn(process.execPath, [join('dist', 'scripts', 'synth-qa-server.js'), '--latency-ms', String(latencyMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error('the server exited before printing its URL');
  const stop = async () => {
    child.kill('SIGTERM');
    const last = await lines.next();
    return last.done ? undefined : (JSON.parse(last.value) as { requests: number; cpu_ms: number });
  };
  return { url: first.value, stop };
}

async function round(docs: Doc[], url: string, cacheDir: string, concurrency: number) {
  const ctx = defaultContext({ log: () => {} });
  const o = resolveSynthQaOptions({ llmEndpoint: url, llmModel: 'bench', cacheDir, llmConcurrency: concurrency, truncate: true });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const samples = await collect(synthQaStage(o)(countedIn(fromArray(docs), ctx.ledger), ctx));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const s = synthQaStats(ctx);
  if (!ctx.ledger.balanced()) throw new Error('the ledger does not balance');
  const asked = s.documents.in - Object.values(s.documents.skipped).reduce((a, b) => a + b, 0);
  return { seconds, cpuMs: (cpu.user + cpu.system) / 1000, samples: samples.length, asked, s };
}

const docs = documents();
const chars = docs.reduce((n, d) => n + d.text.length, 0);
const server = await startServer();
const work = mkdtempSync(join(tmpdir(), 'midpack-bench-qa-'));
try {
  console.log(`synth-qa: ${docs.length} documents (${(chars / 1e6).toFixed(2)} M characters), server latency ${latencyMs} ms per request, its own process; load average ${loadavg()[0]!.toFixed(1)}`);
  await round(docs.slice(0, 8), server.url, join(work, 'warm'), 4); // warm-up
  let last = { cacheDir: '', concurrency: 0 };
  for (const concurrency of concurrencies) {
    const cacheDir = join(work, `c${concurrency}`);
    const r = await round(docs, server.url, cacheDir, concurrency);
    const ideal = (concurrency * 1000) / latencyMs;
    console.log(
      `  concurrency ${String(concurrency).padStart(2)}: ${(r.asked / r.seconds).toFixed(1)} documents/s asked (the latency alone allows ${ideal.toFixed(0)}), ` +
        `${r.s.llm.requests} requests (${r.s.llm.cache_hits} repeated pages from the cache), ${r.samples} samples; midpack CPU ${(r.cpuMs / r.asked).toFixed(2)} ms per document ` +
        `(${(r.asked / (r.cpuMs / 1000)).toFixed(0)} documents per CPU second: midpack's own ceiling on one core)`,
    );
    last = { cacheDir, concurrency };
  }
  const cached = await round(docs, server.url, last.cacheDir, last.concurrency);
  console.log(
    `  rerun from the cache: ${(cached.asked / cached.seconds).toFixed(0)} documents/s, ${cached.s.llm.requests} requests, ${cached.s.llm.cache_hits} cache hits; ` +
      `midpack CPU ${(cached.cpuMs / cached.asked).toFixed(2)} ms per document`,
  );
  console.log(`  peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (this process)`);
  const cost = await server.stop();
  if (cost) console.log(`  the scripted server, for comparison: ${(cost.cpu_ms / cost.requests).toFixed(2)} ms CPU per request over ${cost.requests} requests`);
} finally {
  await server.stop().catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
}
