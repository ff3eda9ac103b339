import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MixtureCounts } from '../../src/mix/counts.js';
import { getObject, listObjects, putObject } from '../../src/io/s3.js';
import { midpack } from '../helpers/run-cli.js';
import { repoRoot } from '../helpers/paths.js';
import { startS3, type TestS3 } from '../helpers/s3-server.js';
import { slow } from '../helpers/tiers.js';

/**
 * The counts files of the two-pass stages (mask counts, dedup indexes, mixture counts) as
 * s3:// objects, read and written by the CLI against s3rver: the same bytes as on local paths,
 * and nothing left behind in the local work folder or, after a failure, in the bucket.
 */
let s3: TestS3;
const tmp = mkdtempSync(join(tmpdir(), 'midpack-s3-counts-'));
const work = join(tmp, 'work');
const docs = join(repoRoot, 'data-samples', 'docs', 'packages.jsonl');
let env: Record<string, string>;

before(async () => {
  s3 = await startS3();
  await s3.bucket('counts');
  env = { ...s3.env, MIDPACK_WORK_DIR: work };
});
after(async () => {
  await s3.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function ok(args: string[]): string {
  const r = midpack(args, { env });
  assert.equal(r.status, 0, `midpack ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const object = async (url: string) => (await getObject(url)) ?? assert.fail(`${url} is missing`);
const workLeft = () => readdirSync(work, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

test('mask count, merge, apply and show with counts files in a bucket: the same bytes as local files', slow, async () => {
  for (const r of ['0', '1']) {
    ok(['mask', 'count', docs, '--rank', r, '--world-size', '2', '--out', join(tmp, `r${r}.bin`), '--quiet']);
    ok(['mask', 'count', docs, '--rank', r, '--world-size', '2', '--out', `s3://counts/mask/r${r}.bin`, '--quiet']);
    assert.ok((await object(`s3://counts/mask/r${r}.bin`)).equals(readFileSync(join(tmp, `r${r}.bin`))));
    assert.ok(await getObject(`s3://counts/mask/r${r}.bin.manifest.json`), 'the manifest goes up beside the counts');
  }
  ok(['mask', 'merge', join(tmp, 'r0.bin'), join(tmp, 'r1.bin'), '--out', join(tmp, 'all.bin'), '--quiet']);
  ok(['mask', 'merge', 's3://counts/mask/r0.bin', 's3://counts/mask/r1.bin', '--out', 's3://counts/mask/all.bin', '--quiet']);
  assert.ok((await object('s3://counts/mask/all.bin')).equals(readFileSync(join(tmp, 'all.bin'))));
  ok(['mask', 'apply', docs, '--counts', join(tmp, 'all.bin'), '--out', join(tmp, 'local.jsonl'), '--quiet']);
  ok(['mask', 'apply', docs, '--counts', 's3://counts/mask/all.bin', '--out', join(tmp, 'remote.jsonl'), '--quiet']);
  const masked = readFileSync(join(tmp, 'remote.jsonl'), 'utf8');
  assert.equal(masked, readFileSync(join(tmp, 'local.jsonl'), 'utf8'));
  assert.match(masked, /loss_mask_spans/, 'the counts masked something: the test compares real masks');
  assert.equal(ok(['mask', 'show', 's3://counts/mask/all.bin', '--top', '5']), ok(['mask', 'show', join(tmp, 'all.bin'), '--top', '5']));
  assert.deepEqual(workLeft(), [], 'no download or upload folder stays behind');
});

test('dedup count, merge and apply with indexes in a bucket: the same bytes as local files', slow, async () => {
  for (const r of ['0', '1']) {
    ok(['dedup', 'count', docs, '--near', '--rank', r, '--world-size', '2', '--out', join(tmp, `d${r}.idx`), '--quiet']);
    ok(['dedup', 'count', docs, '--near', '--rank', r, '--world-size', '2', '--out', `s3://counts/dedup/d${r}.idx`, '--quiet']);
    assert.ok((await object(`s3://counts/dedup/d${r}.idx`)).equals(readFileSync(join(tmp, `d${r}.idx`))));
  }
  ok(['dedup', 'merge', join(tmp, 'd0.idx'), join(tmp, 'd1.idx'), '--out', join(tmp, 'd.idx')]);
  ok(['dedup', 'merge', 's3://counts/dedup/d0.idx', 's3://counts/dedup/d1.idx', '--out', 's3://counts/dedup/d.idx']);
  assert.ok((await object('s3://counts/dedup/d.idx')).equals(readFileSync(join(tmp, 'd.idx'))));
  ok(['dedup', 'apply', docs, '--near', '--index', join(tmp, 'd.idx'), '--out', join(tmp, 'dl.jsonl'), '--quiet']);
  ok(['dedup', 'apply', docs, '--near', '--index', 's3://counts/dedup/d.idx', '--out', join(tmp, 'dr.jsonl'), '--quiet']);
  assert.equal(readFileSync(join(tmp, 'dr.jsonl'), 'utf8'), readFileSync(join(tmp, 'dl.jsonl'), 'utf8'));
  assert.deepEqual(workLeft(), []);
});

test('mixture merge reads and writes counts in a bucket: the same bytes as local files', slow, async () => {
  const files: string[] = [];
  for (const rank of [0, 1]) {
    const c = new MixtureCounts(7, [rank], 2);
    for (const line of readFileSync(docs, 'utf8').split('\n').filter(Boolean).slice(rank * 40, rank * 40 + 40)) c.add(rank ? 'code' : 'docs', JSON.parse(line).id, line.length);
    const local = join(tmp, `mix${rank}.json`);
    c.write(local);
    await putObject(`s3://counts/mix/rank-${rank}.json`, readFileSync(local));
    files.push(local);
  }
  ok(['mixture', 'merge', ...files, '--out', join(tmp, 'mix.json'), '--quiet']);
  ok(['mixture', 'merge', 's3://counts/mix/rank-0.json', 's3://counts/mix/rank-1.json', '--out', 's3://counts/mix/merged.json', '--quiet']);
  assert.ok((await object('s3://counts/mix/merged.json')).equals(readFileSync(join(tmp, 'mix.json'))));
});

test('a counts file from a missing bucket, or a merge that fails, is one line and leaves nothing behind', slow, async () => {
  const missing = midpack(['mask', 'merge', 's3://no-such-bucket/r0.bin', '--out', 's3://counts/bad/all.bin'], { env });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr.trim(), /^midpack: .*s3:\/\/no-such-bucket: no such bucket[^\n]*$/);
  // A file that is not a counts file: refused naming the object (not its local copy), nothing written.
  await putObject('s3://counts/bad/notcounts.bin', Buffer.from('not a counts file\n'));
  const bad = midpack(['mask', 'merge', 's3://counts/bad/notcounts.bin', '--out', 's3://counts/bad/all.bin'], { env });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr.trim(), /^midpack: .*s3:\/\/counts\/bad\/notcounts\.bin: not a midpack mask counts file$/);
  assert.deepEqual((await listObjects('s3://counts/bad/')).map((o) => o.key), ['bad/notcounts.bin']);
  assert.deepEqual(workLeft(), []);
});
