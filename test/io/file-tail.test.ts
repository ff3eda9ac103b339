import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileTail } from '../../src/io/file-tail.js';
import { Rng } from '../../src/core/random.js';
import { repoRoot } from '../helpers/paths.js';

/** Runs `body` with a scratch folder, removed after. */
async function inScratch(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-tail-'));
  try {
    await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A file written in pieces while it is read, as a prepare worker writes a part: records of every
 * size (real source text) taken across read chunks, with a new buffer per chunk and with one
 * reused buffer (`reuse`: each record used before the next take), the same bytes either way.
 */
test('FileTail gives a growing file\'s records as written, across chunks, with fresh or reused buffers', () =>
  inScratch(async (dir) => {
    const source = readFileSync(join(repoRoot, 'src', 'io', 'file-tail.ts'));
    for (const reuse of [false, true]) {
      for (let seed = 0; seed < 6; seed++) {
        const rng = new Rng(seed, 'file-tail');
        const sizes = Array.from({ length: 60 }, () => rng.int(0, 3 * 13));
        const records = sizes.map((n, i) => source.subarray(i * 7, i * 7 + n));
        const path = join(dir, `part-${reuse}-${seed}`);
        writeFileSync(path, '');
        const tail = new FileTail(path, { reuse, readBytes: 1 + rng.int(0, 13) });
        let written = 0;
        // The writer appends a few records at a time and says so; the reader takes them meanwhile.
        const writer = (async () => {
          for (let k = 0; k < records.length; ) {
            const upto = Math.min(records.length, k + rng.int(1, 5));
            for (; k < upto; k++) appendFileSync(path, records[k]!);
            written = records.slice(0, upto).reduce((s, r) => s + r.length, 0);
            tail.advance(written);
            await new Promise((resolve) => setImmediate(resolve));
          }
          tail.finish(written);
        })();
        const got: string[] = [];
        for (const r of records) got.push((await tail.take(r.length)).toString('latin1'));
        assert.equal(await tail.atEnd(), true);
        await writer;
        tail.close();
        assert.deepEqual(got, records.map((r) => r.toString('latin1')), `reuse ${reuse}, seed ${seed}`);
      }
    }
  }));

test('FileTail: a file that ends inside a record is an error, with a reused buffer too', () =>
  inScratch(async (dir) => {
    const path = join(dir, 'short');
    writeFileSync(path, 'abcdef');
    const tail = new FileTail(path, { reuse: true, readBytes: 4 });
    tail.finish(6);
    assert.equal((await tail.take(3)).toString(), 'abc');
    await assert.rejects(tail.take(5), /ends at byte 6, inside a record/);
    tail.close();
  }));
