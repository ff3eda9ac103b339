/**
 * npm run bench:merge — what `midpack merge` costs next to the pack it follows, in one run.
 *
 * Builds (once, in .bench/) a corpus of real code and prose (scripts/build-e2e-corpus.ts), packs
 * it as R ranks of a Slurm array (SLURM_ARRAY_TASK_ID/COUNT, one after another), then merges the
 * rank outputs in separate child processes, each with its own peak RSS:
 *   link    the default (shards hard-linked, Megatron and doc lengths streamed)
 *   copy    --copy (every shard byte copied too)
 *   verify  --verify (every rank file's sha256 recomputed first) with hard links
 * Prints the rank output size, each merge's throughput over it, merge time / pack time, and
 * peak RSS (which depends on the bin count, 8 bytes a bin, not on the corpus bytes).
 *
 *   npm run bench:merge -- [--mb 20] [--ranks 4] [--seq-len 262144]
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../test/helpers/paths.js';
import { cliPath } from '../test/helpers/run-cli.js';
import { benchCorpus, numberFlag } from './build-e2e-corpus.js';

interface Measure {
  mode: string;
  seconds: number;
  bins: number;
  maxRssMB: number;
}

async function child(mode: string, out: string, dirs: string[]): Promise<void> {
  const { mergeRanks } = await import('../src/job/merge.js');
  const t0 = performance.now();
  const s = await mergeRanks(dirs, out, { copy: mode === 'copy', verify: mode === 'verify' });
  const m: Measure = { mode, seconds: (performance.now() - t0) / 1000, bins: s.manifest.counts.bins, maxRssMB: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(JSON.stringify(m) + '\n');
}

function merge(mode: string, out: string, dirs: string[]): Measure {
  rmSync(out, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', mode, out, ...dirs], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`merge (${mode}) failed with status ${r.status}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Measure;
}

function treeBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) n += e.isDirectory() ? treeBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size;
  return n;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1]!, args[2]!, args.slice(3));
  const mb = numberFlag(args, '--mb', 20);
  const ranks = numberFlag(args, '--ranks', 4);
  const seqLen = numberFlag(args, '--seq-len', 262_144);
  const corpus = await benchCorpus(mb);
  const bench = join(repoRoot, '.bench');
  const run = join(bench, 'merge-run');
  rmSync(run, { recursive: true, force: true });

  const t0 = performance.now();
  for (let r = 0; r < ranks; r++) {
    const env = { ...process.env, SLURM_ARRAY_TASK_ID: String(r), SLURM_ARRAY_TASK_COUNT: String(ranks) };
    const p = spawnSync(process.execPath, [cliPath, 'pack', corpus, '--out', run, '--seq-len', String(seqLen), '--workers', '2', '--no-progress', '--rows-per-shard', '16'], { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    if (p.status !== 0) throw new Error(`pack rank ${r} failed with status ${p.status}: ${p.stderr}`);
  }
  const packSeconds = (performance.now() - t0) / 1000;
  const dirs = Array.from({ length: ranks }, (_, r) => join(run, `rank-${String(r).padStart(5, '0')}`));
  const rankMB = dirs.reduce((s, d) => s + treeBytes(d), 0) / 1e6;

  const measures = ['link', 'copy', 'verify'].map((mode) => merge(mode, join(bench, `merge-out-${mode}`), dirs));
  const line = (m: Measure) =>
    `  ${m.mode.padEnd(7)} ${m.seconds.toFixed(3)} s  ${(rankMB / m.seconds).toFixed(0).padStart(6)} MB/s  merge/pack ${(m.seconds / packSeconds).toFixed(4)}  peak RSS ${m.maxRssMB.toFixed(0)} MB`;
  process.stdout.write(
    [
      `midpack bench:merge — ${mb} MB corpus, ${ranks} ranks, L = ${seqLen}, ${measures[0]!.bins} bins, ${rankMB.toFixed(1)} MB of rank outputs`,
      `  pack (all ranks, 2 workers each, one after another) ${packSeconds.toFixed(1)} s`,
      ...measures.map(line),
      '',
    ].join('\n'),
  );
  for (const m of measures) rmSync(join(bench, `merge-out-${m.mode}`), { recursive: true, force: true });
  rmSync(run, { recursive: true, force: true });
}

main().catch((e) => {
  process.stderr.write(`bench:merge: ${e instanceof Error ? e.message : e}\n`);
  process.exitCode = 1;
});
