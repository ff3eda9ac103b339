import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBytes } from '../../src/io/lines.js';
import { hashedWhileRead, sha256Local } from '../../src/io/local-hashes.js';
import { runPackJob, PACK_DEFAULTS } from '../../src/job/pack-job.js';
import { repoRoot } from '../helpers/paths.js';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const sample = join(repoRoot, 'data-samples', 'docs', 'packages.jsonl');

async function readThrough(path: string, stopAfter = Infinity): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of hashedWhileRead(path, openBytes(path))) {
    chunks.push(c);
    if (chunks.length >= stopAfter) break;
  }
  return Buffer.concat(chunks);
}

test('hashedWhileRead passes the bytes through; the file read whole gets the checksum of its bytes, and a file changed since it was read is hashed again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-local-hashes-'));
  const path = join(dir, 'in.jsonl');
  const first = readFileSync(sample);
  writeFileSync(path, first);
  assert.deepEqual(await readThrough(path), first);
  assert.deepEqual(await sha256Local(path), { sha256: sha256(first), bytes: first.byteLength });

  // The same size, other bytes, a later modification time: not the checksum remembered for the first.
  const second = Buffer.from(first.map((b) => (b === 0x61 ? 0x62 : b)));
  assert.notEqual(sha256(second), sha256(first));
  writeFileSync(path, second);
  utimesSync(path, new Date(Date.now() + 5000), new Date(Date.now() + 5000));
  assert.equal((await sha256Local(path)).sha256, sha256(second));

  // Read partly (a reader that stopped after its first chunk of several): nothing remembered, the
  // file is read again for its checksum.
  const third = Buffer.concat(Array.from({ length: 8 }, () => second));
  writeFileSync(path, third);
  assert.ok((await readThrough(path, 1)).byteLength < third.byteLength);
  assert.equal((await sha256Local(path)).sha256, sha256(third));
});

test('a pack of plain JSONL (its inputs hashed as they are read) records the sha256 of each input file in its manifest', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-local-hashes-pack-'));
  const input = join(dir, 'docs.jsonl');
  writeFileSync(input, readFileSync(sample));
  const s = await runPackJob({ ...PACK_DEFAULTS, inputs: [input], out: join(dir, 'out'), workers: 1, seqLen: 2048 });
  assert.deepEqual(
    s.manifest.inputs.map((i) => ({ ...i })),
    [{ path: input, bytes: readFileSync(input).byteLength, sha256: sha256(readFileSync(input)) }],
  );
});
