import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Ledger } from '../../src/core/ledger.js';
import { collect } from '../../src/core/stage.js';
import { readDocuments } from '../../src/io/documents.js';
import { expandInputs, portableNamer } from '../../src/io/inputs.js';
import { isRemote, joinRemote } from '../../src/io/remote.js';
import { deleteObjects, getObject, listObjects, putObject, readObject, storedSha256, uploadFile, concatObjects, copyObject, StorageError } from '../../src/io/s3.js';
import { readFileAnySync } from '../../src/io/storage.js';
import { repoRoot } from '../helpers/paths.js';
import { slow } from '../helpers/tiers.js';
import { faultProxy, pointAt, startS3, type TestS3 } from '../helpers/s3-server.js';

const fixtures = join(repoRoot, 'test', 'fixtures', 'io');
const packages = readFileSync(join(repoRoot, 'data-samples', 'docs', 'packages.jsonl'));
let s3: TestS3;
let bucket: string;

before(async () => {
  s3 = await startS3();
  bucket = await s3.bucket('corpus');
  // The same documents in every format the readers take, under one prefix and in one local folder.
  await putObject(`${bucket}/docs/packages.jsonl`, packages);
  await putObject(`${bucket}/docs/packages.jsonl.gz`, gzipSync(packages));
  for (const name of ['docs-default.parquet', 'docs-zstd.parquet', 'docs-pyarrow.arrow', 'docs.jsonl.zst']) await putObject(`${bucket}/docs/fixtures/${name}`, readFileSync(join(fixtures, name)));
  await putObject(`${bucket}/docs/fixtures-a/x.jsonl`, packages.subarray(0, packages.indexOf(0x0a) + 1));
});
after(async () => s3.stop());

test('isRemote tells s3:// URLs from local paths; joinRemote keeps the scheme', () => {
  assert.equal(isRemote('s3://bucket/prefix'), true);
  assert.equal(isRemote('S3://bucket'), true);
  assert.equal(isRemote('/tmp/s3://x'), false);
  assert.equal(isRemote('data/s3'), false);
  assert.equal(joinRemote('s3://b/p/', 'shards', 'part-00000.arrow'), 's3://b/p/shards/part-00000.arrow');
});

test('a prefix lists as a folder of the same names would: component order, only accepted names', () => {
  const files = expandInputs([`${bucket}/docs`], (n) => /\.(jsonl(\.gz|\.zst)?|parquet|arrow)$/.test(n));
  assert.deepEqual(
    files.map((f) => f.slice(`${bucket}/docs/`.length)),
    ['fixtures/docs-default.parquet', 'fixtures/docs-pyarrow.arrow', 'fixtures/docs-zstd.parquet', 'fixtures/docs.jsonl.zst', 'fixtures-a/x.jsonl', 'packages.jsonl', 'packages.jsonl.gz'],
  );
  // Named as the same folder would be on disk, so ids and seeds do not depend on where the data lives.
  const local = portableNamer(['/data/docs'])('/data/docs/fixtures/docs.jsonl.zst');
  assert.equal(portableNamer([`${bucket}/docs`])(`${bucket}/docs/fixtures/docs.jsonl.zst`), local);
  assert.throws(() => expandInputs([`${bucket}/nothing-here`], () => true), /input not found: s3:\/\/corpus\/nothing-here/);
});

test('documents read from the bucket equal the same files read locally, in every format', async () => {
  const local = mkdtempSync(join(tmpdir(), 'midpack-s3-docs-'));
  writeFileSync(join(local, 'packages.jsonl'), packages);
  writeFileSync(join(local, 'packages.jsonl.gz'), gzipSync(packages));
  const fromLocal = await collect(readDocuments([local, ...['docs-default.parquet', 'docs-zstd.parquet', 'docs-pyarrow.arrow', 'docs.jsonl.zst'].map((n) => join(fixtures, n))], new Ledger()));
  const ledger = new Ledger();
  const fromBucket = await collect(readDocuments([`${bucket}/docs/packages.jsonl`, `${bucket}/docs/packages.jsonl.gz`, ...['docs-default.parquet', 'docs-zstd.parquet', 'docs-pyarrow.arrow', 'docs.jsonl.zst'].map((n) => `${bucket}/docs/fixtures/${n}`)], ledger));
  assert.equal(fromBucket.length, 90 * 2 + 12 * 4);
  assert.deepEqual(fromBucket.map((d) => [d.id, d.text, d.meta]), fromLocal.map((d) => [d.id, d.text, d.meta]));
  assert.equal(ledger.droppedTotal, 0);
});

test('a large object streams by ranges with bounded read-ahead, byte for byte', async () => {
  const big = randomBytes(21 << 20);
  await putObject(`${bucket}/big.bin`, big);
  const h = createHash('sha256');
  let chunks = 0;
  for await (const c of readObject(`${bucket}/big.bin`, 4 << 20)) {
    h.update(c);
    chunks++;
  }
  assert.equal(h.digest('hex'), createHash('sha256').update(big).digest('hex'));
  assert.equal(chunks, 6); // 21 MiB in 4 MiB ranges
});

test('a multipart upload arrives whole with its sha256; a server-side copy and concatenation keep the bytes', slow, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-s3-up-'));
  const parts = [randomBytes(17 << 20), randomBytes(3 << 20), randomBytes(6 << 20)];
  parts.forEach((p, i) => writeFileSync(join(dir, `p${i}`), p));
  const shas = parts.map((p) => createHash('sha256').update(p).digest('hex'));
  for (const [i, sha] of shas.entries()) await uploadFile(join(dir, `p${i}`), `${bucket}/up/p${i}`, sha);
  assert.deepEqual(await storedSha256(`${bucket}/up/p0`), { sha256: shas[0], size: 17 << 20 });
  assert.ok((await getObject(`${bucket}/up/p0`))!.equals(parts[0]!));
  await copyObject(`${bucket}/up/p1`, `${bucket}/up/copy`, shas[1]!);
  assert.ok((await getObject(`${bucket}/up/copy`))!.equals(parts[1]!));
  const all = Buffer.concat(parts);
  const sha = createHash('sha256').update(all).digest('hex');
  await concatObjects(await listObjects(`${bucket}/up/p`), `${bucket}/up/all`, sha);
  assert.ok((await getObject(`${bucket}/up/all`))!.equals(all));
});

test('an object deleted mid-read, a missing bucket and refused credentials each give one clear line', async () => {
  await putObject(`${bucket}/gone.bin`, randomBytes(9 << 20));
  const it = readObject(`${bucket}/gone.bin`, 1 << 20)[Symbol.asyncIterator]();
  await it.next();
  await deleteObjects([`${bucket}/gone.bin`]);
  await assert.rejects(async () => {
    while (!(await it.next()).done);
  }, /s3:\/\/corpus\/gone\.bin: the object was (deleted|replaced) while it was read/);
  await assert.rejects(getObject('s3://no-such-bucket/x'), (e: Error) => e instanceof StorageError && /^s3:\/\/no-such-bucket: no such bucket/.test(e.message) && !e.message.includes('\n'));
  assert.throws(() => readFileAnySync('s3://no-such-bucket/x.jsonl'), /s3:\/\/no-such-bucket: no such bucket/);
  pointAt(s3.endpoint, 'WRONGKEY');
  try {
    await assert.rejects(listObjects(`${bucket}/docs/`), /s3:\/\/corpus\/docs\/: the object store refused the credentials \(InvalidAccessKeyId\)/);
  } finally {
    pointAt(s3.endpoint);
  }
});

test('throttling (503 SlowDown) and 500 errors are retried; access denied is not', slow, async () => {
  let faults = 0;
  const proxy = await faultProxy(s3.endpoint, (method) => (method === 'GET' && faults++ < 4 ? (faults % 2 ? { status: 503, code: 'SlowDown' } : { status: 500, code: 'InternalError' }) : undefined));
  pointAt(proxy.endpoint);
  try {
    const docs = await collect(readDocuments([`${bucket}/docs/packages.jsonl`], new Ledger()));
    assert.equal(docs.length, 90);
    assert.equal(proxy.injected, 4);
  } finally {
    pointAt(s3.endpoint);
    await proxy.close();
  }
  const denied = await faultProxy(s3.endpoint, () => ({ status: 403, code: 'AccessDenied' }));
  pointAt(denied.endpoint);
  try {
    await assert.rejects(getObject(`${bucket}/docs/packages.jsonl`), /s3:\/\/corpus\/docs\/packages\.jsonl: access denied \(AccessDenied\)/);
    assert.equal(denied.injected, 1);
  } finally {
    pointAt(s3.endpoint);
    await denied.close();
  }
});
