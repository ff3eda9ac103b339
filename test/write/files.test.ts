import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AtomicFile, sha256File } from '../../src/write/files.js';
import { DirectFile } from '../../src/write/direct-file.js';
import { HashThread } from '../../src/write/hash-thread.js';
import { REAL_SOURCES, tempDir } from './fixtures.js';

/** Real bytes (commander's source), repeated and varied, cut at awkward lengths around the 4 KiB block and the 2 MiB slab. */
const SOURCE = readFileSync(join(REAL_SOURCES, 'command.js'));
function bytesOf(length: number, salt: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = SOURCE[(i * 7 + salt) % SOURCE.length]! ^ (i >>> 12);
  return out;
}

/** Writes `sizes` chunks through an AtomicFile, scribbling over each chunk once its write resolves (the contract allows it). */
async function writeChunks(path: string, sizes: number[]): Promise<{ expected: Buffer; sha256: string; bytes: number }> {
  const file = new AtomicFile(path);
  const parts: Buffer[] = [];
  for (const [k, n] of sizes.entries()) {
    const chunk = bytesOf(n, k);
    parts.push(Buffer.from(chunk));
    await file.write(chunk);
    chunk.fill(0xee);
  }
  const sha256 = await file.commit();
  return { expected: Buffer.concat(parts), sha256, bytes: file.bytes };
}

const CASES: Record<string, number[]> = {
  empty: [],
  'one byte': [1],
  'one block less a byte': [4095],
  'one block': [4096],
  'one block and a byte': [4097],
  'a slab and a byte, in odd pieces': [1_000_003, 1_097_150],
  'several slabs and a tail': [3 << 20, 5_000_001, 17, 2 << 20, 123_457],
};

for (const [name, sizes] of Object.entries(CASES)) {
  test(`AtomicFile writes exactly its bytes, direct or through the cache: ${name}`, async () => {
    for (const mode of ['direct', 'off']) {
      const dir = tempDir();
      const saved = process.env.MIDPACK_DIRECT_IO;
      process.env.MIDPACK_DIRECT_IO = mode;
      try {
        const path = join(dir, 'out.bin');
        const { expected, sha256, bytes } = await writeChunks(path, sizes);
        const got = readFileSync(path);
        assert.equal(got.length, expected.length, `${mode}: length`);
        assert.ok(got.equals(expected), `${mode}: bytes`);
        assert.equal(bytes, expected.length);
        assert.equal(sha256, createHash('sha256').update(expected).digest('hex'), `${mode}: sha256`);
        assert.deepEqual(readdirSync(dir), ['out.bin'], `${mode}: no temporary file left`);
      } finally {
        if (saved === undefined) delete process.env.MIDPACK_DIRECT_IO;
        else process.env.MIDPACK_DIRECT_IO = saved;
      }
    }
  });
}

test('on Linux the temporary folder takes direct writes; MIDPACK_DIRECT_IO=off turns them off', async () => {
  const dir = tempDir();
  const saved = process.env.MIDPACK_DIRECT_IO;
  try {
    delete process.env.MIDPACK_DIRECT_IO;
    const direct = DirectFile.open(join(dir, 'a'));
    if (process.platform === 'linux') assert.ok(direct, 'O_DIRECT refused in the temporary folder');
    await direct?.finish(0);
    process.env.MIDPACK_DIRECT_IO = 'off';
    assert.equal(DirectFile.open(join(dir, 'b')), undefined);
  } finally {
    if (saved === undefined) delete process.env.MIDPACK_DIRECT_IO;
    else process.env.MIDPACK_DIRECT_IO = saved;
  }
});

test('an aborted AtomicFile leaves nothing, with writes still in flight', async () => {
  const dir = tempDir();
  const path = join(dir, 'out.bin');
  const file = new AtomicFile(path);
  await file.write(bytesOf(7 << 20, 3));
  await file.abort();
  assert.equal(existsSync(path), false);
  assert.deepEqual(readdirSync(dir), []);
});

test('sha256File hashes on the hash thread what a one-shot hash of the file gives: empty, one piece, several and a tail', async () => {
  const dir = tempDir();
  for (const n of [0, 1, (1 << 20) - 1, 1 << 20, 3 * (1 << 20) + 12_345]) {
    const path = join(dir, `f${n}`);
    const bytes = bytesOf(n, n);
    writeFileSync(path, bytes);
    assert.deepEqual(await sha256File(path), { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: n }, `${n} bytes`);
  }
  await assert.rejects(sha256File(join(dir, 'missing')), /ENOENT/);
});

test('files written side by side, as a pack writes a shard and its Megatron files, hash on the pool\'s threads: each checksum is its own file\'s', async () => {
  const dir = tempDir();
  HashThread.startPool();
  // Chunk sizes of a shard's batches and a bin's tokens, mask and lengths, and a small file that ends early.
  const sizes = [[5 << 20, 3_000_001], [1 << 20, 1 << 20, 1 << 20, 1 << 20, 1 << 20], [262_144, 262_144, 262_144, 262_144, 77], [400, 1200, 9], [3 << 20]];
  const files = sizes.map((_, k) => ({ file: new AtomicFile(join(dir, `f${k}`)), parts: [] as Buffer[] }));
  for (let step = 0; step < 5; step++) {
    await Promise.all(
      files.map(async ({ file, parts }, k) => {
        const n = sizes[k]![step];
        if (n === undefined) return;
        const chunk = bytesOf(n, k * 10 + step);
        parts.push(Buffer.from(chunk));
        await file.write(chunk);
        chunk.fill(0xee);
      }),
    );
  }
  const checksums = await Promise.all(files.map(({ file }) => file.commit()));
  files.forEach(({ parts }, k) => {
    const expected = Buffer.concat(parts);
    assert.ok(readFileSync(join(dir, `f${k}`)).equals(expected), `file ${k}: bytes`);
    assert.equal(checksums[k], createHash('sha256').update(expected).digest('hex'), `file ${k}: sha256`);
  });
});

test('a thousand files in a row reuse their slab memory: each holds exactly its own bytes', async () => {
  const dir = tempDir();
  const expected: Buffer[] = [];
  for (let k = 0; k < 1000; k++) {
    const bytes = bytesOf(1 + ((k * 7919) % 9000), k);
    expected.push(Buffer.from(bytes));
    const file = new AtomicFile(join(dir, `f${k}`));
    await file.write(bytes);
    if (k % 3 === 0) await file.abort();
    else await file.commit();
  }
  for (let k = 0; k < 1000; k++) {
    const path = join(dir, `f${k}`);
    if (k % 3 === 0) assert.equal(existsSync(path), false);
    else assert.ok(readFileSync(path).equals(expected[k]!), `file ${k}`);
  }
});
