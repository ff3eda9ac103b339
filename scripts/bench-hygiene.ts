/**
 * Throughput of the hygiene stages on real code, one process:
 *   npm run bench:hygiene [-- --mb N]
 * The corpus: source files of this checkout's node_modules (.js/.ts/.py/.md), one document a file,
 * up to N MB (default 40), held in memory so each stage is timed alone. Prints MB/s per stage (wall
 * and per CPU second) and the peak RSS after each stage.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Doc } from '../src/doc/document.js';
import { collect, defaultContext, fromArray, type StageContext } from '../src/core/stage.js';
import { countDedup } from '../src/stages/hygiene/dedup-count.js';
import { dedupApply, loadDedupTables } from '../src/stages/hygiene/dedup-apply.js';
import { resolveDedupOptions } from '../src/stages/hygiene/dedup-options.js';
import { decontaminateStage, loadBenchmarks, resolveDecontaminateOptions } from '../src/stages/hygiene/decontaminate.js';
import { redactStage, resolveRedactOptions } from '../src/stages/hygiene/redact.js';

const root = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const mbAt = process.argv.indexOf('--mb');
const budget = (mbAt >= 0 ? Number(process.argv[mbAt + 1]) : 40) * 1e6;
const shared = [resolve(root, '..', 'shared'), '/work/shared'].find((d) => { try { return statSync(d).isDirectory(); } catch { return false; } })!;

function corpus(): Doc[] {
  const docs: Doc[] = [];
  let bytes = 0;
  const stack = [join(root, 'node_modules')];
  while (stack.length && bytes < budget) {
    const dir = stack.pop()!;
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? 1 : -1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile() && /\.(js|ts|py|md)$/.test(e.name) && bytes < budget) {
        const text = readFileSync(p, 'utf8');
        if (!text || text.length > 1 << 20) continue;
        docs.push({ id: `f${docs.length}`, kind: 'text', source: p.slice(root.length + 1), text, meta: {} });
        bytes += Buffer.byteLength(text);
      }
    }
  }
  return docs;
}

const rssMb = () => (process.resourceUsage().maxRSS / 1024).toFixed(0);
const quiet = (): StageContext => {
  const c = defaultContext({ log: () => {} });
  c.ledger.onDrop = () => {};
  return c;
};

async function timed(name: string, bytes: number, fn: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await fn();
  const s = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  console.log(`${name.padEnd(22)} ${(bytes / 1e6 / s).toFixed(1).padStart(7)} MB/s wall  ${(bytes / 1e6 / cpu).toFixed(1).padStart(7)} MB/s per CPU second   peak RSS so far ${rssMb()} MB`);
}

async function main(): Promise<void> {
  const docs = corpus();
  const bytes = docs.reduce((s, d) => s + Buffer.byteLength(d.text), 0);
  console.log(`corpus: ${docs.length} files of node_modules, ${(bytes / 1e6).toFixed(1)} MB`);
  const work = mkdtempSync(join(tmpdir(), 'midpack-bench-hygiene-'));
  try {
    for (const near of [false, true]) {
      const options = resolveDedupOptions({ near, workDir: work });
      await timed(near ? 'dedup --near' : 'dedup (exact)', bytes, async () => {
        const index = join(work, `index-${near}.bin`);
        await countDedup(fromArray(docs), index, options, quiet());
        const tables = loadDedupTables(index, options);
        await collect(dedupApply(tables, options)(fromArray(docs), quiet()));
      });
    }
    const dec = resolveDecontaminateOptions({ benchmarks: [join(shared, 'data', 'benchmarks', 'HumanEval.jsonl.gz')] });
    const index = await loadBenchmarks(dec);
    await timed('decontaminate', bytes, () => collect(decontaminateStage(dec, index, () => {})(fromArray(docs), quiet())));
    await timed('redact', bytes, () => collect(redactStage(resolveRedactOptions({}))(fromArray(docs), quiet())));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`bench-hygiene: ${(e as Error).message}`);
  process.exitCode = 1;
});
