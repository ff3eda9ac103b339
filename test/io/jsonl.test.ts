import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AtomicLineWriter } from '../../src/io/jsonl.js';
import { repoRoot } from '../helpers/paths.js';

const sample = readFileSync(join(repoRoot, 'data-samples', 'docs', 'packages.jsonl'));

/** Resolves after `ms`, long enough for writes in flight to complete. */
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const [name, opened] of [['docs.jsonl', false], ['docs.jsonl', true], ['docs.jsonl.gz', false], ['docs.jsonl.gz', true]] as const) {
  test(`${name}: abort() with writes in flight${opened ? '' : ', the file still opening,'} leaves no file and raises nothing (an unhandled 'error' crashed a failing run)`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'midpack-jsonl-'));
    const uncaught: Error[] = [];
    const onUncaught = (e: Error) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const w = new AtomicLineWriter(join(dir, name));
      if (opened) await w.writeRaw('{"id":"first"}\n');
      // Not awaited: the writes are still being written when the job gives up.
      for (let i = 0; i < 8; i++) void w.writeRaw(Buffer.from(sample)).catch(() => {});
      await w.abort();
      await settle(100);
      assert.deepEqual(uncaught.map((e) => e.message), []);
      assert.deepEqual(readdirSync(dir), [], 'no file and no temporary file left');
    } finally {
      process.off('uncaughtException', onUncaught);
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('a written file is in place only after close(), with every line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-jsonl-'));
  try {
    const path = join(dir, 'docs.jsonl');
    const w = new AtomicLineWriter(path);
    await w.writeRaw(Buffer.from(sample));
    assert.equal(existsSync(path), false);
    await w.close();
    assert.deepEqual(readFileSync(path), sample);
    assert.deepEqual(readdirSync(dir), ['docs.jsonl']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
