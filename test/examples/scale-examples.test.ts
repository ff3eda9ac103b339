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

test('the bucket variants: an Indexed Job and a Slurm array from s3:// to s3://, each rank with local scratch and no shared volume, then a server-side merge', () => {
  const dir = renderExamples('kubernetes', mkdtempSync(join(tmpdir(), 'midpack-k8s-bucket-')));
  const job = YAML.parse(readFileSync(join(dir, 'bucket-run-job.yaml'), 'utf8'));
  assert.equal(job.spec.completionMode, 'Indexed');
  const c = job.spec.template.spec.containers[0];
  assert.equal(c.env.find((e: { name: string }) => e.name === 'JOB_COMPLETIONS').value, String(job.spec.completions));
  assert.deepEqual([c.resources.requests.cpu, c.resources.requests.memory], ['2', '1Gi']);
  const work = c.args[c.args.indexOf('--work-dir') + 1];
  const mount = c.volumeMounts.find((m: { mountPath: string }) => m.mountPath === work);
  const volumes = job.spec.template.spec.volumes as { name: string; emptyDir?: object; persistentVolumeClaim?: object }[];
  assert.ok(volumes.find((v) => v.name === mount.name)?.emptyDir, '--work-dir is the pod\'s own emptyDir');
  assert.ok(!volumes.some((v) => v.persistentVolumeClaim), 'no shared volume');
  for (const name of ['AWS_ENDPOINT_URL', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) assert.ok(c.env.some((e: { name: string }) => e.name === name), name);
  const merge = YAML.parse(readFileSync(join(dir, 'bucket-merge-job.yaml'), 'utf8')).spec.template.spec.containers[0];
  assert.deepEqual(merge.args.slice(0, 5), ['midpack', 'merge', 's3://BUCKET/run', '--out', 's3://BUCKET/merged']);
  assert.match(readFileSync(join(dir, 'submit-bucket.sh'), 'utf8'), /for step in run merge/);
  const slurm = readFileSync(join(renderExamples('slurm', join(dir, 'slurm')), 'submit-bucket.sh'), 'utf8');
  assert.match(slurm, /--array=0-\$last --export=ALL,MIDPACK_WORK_DIR="\$work" \\\n\s+"\$here\/run-phase\.sbatch" all "\$config" --world-size "\$ranks"/);
  assert.deepEqual(slurm.match(/--dependency=afterok:\$(\w+)/g), ['--dependency=afterok:$run']);
  assert.match(slurm, /--wrap "midpack merge \$out --out \$merged"/);
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
