import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RANKS_RECORD, checkRankSet, resolveRank, resolveRankAt } from '../../src/core/ranks.js';
import { parseRunConfig } from '../../src/job/run-config.js';

/**
 * Rank and world size from flags, the scheduler's variables and OUT's record. These tests set the
 * variables by hand, as Slurm 22.05 sets them (observed under a real slurmctld: `--array=0,2`
 * gives MIN=0 MAX=2 STEP=1 COUNT=2; a resubmitted `--array=1` gives MIN=MAX=1, COUNT=1); the
 * real scheduler runs in test/slurm/slurm.test.ts.
 */
const slurm = (job: number, id: number, min: number, max: number, step = 1, count?: number) => ({
  SLURM_ARRAY_JOB_ID: String(job),
  SLURM_ARRAY_TASK_ID: String(id),
  SLURM_ARRAY_TASK_MIN: String(min),
  SLURM_ARRAY_TASK_MAX: String(max),
  SLURM_ARRAY_TASK_STEP: String(step),
  SLURM_ARRAY_TASK_COUNT: String(count ?? Math.floor((max - min) / step) + 1),
});

test('hand-set Slurm variables: the world is the array span, not its task count; a step divides', () => {
  assert.deepEqual(resolveRank({}, slurm(1, 2, 0, 2, 1, 2)), { rank: 2, worldSize: 3 }, '--array=0,2: task 2 is rank 2 of 3');
  assert.deepEqual(resolveRank({}, slurm(1, 3, 1, 3)), { rank: 2, worldSize: 3 }, '--array=1-3 is 1-based');
  assert.deepEqual(resolveRank({}, slurm(1, 4, 1, 7, 3)), { rank: 1, worldSize: 3 }, '--array=1-7:3');
  assert.deepEqual(resolveRank({}, { SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '3' }), { rank: 1, worldSize: 3 }, 'ID and COUNT alone');
  assert.deepEqual(resolveRank({ rank: 0, worldSize: 2 }, slurm(1, 2, 0, 2)), { rank: 0, worldSize: 2 }, 'flags win');
  assert.deepEqual(resolveRank({}, { JOB_COMPLETION_INDEX: '2', JOB_COMPLETIONS: '4' }), { rank: 2, worldSize: 4 });
  assert.throws(() => resolveRank({}, { JOB_COMPLETION_INDEX: '2' }), /JOB_COMPLETIONS/);
  assert.deepEqual(resolveRank({}, {}), { rank: 0, worldSize: 1 });
});

test('hand-set Slurm variables: a resubmitted task takes its rank and world size from OUT/.midpack-ranks.json', () => {
  const out = mkdtempSync(join(tmpdir(), 'midpack-ranks-rec-'));
  assert.deepEqual(resolveRankAt(out, {}, slurm(7, 0, 0, 2, 1, 2)), { rank: 0, worldSize: 3 });
  const record = JSON.parse(readFileSync(join(out, RANKS_RECORD), 'utf8'));
  assert.deepEqual([record.world_size, record.slurm], [3, { array_job_id: '7', min: 0, max: 2, step: 1 }]);
  assert.deepEqual(resolveRankAt(out, {}, slurm(7, 2, 0, 2, 1, 2)), { rank: 2, worldSize: 3 });
  // `sbatch --array=1` later: a one-task array of its own
  assert.deepEqual(resolveRankAt(out, {}, slurm(9, 1, 1, 1)), { rank: 1, worldSize: 3 });
  // a new, larger array into the same OUT; another stated world size; no scheduler at all
  assert.throws(() => resolveRankAt(out, {}, slurm(11, 0, 0, 3)), (e: Error) => /tasks 0-3/.test(e.message) && /records world size 3, Slurm array 0-2 of job 7/.test(e.message));
  assert.throws(() => resolveRankAt(out, { worldSize: 4 }, slurm(9, 1, 1, 1)), /--world-size 4 contradicts .*records world size 3/);
  assert.throws(() => resolveRankAt(out, {}, {}), /give --rank R \(0\.\.2\)/);
  assert.deepEqual(resolveRankAt(out, { rank: 2 }, {}), { rank: 2, worldSize: 3 });

  const stepped = mkdtempSync(join(tmpdir(), 'midpack-ranks-step-'));
  assert.deepEqual(resolveRankAt(stepped, {}, slurm(3, 1, 1, 7, 3)), { rank: 0, worldSize: 3 });
  assert.deepEqual(resolveRankAt(stepped, {}, slurm(4, 4, 4, 4)), { rank: 1, worldSize: 3 }, 'task 4 of 1-7:3, resubmitted');
  assert.throws(() => resolveRankAt(stepped, {}, slurm(5, 5, 5, 5)), /task 5 is not on the array/);
});

test('hand-set Kubernetes variables: a pod whose JOB_COMPLETIONS contradicts the record is refused; one process is never recorded', () => {
  const out = mkdtempSync(join(tmpdir(), 'midpack-ranks-k8s-'));
  assert.deepEqual(resolveRankAt(out, {}, { JOB_COMPLETION_INDEX: '1', JOB_COMPLETIONS: '3' }), { rank: 1, worldSize: 3 });
  assert.deepEqual(resolveRankAt(out, {}, { JOB_COMPLETION_INDEX: '2', JOB_COMPLETIONS: '3' }), { rank: 2, worldSize: 3 });
  assert.throws(() => resolveRankAt(out, {}, { JOB_COMPLETION_INDEX: '1', JOB_COMPLETIONS: '4' }), /JOB_COMPLETIONS 4 contradicts .*world size 3/);
  const single = mkdtempSync(join(tmpdir(), 'midpack-ranks-one-'));
  assert.deepEqual(resolveRankAt(single, {}, {}), { rank: 0, worldSize: 1 });
  assert.throws(() => readFileSync(join(single, RANKS_RECORD)), /ENOENT/);
});

test('a set of ranks: doubled and missing ranks are named; --allow-missing-ranks returns the missing', () => {
  const part = (r: number) => ({ ranks: [r], worldSize: 3, name: `c${r}` });
  assert.throws(() => checkRankSet('mask merge', [part(0), part(2)], false), /mask merge: missing rank 1 of 0\.\.2/);
  assert.throws(() => checkRankSet('mask merge', [part(0), part(1), part(1), part(2)], true), /rank 1 is given twice: c1 and c1/);
  assert.throws(() => checkRankSet('mask merge', [part(0), { ranks: [1], worldSize: 2, name: 'x' }], true), /x comes from a run of world size 2/);
  assert.deepEqual(checkRankSet('mask merge', [part(0), part(2)], true), { ranks: [0, 2], worldSize: 3, missing: [1] });
});

test('a run config may state worldSize, checked like every key', () => {
  const raw = (worldSize: unknown) => ({ out: 'o', worldSize, sources: [{ name: 'd', type: 'documents', inputs: ['x.jsonl'] }] });
  assert.equal(parseRunConfig(raw(3), 'c.yaml').worldSize, 3);
  assert.throws(() => parseRunConfig(raw(0), 'c.yaml'), /c\.yaml: worldSize/);
  assert.equal(parseRunConfig({ out: 'o', sources: raw(1).sources }, 'c.yaml').worldSize, undefined);
});
