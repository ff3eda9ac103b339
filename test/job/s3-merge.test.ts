import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getObject, listObjects, putObject } from '../../src/io/s3.js';
import { repoRoot } from '../helpers/paths.js';
import { cliPath, hashTree, midpack } from '../helpers/run-cli.js';
import { faultProxy, pointAt, startS3, type TestS3 } from '../helpers/s3-server.js';
import { slow } from '../helpers/tiers.js';

/**
 * `merge` across a bucket: two ranks packed to s3://corpus/run (their work and staging on a
 * local --work-dir), merged in the bucket by server-side copies, against the same ranks packed
 * and merged on local disk: the same files, byte for byte, and not one shard byte downloaded.
 */
let s3: TestS3;
const tmp = mkdtempSync(join(tmpdir(), 'midpack-s3-merge-'));
const inputs = [join(repoRoot, 'data-samples', 'docs', 'packages.jsonl'), join(repoRoot, 'test', 'fixtures', 'io', 'docs-zstd.parquet')];
/** Reproducible reports (report.html's date fixed, measured times left out), as the other merge tests run. */
const REPRODUCIBLE = { SOURCE_DATE_EPOCH: '1700000000' };

before(async () => {
  s3 = await startS3();
  await s3.bucket('corpus');
});
after(async () => s3.stop());

const packArgs = (out: string, rank: number) => ['pack', ...inputs, '--out', out, '--seq-len', '2048', '--rows-per-shard', '3', '--workers', '1', '--no-progress', '--quiet', '--rank', String(rank), '--world-size', '2'];

/** The CLI in a child process without blocking this one (the counting proxy runs here). */
function midpackAsync(args: string[], env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...REPRODUCIBLE, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (status) => resolve({ status, stderr }));
  });
}

test('pack --work-dir keeps a bucket rank\'s work and staging there; with a local --out it is refused in one line', slow, () => {
  const workDir = join(tmp, 'work');
  for (const rank of [0, 1]) {
    const r = midpack([...packArgs('s3://corpus/run', rank), '--work-dir', workDir], { env: s3.env });
    assert.equal(r.status, 0, r.stderr);
    const local = midpack(packArgs(join(tmp, 'local', 'run'), rank));
    assert.equal(local.status, 0, local.stderr);
  }
  assert.ok(!existsSync(join(process.cwd(), 's3:')), 'an s3:// --out writes nothing into the working folder');
  // One staging folder per rank prefix, each holding that rank's finished output.
  const staged = readdirSync(workDir);
  assert.equal(staged.length, 2);
  for (const d of staged) assert.ok(existsSync(join(workDir, d, 'manifest.json')), `${d} holds the rank's output`);
  const refused = midpack([...packArgs(join(tmp, 'other'), 0), '--work-dir', workDir]);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /--work-dir .*: applies only when --out is an s3:\/\/ prefix/);
  assert.equal(refused.stderr.trim().split('\n').length, 1);
});

test('merge in the bucket equals the local merge byte for byte, copying shards server-side with no shard downloaded', slow, async () => {
  assert.equal(midpack(['merge', join(tmp, 'local', 'run', 'rank-00000'), join(tmp, 'local', 'run', 'rank-00001'), '--out', join(tmp, 'local', 'run', 'merged')], { env: REPRODUCIBLE }).status, 0);
  const want = hashTree(join(tmp, 'local', 'run', 'merged'));
  const shardGets: string[] = [];
  let manifestGets = 0;
  const proxy = await faultProxy(s3.endpoint, (method, path) => {
    if (method === 'GET' && /\/shards\/part-\d+\.arrow/.test(path)) shardGets.push(path);
    if (method === 'GET' && /\/run\/rank-\d+\/manifest\.json/.test(path)) manifestGets++;
    return undefined;
  });
  try {
    const env = { ...s3.env, AWS_ENDPOINT_URL: proxy.endpoint, MIDPACK_WORK_DIR: join(tmp, 'merge-work') };
    for (const round of [1, 2]) {
      // The second round is a re-merge into the same prefix: the shards already there are kept.
      const r = await midpackAsync(['merge', 's3://corpus/run', '--out', 's3://corpus/run/merged'], env);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, round === 1 ? /shards [1-9]\d* copied in the store, 0 already there/ : /shards 0 copied in the store, [1-9]\d* already there/);
    }
  } finally {
    await proxy.close();
    pointAt(s3.endpoint);
  }
  assert.ok(manifestGets >= 2, 'the proxy saw the ranks\' small files go by');
  assert.deepEqual(shardGets, [], 'no shard was downloaded');
  const keys = (await listObjects('s3://corpus/run/merged/')).map((o) => o.key.slice('run/merged/'.length)).filter((k) => k !== '.midpack.lock');
  assert.deepEqual(keys.sort(), Object.keys(want).sort());
  for (const f of Object.keys(want)) {
    const got = await getObject(`s3://corpus/run/merged/${f}`);
    assert.ok(got?.equals(readFileSync(join(tmp, 'local', 'run', 'merged', f))), `${f} equals the local merge's`);
  }
});

test('merge into a prefix holding other objects, or of a rank short, is refused in one line, touching nothing', slow, async () => {
  const before = (await listObjects('s3://corpus/run/merged/')).map((o) => [o.key, o.etag]);
  const short = await midpackAsync(['merge', 's3://corpus/run/rank-00000', '--out', 's3://corpus/run/merged'], s3.env);
  assert.equal(short.status, 1);
  assert.match(short.stderr, /missing rank 1 of 0\.\.1/);
  assert.deepEqual((await listObjects('s3://corpus/run/merged/')).map((o) => [o.key, o.etag]), before, 'the earlier merge is untouched');
  await putObject('s3://corpus/busy/notes.txt', 'a user file\n');
  const r = await midpackAsync(['merge', 's3://corpus/run', '--out', 's3://corpus/busy'], s3.env);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /--out s3:\/\/corpus\/busy holds objects a merge does not write \(notes\.txt\)/);
  assert.deepEqual((await listObjects('s3://corpus/busy/')).map((o) => o.key), ['busy/notes.txt']);
});
