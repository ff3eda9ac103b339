import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { repoRoot } from '../helpers/paths.js';
import { renderExamples } from '../helpers/examples.js';

/**
 * The cluster examples under examples/ and in docs/scale.md, rendered with small numbers and
 * checked with `bash -n` (shell) and a YAML parser (manifests): each rank asks for its CPUs and
 * memory on the array or Indexed Job itself, and the phases chain with afterok. test/slurm runs
 * the Slurm ones under a real scheduler.
 */
const bashN = (file: string) => spawnSync('bash', ['-n', file], { encoding: 'utf8' });

test('examples/slurm and examples/kubernetes, rendered small, pass bash -n; the array script asks for CPUs and memory per task', () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-examples-'));
  const slurm = renderExamples('slurm', join(dir, 'slurm'));
  const k8s = renderExamples('kubernetes', join(dir, 'kubernetes'));
  const scripts = [...readdirSync(slurm).map((f) => join(slurm, f)), ...readdirSync(k8s).filter((f) => f.endsWith('.sh')).map((f) => join(k8s, f))];
  assert.ok(scripts.length >= 3);
  for (const f of scripts) {
    const r = bashN(f);
    assert.equal(r.status, 0, `${f}: ${r.stderr}`);
  }
  const array = readFileSync(join(slurm, 'run-phase.sbatch'), 'utf8');
  assert.match(array, /^#SBATCH --cpus-per-task=2$/m);
  assert.match(array, /^#SBATCH --mem=1G$/m);
  assert.match(array, /--workers "\$\{SLURM_CPUS_PER_TASK:-1\}"/);
  const submit = readFileSync(join(slurm, 'submit.sh'), 'utf8');
  // the arrays are the rank script itself (its #SBATCH lines), each phase after the one before
  assert.equal(submit.match(/--array=0-\$last "\$here\/run-phase\.sbatch"/g)?.length, 2);
  assert.deepEqual(submit.match(/--dependency=afterok:\$(\w+)/g), ['--dependency=afterok:$prepare', '--dependency=afterok:$counts', '--dependency=afterok:$pack']);
  assert.doesNotMatch(submit, /--array[^\n]*--wrap/, 'no array of --wrap jobs that would lose the per-task resources');
});

test('examples/kubernetes: Indexed Jobs whose JOB_COMPLETIONS equals completions, with CPU and memory requests per pod', () => {
  const dir = renderExamples('kubernetes', mkdtempSync(join(tmpdir(), 'midpack-k8s-')));
  for (const name of ['prepare', 'pack']) {
    const job = YAML.parse(readFileSync(join(dir, `${name}-job.yaml`), 'utf8'));
    assert.equal(job.spec.completionMode, 'Indexed');
    assert.equal(job.spec.completions, 3);
    const c = job.spec.template.spec.containers[0];
    assert.equal(c.env.find((e: { name: string }) => e.name === 'JOB_COMPLETIONS').value, String(job.spec.completions));
    assert.deepEqual(c.resources.requests, { cpu: '2', memory: '1Gi' });
    assert.ok(c.args.includes(name === 'prepare' ? 'prepare' : 'pack'));
  }
  for (const name of ['counts', 'merge']) {
    const job = YAML.parse(readFileSync(join(dir, `${name}-job.yaml`), 'utf8'));
    assert.match(job.spec.template.spec.containers[0].command.join(' '), name === 'counts' ? /midpack mask merge/ : /midpack merge/);
  }
});

test('docs/scale.md: every bash block passes bash -n, and the Slurm section shows the per-task resources and the resubmission', () => {
  const doc = readFileSync(join(repoRoot, 'docs', 'scale.md'), 'utf8');
  const blocks = [...doc.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.ok(blocks.length >= 2, `${blocks.length} bash blocks`);
  const dir = mkdtempSync(join(tmpdir(), 'midpack-docblocks-'));
  blocks.forEach((b, i) => {
    const f = join(dir, `block-${i}.sh`);
    writeFileSync(f, b);
    const r = bashN(f);
    assert.equal(r.status, 0, `block ${i}: ${r.stderr}\n${b}`);
  });
  assert.match(doc, /#SBATCH --cpus-per-task=16/);
  assert.match(doc, /sbatch --array=1 examples\/slurm\/run-phase\.sbatch prepare/);
});
