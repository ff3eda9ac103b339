import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/job/api.js';
import { OUTPUT_MARKER } from '../../src/io/inputs.js';
import { getObject, listObjects, putObject } from '../../src/io/s3.js';
import { repoRoot } from '../helpers/paths.js';
import { putCorpusTwice, startS3, type TestS3 } from '../helpers/s3-server.js';
import { slow } from '../helpers/tiers.js';
import { midpack } from '../helpers/run-cli.js';
import { stagingDir } from '../../src/io/remote-out.js';
import { MEASURED_REPORT_KEYS } from '../../src/report/figures.js';

/**
 * `run` from a bucket to a bucket against the same run on local paths: the same shards, Megatron
 * files, lengths and report, byte for byte, for 1 and 2 workers; the manifest differs only in
 * where it says the inputs were.
 */
let s3: TestS3;
const tmp = mkdtempSync(join(tmpdir(), 'midpack-s3-run-'));
const inputs = [
  ['docs/packages.jsonl', join(repoRoot, 'data-samples', 'docs', 'packages.jsonl')],
  ['docs/more/docs-zstd.parquet', join(repoRoot, 'test', 'fixtures', 'io', 'docs-zstd.parquet')],
  ['docs/more/docs-pyarrow.arrow', join(repoRoot, 'test', 'fixtures', 'io', 'docs-pyarrow.arrow')],
] as const;

before(async () => {
  process.env.MIDPACK_WORK_DIR = join(tmp, 'staging');
  s3 = await startS3();
  await s3.bucket('corpus');
  await putCorpusTwice(inputs, 'corpus', tmp);
});
after(async () => s3.stop());

function config(inputDir: string, out: string): Record<string, unknown> {
  return {
    out,
    seed: 7,
    sources: [{ name: 'docs', type: 'documents', inputs: [inputDir], then: [{ type: 'fim', options: { fimRate: 0.5 } }] }],
    pack: { seqLen: 4096, rowsPerShard: 8 },
  };
}

/** report.json without what the machine measured (times, peak RSS) and where the inputs were. */
const withoutTimes = (r: Buffer) => {
  const j = JSON.parse(r.toString('utf8'));
  for (const k of [...MEASURED_REPORT_KEYS, 'stage_times']) delete j[k];
  return j;
};

const withoutInputPaths = (m: Buffer) => {
  const j = JSON.parse(m.toString('utf8'));
  for (const i of j.inputs ?? []) i.path = '(where)';
  // Hashes input folders by their path (files by size and sha256), so it says where they were too.
  j.inputs_fingerprint = '(where)';
  return j;
};

test('run from a bucket to a bucket equals the run on local paths, byte for byte, with 1 and 2 workers', slow, async () => {
  const localOut = join(tmp, 'local-out');
  await run(config(join(tmp, 'in', 'docs'), localOut), { workers: 1 });
  const marker = JSON.parse(readFileSync(join(localOut, OUTPUT_MARKER), 'utf8')) as { files: string[] };
  assert.ok(marker.files.some((f) => f.startsWith('shards/part-')));
  for (const workers of [1, 2]) {
    const out = `s3://corpus/out-w${workers}`;
    const r = await run(config('s3://corpus/in/docs', out), { workers });
    assert.equal(r.out, out);
    for (const f of marker.files) {
      const remote = await getObject(`${out}/${f}`);
      assert.ok(remote, `${out}/${f} is there`);
      if (f === 'manifest.json') assert.deepEqual(withoutInputPaths(remote), withoutInputPaths(readFileSync(join(localOut, f))));
      else if (f === 'report.json') assert.deepEqual(withoutTimes(remote), withoutTimes(readFileSync(join(localOut, f))));
      else if (f === 'report.html') continue; // the report.json figures drawn, with the input paths and times
      else assert.ok(remote.equals(readFileSync(join(localOut, f))), `${f} (workers ${workers}) equals the local run's`);
    }
    const keys = (await listObjects(`${out}/`)).map((o) => o.key.slice(`out-w${workers}/`.length));
    assert.ok(!keys.includes('.midpack.lock'), 'the lock is released');
    assert.ok(!keys.some((k) => k.startsWith('.work') || k.startsWith('.run') || /\.tmp-/.test(k)), `only the output goes up: ${keys.join(', ')}`);
  }
  // A rerun finds its own finished output: the same objects, the data untouched (the report's measurements are new).
  const data = async () => (await listObjects('s3://corpus/out-w1/')).map((o) => [o.key, /report\.|manifest\.json|\.midpack-output/.test(o.key) ? '' : o.etag]);
  const before = await data();
  await run(config('s3://corpus/in/docs', 's3://corpus/out-w1'), { workers: 1 });
  assert.deepEqual(await data(), before);
});

test('the config key workDir places the staging folder, as --work-dir does, and changes no output byte', slow, async () => {
  const workDir = join(tmp, 'config-work');
  await run({ ...config('s3://corpus/in/docs', 's3://corpus/out-cfgwork'), workDir }, { workers: 1 });
  assert.ok(readdirSync(workDir).length > 0, 'the staging folder is under the config\'s workDir');
  const data = async (p: string) => (await listObjects(`s3://corpus/${p}/`)).filter((o) => !/report\.|manifest\.json|\.midpack-output/.test(o.key)).map((o) => [o.key.slice(p.length), o.etag]);
  assert.deepEqual(await data('out-cfgwork'), await data('out-w1'));
  const fp = async (p: string) => JSON.parse((await getObject(`s3://corpus/${p}/manifest.json`))!.toString('utf8')).inputs_fingerprint;
  assert.equal(await fp('out-cfgwork'), await fp('out-w1'));
  await assert.rejects(run({ ...config(join(tmp, 'in', 'docs'), join(tmp, 'local-cfgwork')), workDir }, { workers: 1 }), /work-dir.*applies only when --out is an s3:\/\/ prefix/);
});

test('run refuses a prefix that holds other files, and one another job holds, each in one line, writing nothing', slow, async () => {
  await putObject('s3://corpus/busy/notes.txt', 'a user file\n');
  await assert.rejects(run(config('s3://corpus/in/docs', 's3://corpus/busy'), { workers: 1 }), /^Error: s3:\/\/corpus\/busy is not empty and is not a midpack output \(it holds notes\.txt\)/);
  await putObject('s3://corpus/locked/.midpack.lock', JSON.stringify({ pid: 1, host: 'another-host', started: '2026-01-01T00:00:00Z', token: 'x' }));
  await assert.rejects(run(config('s3://corpus/in/docs', 's3://corpus/locked'), { workers: 1 }), /s3:\/\/corpus\/locked is in use by another midpack job \(process 1 on another-host/);
  assert.deepEqual((await listObjects('s3://corpus/busy/')).map((o) => o.key), ['busy/notes.txt']);
  assert.deepEqual((await listObjects('s3://corpus/locked/')).map((o) => o.key), ['locked/.midpack.lock']);
  await assert.rejects(run(config('s3://no-such-bucket/in', 's3://corpus/x'), { workers: 1 }), /s3:\/\/no-such-bucket: no such bucket/);
  assert.deepEqual(await listObjects('s3://corpus/x/'), []);
});

test('a run whose upload was cut off resumes from what the bucket holds, to the same bytes', slow, async () => {
  const out = 's3://corpus/resume';
  await run(config('s3://corpus/in/docs', out), { workers: 1 });
  const want = new Map((await listObjects(`${out}/`)).filter((o) => !/report\.|\.midpack-output/.test(o.key)).map((o) => [o.key, o.etag]));
  // As a kill between uploads leaves it: the manifest (the commit) and a shard not yet up, the staging folder gone (another node).
  const { deleteObjects } = await import('../../src/io/s3.js');
  const { rmSync } = await import('node:fs');
  await deleteObjects([`${out}/manifest.json`, `${out}/shards/part-00000.arrow`]);
  rmSync(process.env.MIDPACK_WORK_DIR!, { recursive: true, force: true });
  await run(config('s3://corpus/in/docs', out), { workers: 1 });
  const got = new Map((await listObjects(`${out}/`)).filter((o) => !/report\.|\.midpack-output/.test(o.key)).map((o) => [o.key, o.etag]));
  assert.deepEqual(got, want);

});

test('run --phase pack --counts s3://... (a masked run over 2 ranks, bucket to bucket): the same bytes as with the counts file on local disk', slow, async () => {
  // The same two-rank masked run from and to the bucket twice through the CLI, each rank
  // prepared, the ranks' counts merged, each rank packed: once with the merged counts on local
  // disk, once with the same counts read from the bucket.
  const env = { ...s3.env, MIDPACK_WORK_DIR: join(tmp, 'masked-staging') };
  const configs = ['a', 'b'].map((k) => {
    const path = join(tmp, `masked-${k}.json`);
    writeFileSync(path, JSON.stringify({ ...config('s3://corpus/in/docs', `s3://corpus/masked-${k}`), mask: { minDocs: 2 } }));
    return path;
  });
  const ok = (args: string[]) => {
    const r = midpack([...args, '--world-size', '2', '--no-progress', '--workers', '1'], { env });
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  };
  for (const c of configs) for (const r of ['0', '1']) ok(['run', c, '--phase', 'prepare', '--rank', r]);
  // A rank's counts stay in its staging folder (a prepare phase publishes nothing).
  const rankCounts = ['rank-00000', 'rank-00001'].map((d) => join(stagingDir('s3://corpus/masked-a', env.MIDPACK_WORK_DIR), d, '.run', 'mask-counts.bin'));
  const counts = join(tmp, 'masked-counts.bin');
  const merged = midpack(['mask', 'merge', ...rankCounts, '--out', counts]);
  assert.equal(merged.status, 0, merged.stderr);
  await putObject('s3://corpus/counts/masked.bin', readFileSync(counts));
  for (const r of ['0', '1']) {
    ok(['run', configs[0]!, '--phase', 'pack', '--rank', r, '--counts', counts]);
    ok(['run', configs[1]!, '--phase', 'pack', '--rank', r, '--counts', 's3://corpus/counts/masked.bin']);
  }
  for (const rank of ['rank-00000', 'rank-00001']) {
    const manifest = (k: string) => getObject(`s3://corpus/masked-${k}/${rank}/manifest.json`).then((b) => JSON.parse(b!.toString('utf8')));
    const [a, b] = [await manifest('a'), await manifest('b')];
    assert.ok(a.counts.masked_tokens > 0, 'the counts masked something: the comparison is of real masks');
    assert.equal(b.counts.masked_tokens, a.counts.masked_tokens);
    const files = [...a.shards.map((x: { filename: string }) => `shards/${x.filename}`), 'doc_lengths.u32', ...readdirSync(join(stagingDir('s3://corpus/masked-a', env.MIDPACK_WORK_DIR), rank, 'megatron')).map((f) => `megatron/${f}`)];
    for (const f of files) {
      const [x, y] = [await getObject(`s3://corpus/masked-a/${rank}/${f}`), await getObject(`s3://corpus/masked-b/${rank}/${f}`)];
      assert.ok(x && y?.equals(x), `${rank}/${f}: the same bytes with the counts in the bucket`);
    }
  }
});
