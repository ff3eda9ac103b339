import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mixtureLengths, readLengthFile } from '../../src/pack/index.js';
import { writeLengthFile } from '../../scripts/gen-lengths.js';
import { slow } from '../helpers/tiers.js';

async function readAll(path: string, batchSize?: number): Promise<number[]> {
  const out: number[] = [];
  for await (const b of readLengthFile(path, { batchSize })) out.push(...b);
  return out;
}

test('readLengthFile streams lengths in batches, with or without a final newline, CRLF and gzip', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-lengths-'));
  try {
    writeFileSync(join(dir, 'a.txt'), '12\n0\n 262144 \r\n4294967295\n7');
    assert.deepEqual(await readAll(join(dir, 'a.txt'), 2), [12, 0, 262144, 4294967295, 7]);
    writeFileSync(join(dir, 'b.txt.gz'), gzipSync('5\n6\n'));
    assert.deepEqual(await readAll(join(dir, 'b.txt.gz')), [5, 6]);
    for (const [text, message] of [
      ['1\n2\n-3\n', /bad\.txt:3: negative length "-3"/],
      ['1\n2x\n', /bad\.txt:2: malformed length "2x"/],
      ['1\n\n2\n', /bad\.txt:2: empty line/],
      ['1\n1.5\n', /bad\.txt:2: malformed length "1.5"/],
      ['1 2\n', /bad\.txt:1: malformed length "1 2"/],
      ['4294967296\n', /bad\.txt:1: length too large/],
    ] as const) {
      writeFileSync(join(dir, 'bad.txt'), text);
      await assert.rejects(readAll(join(dir, 'bad.txt')), message);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('gen-lengths writes the seeded mixture: same seed, same bytes; another seed, other lengths', slow, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-gen-'));
  try {
    await writeLengthFile(join(dir, 'a.txt'), 100_000, 3);
    await writeLengthFile(join(dir, 'b.txt'), 100_000, 3);
    await writeLengthFile(join(dir, 'c.txt'), 100_000, 4);
    const a = readFileSync(join(dir, 'a.txt'));
    assert.ok(a.equals(readFileSync(join(dir, 'b.txt'))));
    assert.ok(!a.equals(readFileSync(join(dir, 'c.txt'))));
    const read = await readAll(join(dir, 'a.txt'), 4096);
    assert.deepEqual(read, Array.from(mixtureLengths(100_000, 3)));
    // the mixture's shape: mostly short documents, a long tail past L
    const sorted = [...read].sort((x, y) => x - y);
    assert.ok(sorted[50_000]! < 5000, `median ${sorted[50_000]}`);
    assert.ok(read.filter((x) => x > 262144).length > 100);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
