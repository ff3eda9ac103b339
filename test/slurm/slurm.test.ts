import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { repoRoot } from '../helpers/paths.js';
import { slow } from '../helpers/tiers.js';
import { cliPath, midpack } from '../helpers/run-cli.js';
import { documentsOf, readRows } from '../helpers/shard-rows.js';
import { renderExamples } from '../helpers/examples.js';
import { showJob, slurmCmd, slurmLog, startSlurm, waitJob, type SlurmCluster } from '../helpers/slurm.js';

/**
 * SLOW: the masked pipeline under a real one-node Slurm (Debian's slurm-wlm 22.05 and munge,
 * started by scripts/slurm-up.sh, stopped by pid). Jobs are real sbatch arrays with afterok
 * dependencies running the example scripts (examples/slurm) rendered with small numbers:
 * 3 ranks of 2 CPUs and 1 GB, over a small slice of the documented pipeline's sources. Skipped
 * with the reason where Slurm is not installed or cannot start; nothing here sets Slurm's
 * variables by hand.
 */
const started = slow.skip ? { skip: slow.skip } : startSlurm(); // test:quick starts no Slurm
const skip = started.skip ? `slow Slurm tests skipped: ${started.skip}` : false;
const cluster = started.cluster as SlurmCluster;

let dir: string;
let slurmDir: string;
let reference: Map<string, { ids: number[]; mask: number[] }>;

/** The documented pipeline's sources that are quick to run (docs, history, trajectories), masked, at L = 16384. */
function writeConfig(out: string): string {
  const cfg = YAML.parse(readFileSync(join(repoRoot, 'examples', 'pipeline.yaml'), 'utf8'));
  cfg.sources = cfg.sources.filter((s: { name: string }) => ['docs', 'history', 'trajectories'].includes(s.name));
  for (const s of cfg.sources) s.inputs = s.inputs.map((p: string) => join(repoRoot, 'examples', p));
  cfg.pack = { ...cfg.pack, seqLen: 16384 };
  const path = join(dir, `${out}.yaml`);
  writeFileSync(path, YAML.stringify({ ...cfg, out }));
  return path;
}

/** A job's stdout/stderr log files (the scripts' --output patterns), joined. */
function jobLogs(pattern: RegExp): string {
  return readdirSync(dir)
    .filter((f) => pattern.test(f))
    .map((f) => `--- ${f}\n${readFileSync(join(dir, f), 'utf8')}`)
    .join('\n');
}

function sbatch(args: string[]): string {
  return slurmCmd(cluster, ['sbatch', '--parsable', ...args], { cwd: dir }).stdout.trim().split(';')[0]!;
}

/**
 * `sbatch --wait`, polled every 300 ms (sbatch --wait polls at growing intervals of seconds);
 * fails naming the job's logs unless every task COMPLETED.
 */
async function sbatchWait(args: string[]): Promise<void> {
  const id = sbatch(args);
  const tasks = await waitJob(cluster, id, 240_000);
  assert.ok(tasks.every((t) => t.JobState === 'COMPLETED'), `sbatch ${args.join(' ')}: ${tasks.map((t) => `${t.ArrayTaskId ?? ''} ${t.JobState}`).join(', ')}\n${jobLogs(/\.log$/)}`);
}

function assertEqualsOneRank(merged: string): void {
  const manifest = JSON.parse(readFileSync(join(merged, 'manifest.json'), 'utf8'));
  assert.equal(manifest.balanced, true);
  assert.equal(manifest.missing_ranks, undefined);
  assert.equal(manifest.ranks.length, 3);
  const docs = documentsOf(readRows(merged));
  assert.equal(docs.size, reference.size);
  for (const [id, doc] of reference) {
    const other = docs.get(id);
    assert.ok(other, `document ${id} is missing from the merged ranks`);
    assert.deepEqual(other.ids, doc.ids, `tokens of ${id}`);
    assert.deepEqual(other.mask, doc.mask, `loss mask of ${id}`);
  }
}

describe('slow: a real one-node Slurm runs the examples', { skip }, () => {
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'midpack-slurmjobs-'));
    // `midpack` on the jobs' PATH, as an installed package puts it (sbatch exports the environment).
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'midpack'), `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`);
    chmodSync(join(bin, 'midpack'), 0o755);
    cluster.env.PATH = `${bin}:${process.env.PATH}`;
    slurmDir = renderExamples('slurm', join(dir, 'slurm'));
    const one = midpack(['run', writeConfig('single'), '--no-progress']);
    assert.equal(one.status, 0, one.stderr);
    reference = documentsOf(readRows(join(dir, 'single')));
    assert.ok(reference.size > 50, `${reference.size} documents in the one-rank run`);
  });
  after(() => cluster.stop());

  test('examples/slurm/submit.sh as written: each array task gets its CPUs, the afterok chain completes, the merge equals one rank', async () => {
    const cfg = writeConfig('out-a');
    const r = slurmCmd(cluster, ['bash', join(slurmDir, 'submit.sh'), cfg, 'out-a', '3'], { cwd: dir });
    const ids = Object.fromEntries(r.stdout.trim().split(' ').map((kv) => kv.split('=') as [string, string]));
    const merge = await waitJob(cluster, ids.merge!, 240_000);
    const why = () => `${jobLogs(/^midpack-/)}\n${slurmLog(cluster)}`;
    assert.deepEqual(merge.map((t) => t.JobState), ['COMPLETED'], why());
    for (const phase of ['prepare', 'pack']) {
      const tasks = showJob(cluster, ids[phase]!);
      assert.deepEqual(tasks.map((t) => t.ArrayTaskId).sort(), ['0', '1', '2'], `${phase}: one task per rank`);
      for (const t of tasks) {
        assert.equal(t.JobState, 'COMPLETED', `${phase} task ${t.ArrayTaskId}`);
        assert.equal(t.NumCPUs, '2', `${phase} task ${t.ArrayTaskId}: NumCPUs=${t.NumCPUs} (scontrol show job)`);
        assert.match(t.TRES ?? '', /cpu=2,mem=1G/, `${phase} task ${t.ArrayTaskId}: ${t.TRES}`);
      }
    }
    // afterok: each phase started after the one before it ended
    const time = (id: string, key: string) => Math.max(...showJob(cluster, id).map((t) => Date.parse(t[key]!)));
    const order = ['prepare', 'counts', 'pack', 'merge'];
    for (let i = 1; i < order.length; i++) {
      const start = Math.min(...showJob(cluster, ids[order[i]!]!).map((t) => Date.parse(t.StartTime!)));
      assert.ok(start >= time(ids[order[i - 1]!]!, 'EndTime'), `${order[i]} started after ${order[i - 1]} ended`);
    }
    const record = JSON.parse(readFileSync(join(dir, 'out-a', '.midpack-ranks.json'), 'utf8'));
    assert.deepEqual([record.world_size, record.slurm.min, record.slurm.max, record.slurm.step], [3, 0, 2, 1]);
    assertEqualsOneRank(join(dir, 'out-a', 'merged'));
  });

  test('sbatch --array=0,2 prepares ranks 0 and 2 of 3; the counts merge refuses the set naming rank 1 and nothing after it runs; a later --array=1 of the same script prepares rank 1 of 3 and the pipeline equals one rank', async () => {
    const cfg = writeConfig('out-b');
    const phase = join(slurmDir, 'run-phase.sbatch');
    const prepared = (r: number) => join(dir, 'out-b', `rank-0000${r}`, '.run', 'prepared.json');
    await sbatchWait(['--array=0,2', phase, 'prepare', cfg]);
    for (const r of [0, 2]) assert.deepEqual(pick(JSON.parse(readFileSync(prepared(r), 'utf8'))), { rank: r, world_size: 3 });
    assert.equal(existsSync(join(dir, 'out-b', 'rank-00001')), false);

    // The chain as submit.sh builds it, with rank 1 missing.
    const mergeCounts = ['--job-name=midpack-counts', '--output=counts-b-%j.log', '--wrap', 'midpack mask merge out-b/rank-*/.run/mask-counts.bin --out out-b/counts.bin'];
    const counts = sbatch(mergeCounts);
    const pack = sbatch([`--dependency=afterok:${counts}`, '--array=0-2', phase, 'pack', cfg, '--counts', 'out-b/counts.bin']);
    const final = sbatch([`--dependency=afterok:${pack}`, '--wrap', 'midpack merge out-b/rank-* --out out-b/merged']);
    assert.deepEqual((await waitJob(cluster, counts)).map((t) => t.JobState), ['FAILED']);
    assert.match(jobLogs(/^counts-b-/), /mask merge: missing rank 1 of 0\.\.2/);
    assert.equal(existsSync(join(dir, 'out-b', 'counts.bin')), false);
    // The pack array waits on the failed counts job: Slurm marks it as never to run.
    const [packState] = await waitJob(cluster, pack, 30_000, (t) => t.Reason === 'DependencyNeverSatisfied');
    assert.deepEqual([packState!.JobState, packState!.Reason], ['PENDING', 'DependencyNeverSatisfied']);
    assert.equal(showJob(cluster, final)[0]!.JobState, 'PENDING', 'the merge waits on the pack array');
    assert.equal(existsSync(join(dir, 'out-b', 'merged')), false, 'no merged output claims the run');
    slurmCmd(cluster, ['scancel', pack, final]);

    // The resubmission recipe: the same script, --array=1, nothing set by hand.
    await sbatchWait(['--array=1', phase, 'prepare', cfg]);
    assert.deepEqual(pick(JSON.parse(readFileSync(prepared(1), 'utf8'))), { rank: 1, world_size: 3 });
    await sbatchWait(mergeCounts);
    await sbatchWait(['--array=0-2', phase, 'pack', cfg, '--counts', 'out-b/counts.bin']);
    await sbatchWait(['--output=merge-b-%j.log', '--wrap', 'midpack merge out-b/rank-* --out out-b/merged']);
    assertEqualsOneRank(join(dir, 'out-b', 'merged'));
  });
});

const pick = (p: { rank: number; world_size: number }) => ({ rank: p.rank, world_size: p.world_size });

