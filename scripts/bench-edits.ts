/**
 * Edits benchmark on pull-request instances: midpack's own history turned into SWE-bench rows
 * (each non-merge commit of the last COMMITS: base_commit = its parent, patch = its non-test
 * changes, test_patch = its test changes, problem_statement = its message), run through the
 * edits source (sr and diff samples, every one verified, git apply --check batched) with
 * retrieval on (BM25, 3 files) and off, in one process, one after the other. Prints instances/s
 * (wall and per CPU second), the ratio of the two runs, and the peak RSS after each.
 *
 *   npm run bench:edits [-- COMMITS]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultContext } from '../src/core/stage.js';
import { editsSource } from '../src/stages/edits/source.js';
import { resolveEditsOptions } from '../src/stages/edits/options.js';
import { repoRoot } from '../test/helpers/paths.js';
import { instancesFromHistory } from '../test/helpers/instances.js';

const COMMITS = Number(process.argv[2] ?? 200);
const work = mkdtempSync(join(tmpdir(), 'midpack-bench-edits-'));
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 30 });

const repos = join(work, 'repos');
mkdirSync(repos);
const clone = join(repos, 'midpack');
git(work, 'clone', '-q', '--no-checkout', repoRoot, clone);
const rows = instancesFromHistory(clone, { repo: 'midpack/midpack', idPrefix: 'midpack', maxCount: COMMITS }).map((r) => JSON.stringify(r));
const file = join(work, 'instances.jsonl');
writeFileSync(file, rows.join('\n') + '\n');
console.log(`corpus: ${rows.length} instances from the last ${COMMITS} commits of midpack's own history (${repoRoot})`);

const rssMb = () => (process.resourceUsage().maxRSS / 1024).toFixed(0);

async function run(label: string, raw: Record<string, unknown>): Promise<number> {
  const ctx = defaultContext({ seed: 1, workDir: join(work, 'tmp'), log: () => {} });
  const options = resolveEditsOptions({ repos, formats: 'sr,diff', ...raw });
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let samples = 0;
  for await (const _ of editsSource([file], options, ctx)) samples++;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(cpu0);
  const cpu = (c.user + c.system) / 1e6;
  const l = ctx.ledger.toJSON();
  const stats = ctx.stats.edits as { context: { files: Record<string, number>; left_out: Record<string, number>; blobs_indexed: number } };
  const ctxFiles = Object.entries(stats.context.files).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(
    `${label.padEnd(26)} ${(l.records_in / s).toFixed(1).padStart(6)} instances/s wall ${(l.records_in / cpu).toFixed(1).padStart(6)} per CPU second  ` +
      `(${l.records_out} kept, ${samples} samples; context: ${ctxFiles}; left out ${Object.values(stats.context.left_out).reduce((a, b) => a + b, 0)}; ` +
      `blobs indexed ${stats.context.blobs_indexed}; dropped ${JSON.stringify(l.dropped)})  peak RSS so far ${rssMb()} MB`,
  );
  return l.records_in / s;
}

try {
  const off = await run('retrieval off', { retrieve: 0 });
  const on = await run('retrieval on (--retrieve 3)', { retrieve: 3 });
  console.log(`retrieval on / off: ${(on / off).toFixed(2)}x the instances/s`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
