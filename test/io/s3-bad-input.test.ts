import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { getObject, listObjects, putObject, resetS3Client, uploadFile } from '../../src/io/s3.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cliPath } from '../helpers/run-cli.js';
import { repoRoot } from '../helpers/paths.js';
import { faultProxy, pointAt, startS3, type TestS3 } from '../helpers/s3-server.js';
import { slow } from '../helpers/tiers.js';

/**
 * Bad input against a real server, each through the command a user runs: an unknown bucket,
 * access denied, an object deleted mid-read, a truncated upload. Each is one clear line naming
 * the object, exit 1, and nothing left behind: no object or part in the bucket, no local staging.
 */
let s3: TestS3;
const tmp = mkdtempSync(join(tmpdir(), 'midpack-s3-bad-'));
const work = join(tmp, 'work');
const docs = join(repoRoot, 'data-samples', 'docs', 'packages.jsonl');

before(async () => {
  s3 = await startS3();
  await s3.bucket('corpus');
  await putObject('s3://corpus/in/packages.jsonl', readFileSync(docs));
});
after(async () => {
  await s3.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** midpack against an endpoint (the server or a proxy in this process, so not spawnSync), with few retries. */
async function cli(args: string[], endpoint = s3.endpoint): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...s3.env, AWS_ENDPOINT_URL: endpoint, AWS_MAX_ATTEMPTS: '2', MIDPACK_WORK_DIR: work } });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stderr };
}

function oneLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line: ${stderr}`);
  assert.match(lines[0]!, pattern);
}

const stagingLeft = () => {
  try {
    return readdirSync(work).flatMap((d) => readdirSync(join(work, d)).map((f) => `${d}/${f}`));
  } catch {
    return [];
  }
};

test('an unknown bucket, as input or as --out: one line, nothing written anywhere', slow, async () => {
  const input = await cli(['pack', 's3://no-such-bucket/in.jsonl', '--out', 's3://corpus/out-a', '--quiet']);
  assert.equal(input.status, 1);
  oneLine(input.stderr, /^midpack: .*s3:\/\/no-such-bucket: no such bucket/);
  const out = await cli(['pack', docs, '--out', 's3://no-such-bucket/out', '--quiet']);
  assert.equal(out.status, 1);
  oneLine(out.stderr, /^midpack: .*s3:\/\/no-such-bucket: no such bucket/);
  assert.deepEqual((await listObjects('s3://corpus/out-a/')).map((o) => o.key), []);
  assert.deepEqual(stagingLeft(), []);
});

test('access denied on writes: one line naming the object, nothing left in the bucket', slow, async () => {
  const proxy = await faultProxy(s3.endpoint, (method) => (method === 'PUT' || method === 'POST' ? { status: 403, code: 'AccessDenied' } : undefined));
  try {
    const r = await cli(['pack', 's3://corpus/in/packages.jsonl', '--out', 's3://corpus/denied', '--quiet'], proxy.endpoint);
    assert.equal(r.status, 1);
    oneLine(r.stderr, /^midpack: .*s3:\/\/corpus\/denied\/\S+: access denied \(AccessDenied\)/);
    assert.ok(proxy.injected >= 1);
  } finally {
    await proxy.close();
  }
  assert.deepEqual(await listObjects('s3://corpus/denied/'), []);
});

/** Documents over 8 MiB (the sample's, their ids numbered apart): read in several ranges. */
function bigDocs(): string {
  const lines = readFileSync(docs, 'utf8').split('\n').filter(Boolean);
  const big: string[] = [];
  for (let i = 0; big.join('\n').length < 9 << 20; i++) big.push(...lines.map((l) => JSON.stringify({ ...JSON.parse(l), id: `${JSON.parse(l).id}-${i}` })));
  return big.join('\n') + '\n';
}

test('an input object deleted mid-read: one line naming it, the job stops, nothing published', slow, async () => {
  // Over 8 MiB, so it is read in several ranges; the second range finds it gone.
  const big = bigDocs();
  await putObject('s3://corpus/in/big.jsonl', big);
  await putObject('s3://corpus/in/big.jsonl.gz', gzipSync(big));
  for (const input of ['s3://corpus/in/big.jsonl', 's3://corpus/in/big.jsonl.gz']) {
    let ranges = 0;
    const proxy = await faultProxy(s3.endpoint, (method, path) => (method === 'GET' && path.includes(input.slice('s3://corpus/'.length)) && ranges++ >= 1 ? { status: 404, code: 'NoSuchKey' } : undefined));
    const out = `s3://corpus/gone-out-${input.endsWith('.gz') ? 'gz' : 'plain'}`;
    try {
      const r = await cli(['pack', input, '--out', out, '--quiet'], proxy.endpoint);
      assert.equal(r.status, 1, r.stderr);
      // Not counted as a bad file and then failed again on its checksum: one line, the job's.
      oneLine(r.stderr, new RegExp(`^midpack: error: ${input.replace(/[./]/g, '\\$&')}: the object was deleted while it was read \\(at byte \\d+\\)$`));
    } finally {
      await proxy.close();
    }
    assert.deepEqual((await listObjects(`${out}/`)).map((o) => o.key), [], 'nothing published, no lock left');
    assert.deepEqual(stagingLeft(), [], 'no staged work: a rerun could not resume from it (the input changed)');
  }
});

test('an input object deleted while a run\'s prepare worker reads it (its reads relayed by the main thread): one line naming it, nothing published or staged', slow, async () => {
  const input = 's3://corpus/run-in/big.jsonl';
  await putObject(input, bigDocs());
  let ranges = 0;
  const proxy = await faultProxy(s3.endpoint, (method, path) => (method === 'GET' && path.includes('run-in/big.jsonl') && ranges++ >= 1 ? { status: 404, code: 'NoSuchKey' } : undefined));
  const out = 's3://corpus/gone-run';
  const config = join(tmp, 'gone-run.json');
  writeFileSync(config, JSON.stringify({ out, seed: 1, sources: [{ name: 'docs', type: 'documents', inputs: [input], then: [{ type: 'fim', options: { fimRate: 0.5 } }] }], pack: { seqLen: 4096 } }));
  try {
    const r = await cli(['run', config, '--workers', '2', '--quiet'], proxy.endpoint);
    assert.equal(r.status, 1, r.stderr);
    oneLine(r.stderr, /^midpack: error: s3:\/\/corpus\/run-in\/big\.jsonl: the object was deleted while it was read \(at byte \d+\)$/);
    assert.ok(ranges >= 2, 'the read got past its first range');
  } finally {
    await proxy.close();
  }
  assert.deepEqual((await listObjects(`${out}/`)).map((o) => o.key), [], 'nothing published, no lock left');
  assert.deepEqual(stagingLeft(), [], 'no staged work');
});

test('an upload whose part is cut off mid-body: one line, the object never appears, the upload is aborted', slow, async () => {
  // Part 2 of a multipart upload has its connection dropped halfway; everything else is forwarded.
  const proxy = await faultProxy(s3.endpoint, (method, path) => (method === 'PUT' && /[?&]partNumber=2\b/.test(path) ? { dropAfterBytes: 1 << 20 } : undefined));
  const file = join(tmp, 'big.bin');
  const bytes = randomBytes(20 << 20);
  writeFileSync(file, bytes);
  pointAt(proxy.endpoint);
  process.env.AWS_MAX_ATTEMPTS = '2';
  resetS3Client();
  try {
    await assert.rejects(uploadFile(file, 's3://corpus/up/big.bin', createHash('sha256').update(bytes).digest('hex')), (e: Error) => {
      assert.match(e.message, /^s3:\/\/corpus\/up\/big\.bin: .*\(upload\)$/);
      assert.ok(!e.message.includes('\n'));
      return true;
    });
  } finally {
    pointAt(s3.endpoint);
    await proxy.close();
  }
  assert.equal(await getObject('s3://corpus/up/big.bin'), undefined);
  const { sdk, s3Client } = await import('../../src/io/s3.js');
  const s = await sdk();
  const pending = await (await s3Client()).send(new s.ListMultipartUploadsCommand({ Bucket: 'corpus' })).catch(() => undefined);
  if (pending) assert.deepEqual(pending.Uploads ?? [], [], 'no multipart upload left open');
});
