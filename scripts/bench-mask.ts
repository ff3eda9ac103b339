/**
 * Benchmark of redundancy masking over a corpus of at least 1 GB built from the sources in
 * node_modules: prints MB/s of each pass (count, apply) and each pass's peak RSS against
 * the stated limit. Wall MB/s depends on what else the (shared) machine runs; MB/s per CPU
 * second of the pass's process is the steadier figure. node_modules alone is ~33 MB of text, so the corpus repeats it; in every
 * copy after the first each line is tagged with the copy number, so distinct segments grow
 * with the corpus (the worst case for the count table, which must spill and merge).
 *
 *   npm run bench:mask [-- --mb 1024 --memory-mb 128]
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { docToJson } from '../src/doc/document.js';
import { AtomicLineWriter } from '../src/io/jsonl.js';
import { defaultContext } from '../src/core/stage.js';
import { readDocuments } from '../src/io/documents.js';
import { writeDocsJsonl } from '../src/io/jsonl.js';
import { countSegments, loadFrequent, maskApply } from '../src/stages/mask/index.js';
import { corpusDocs, listPackages } from './build-mask-corpus.js';

const RSS_LIMIT_MB = 2048;
const self = fileURLToPath(import.meta.url);

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '1024' },
    'memory-mb': { type: 'string', default: '128' },
    dir: { type: 'string', default: join(tmpdir(), 'midpack-bench-mask') },
    pass: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const dir = values.dir!;
const corpus = join(dir, 'corpus.jsonl');
const counts = join(dir, 'corpus.counts');

async function buildCorpus(targetBytes: number): Promise<{ documents: number; copies: number }> {
  const packages = listPackages(resolve('node_modules'));
  const w = new AtomicLineWriter(corpus);
  let bytes = 0;
  let documents = 0;
  let copy = 0;
  for (; bytes < targetBytes; copy++) {
    for (const d of corpusDocs(packages, 'file', copy)) {
      const text = copy === 0 ? d.text : d.text.replace(/\n/g, ` /*${copy}*/\n`);
      const line = docToJson({ ...d, text });
      await w.write(line);
      bytes += Buffer.byteLength(line) + 1;
      documents++;
    }
  }
  await w.close();
  return { documents, copies: copy };
}

/** One pass in this (child) process: prints its own figures as JSON. */
async function runPass(pass: string): Promise<void> {
  const ctx = defaultContext({ log: () => {} });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let extra: Record<string, unknown> = {};
  if (pass === 'count') {
    const s = await countSegments(readDocuments([corpus], ctx.ledger), counts, { memoryMb: Number(values['memory-mb']) }, ctx);
    extra = { documents: s.header.documents, segments_distinct: s.header.segments_distinct, spilled_runs: s.runs };
  } else {
    const frequent = loadFrequent(counts, {});
    const out = join(dir, 'masked.jsonl');
    await writeDocsJsonl(out, maskApply(frequent, {})(readDocuments([corpus], ctx.ledger), ctx));
    const m = ctx.stats.mask as { threshold_docs: number; segments_frequent: number; masked_chars_fraction: number };
    extra = { threshold_docs: m.threshold_docs, segments_frequent: m.segments_frequent, masked_chars_fraction: m.masked_chars_fraction };
    rmSync(out, { force: true });
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpu_seconds = (cpu.user + cpu.system) / 1e6;
  process.stdout.write(JSON.stringify({ seconds, cpu_seconds, max_rss_mb: process.resourceUsage().maxRSS / 1024, balanced: ctx.ledger.balanced(), ...extra }) + '\n');
}

async function main(): Promise<void> {
  if (values.pass) return runPass(values.pass);
  mkdirSync(dir, { recursive: true });
  const built = await buildCorpus(Number(values.mb) * 1e6);
  const mb = statSync(corpus).size / 1e6;
  console.log(`corpus: ${built.documents} documents, ${mb.toFixed(0)} MB (node_modules sources x${built.copies}, lines tagged per copy)`);
  let ok = true;
  for (const pass of ['count', 'apply']) {
    const r = spawnSync(process.execPath, [self, '--pass', pass, '--dir', dir, '--memory-mb', values['memory-mb']!], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`${pass} pass failed: ${r.stderr}`);
    const f = JSON.parse(r.stdout.trim().split('\n').pop()!) as { seconds: number; cpu_seconds: number; max_rss_mb: number; balanced: boolean };
    const { seconds, cpu_seconds, max_rss_mb, ...rest } = f;
    const underLimit = max_rss_mb <= RSS_LIMIT_MB;
    ok &&= underLimit && f.balanced;
    console.log(
      `mask ${pass}: ${(mb / seconds).toFixed(1)} MB/s wall (${seconds.toFixed(1)} s), ${(mb / cpu_seconds).toFixed(1)} MB/s per CPU second, peak RSS ${max_rss_mb.toFixed(0)} MB ` +
        `(limit ${RSS_LIMIT_MB} MB: ${underLimit ? 'ok' : 'OVER'}), ${JSON.stringify(rest)}`,
    );
  }
  console.log(`count table budget: --memory-mb ${values['memory-mb']}`);
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  if (!ok) process.exitCode = 1;
}

await main();
