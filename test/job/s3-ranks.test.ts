import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/job/api.js';
import { fingerprintHash } from '../../src/job/out-dir.js';
import { OUTPUT_MARKER } from '../../src/io/inputs.js';
import { repoRoot } from '../helpers/paths.js';
import { hashTree, midpack } from '../helpers/run-cli.js';
import { putCorpusTwice, startS3, type TestS3 } from '../helpers/s3-server.js';
import { slow } from '../helpers/tiers.js';

/**
 * A rank's share of the inputs does not depend on where they are: the same corpus on local disk
 * and in a bucket gives each of 2 ranks the same documents and the same output bytes, for `run`
 * (documents read on the main thread: JSONL, Parquet, Arrow) and for `pack` of plain JSONL (lines
 * read by the tokenizer workers).
 */
let s3: TestS3;
const tmp = mkdtempSync(join(tmpdir(), 'midpack-s3-ranks-'));
const inputs = [
  ['docs/packages.jsonl', join(repoRoot, 'data-samples', 'docs', 'packages.jsonl')],
  ['docs/more/docs.jsonl.zst', join(repoRoot, 'test', 'fixtures', 'io', 'docs.jsonl.zst')],
  ['docs/more/docs-zstd.parquet', join(repoRoot, 'test', 'fixtures', 'io', 'docs-zstd.parquet')],
  ['docs/more/docs-pyarrow.arrow', join(repoRoot, 'test', 'fixtures', 'io', 'docs-pyarrow.arrow')],
] as const;
const RANKS = [0, 1];

before(async () => {
  s3 = await startS3();
  await s3.bucket('corpus');
  await putCorpusTwice(inputs, 'corpus', tmp);
});
after(async () => s3.stop());

/** A rank output's data files (manifest.json says where the inputs were; the work folders are not output). */
const dataOf = (dir: string) => hashTree(dir, (rel) => rel === 'manifest.json' || rel.startsWith('report.') || rel.startsWith('.run') || rel.startsWith('.work'));

const documentsOf = (dir: string): number => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).ledger.records_out;

test('run over 2 ranks: each rank gets the same documents and writes the same bytes from a bucket as from local disk', slow, async () => {
  const config = (input: string, out: string) => ({ out, seed: 7, sources: [{ name: 'docs', type: 'documents', inputs: [input] }], pack: { seqLen: 2048, rowsPerShard: 4 } });
  const shares: number[] = [];
  for (const rank of RANKS) {
    const info = { rank, worldSize: 2 };
    await run(config(join(tmp, 'in', 'docs'), join(tmp, 'run-local')), { workers: 1, rank: info });
    await run(config('s3://corpus/in/docs', join(tmp, 'run-bucket')), { workers: 1, rank: info });
    const [local, bucket] = ['run-local', 'run-bucket'].map((d) => join(tmp, d, `rank-0000${rank}`));
    assert.equal(documentsOf(bucket!), documentsOf(local!), `rank ${rank}: as many documents`);
    assert.deepEqual(dataOf(bucket!), dataOf(local!), `rank ${rank}: the same shards, Megatron files and lengths`);
    shares.push(documentsOf(local!));
  }
  assert.ok(shares.every((n) => n > 0), `both ranks own documents: ${shares.join(', ')}`);
});

test('pack of plain JSONL over 2 ranks (lines split by the workers): the same bytes per rank from a bucket as from local disk', slow, () => {
  const args = (input: string, out: string, rank: number) => ['pack', input, '--out', out, '--seq-len', '1024', '--rows-per-shard', '4', '--workers', '2', '--no-progress', '--quiet', '--rank', String(rank), '--world-size', '2'];
  for (const rank of RANKS) {
    // The file given alone, in a folder and as an object: named by its own name either way.
    const local = midpack(args(join(tmp, 'in', 'docs', 'packages.jsonl'), join(tmp, 'pack-local'), rank));
    assert.equal(local.status, 0, local.stderr);
    const bucket = midpack(args('s3://corpus/in/docs/packages.jsonl', join(tmp, 'pack-bucket'), rank), { env: s3.env });
    assert.equal(bucket.status, 0, bucket.stderr);
    const [a, b] = ['pack-local', 'pack-bucket'].map((d) => join(tmp, d, `rank-0000${rank}`));
    assert.ok(documentsOf(a!) > 0, `rank ${rank} owns documents`);
    assert.equal(documentsOf(b!), documentsOf(a!));
    assert.deepEqual(dataOf(b!), dataOf(a!), `rank ${rank}: the same shards, Megatron files and lengths`);
  }
});

test('a rank folder left by a midpack that split ranks by input path is refused in one line, not resumed into', slow, () => {
  const out = join(tmp, 'old-split');
  const args = ['pack', join(tmp, 'in', 'docs', 'packages.jsonl'), '--out', out, '--seq-len', '1024', '--workers', '1', '--no-progress', '--quiet', '--rank', '0', '--world-size', '2'];
  assert.equal(midpack(args).status, 0);
  // The marker as the earlier midpack wrote it: the same components but the partition's keys, the run cut off.
  const markerPath = join(out, 'rank-00000', OUTPUT_MARKER);
  const marker = JSON.parse(readFileSync(markerPath, 'utf8'));
  delete marker.components.partition_keys;
  writeFileSync(markerPath, JSON.stringify({ ...marker, fingerprint: fingerprintHash(marker.components), state: 'running' }));
  const before = hashTree(join(out, 'rank-00000'));
  const r = midpack(args);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /holds a midpack output whose ranks split the inputs by path \(an earlier midpack\); pack does not mix or replace it/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.deepEqual(hashTree(join(out, 'rank-00000')), before, 'nothing changed');
});
