import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { Ledger } from '../../src/core/ledger.js';
import { collect } from '../../src/core/stage.js';
import { ownedBy } from '../../src/core/ranks.js';
import { readDocuments } from '../../src/io/documents.js';
import { repoRoot } from '../helpers/paths.js';

const fixtures = join(repoRoot, 'test', 'fixtures', 'io');
const expected = readFileSync(join(repoRoot, 'data-samples', 'docs', 'packages.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .slice(0, 12)
  .map((l) => JSON.parse(l) as { id: string; kind: string; source: string; text: string; meta: Record<string, unknown> });

async function read(file: string) {
  const ledger = new Ledger();
  const docs = await collect(readDocuments([file], ledger));
  return { docs, ledger };
}

test('documents read the same from Parquet (pyarrow defaults and zstd), Arrow written by pyarrow, and zstd JSONL', async () => {
  for (const name of ['docs-default.parquet', 'docs-zstd.parquet', 'docs-pyarrow.arrow', 'docs.jsonl.zst']) {
    const { docs, ledger } = await read(join(fixtures, name));
    assert.equal(docs.length, expected.length, name);
    docs.forEach((d, i) => {
      const e = expected[i]!;
      assert.equal(d.id, e.id, name);
      assert.equal(d.text, e.text, `${name}: text of ${e.id}`);
      assert.equal(d.kind, e.kind);
      assert.equal(d.source, e.source);
      assert.deepEqual(d.meta, e.meta);
    });
    assert.equal(ledger.recordsIn, expected.length);
    assert.equal(ledger.droppedTotal, 0);
  }
});

test('Arrow stream and file formats written by apache-arrow, gzip JSONL, and corrupt files counted by reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-io-'));
  const table = tableFromArrays({ id: expected.map((e) => e.id), text: expected.map((e) => e.text) });
  writeFileSync(join(dir, 'stream.arrow'), tableToIPC(table, 'stream'));
  writeFileSync(join(dir, 'file.arrow'), tableToIPC(table, 'file'));
  writeFileSync(join(dir, 'docs.jsonl.gz'), gzipSync(expected.map((e) => JSON.stringify(e)).join('\n') + '\n'));
  for (const name of ['stream.arrow', 'file.arrow', 'docs.jsonl.gz']) {
    const { docs } = await read(join(dir, name));
    assert.deepEqual(docs.map((d) => d.text), expected.map((e) => e.text), name);
  }
  writeFileSync(join(dir, 'broken.parquet'), 'PAR1 this is not parquet');
  writeFileSync(join(dir, 'broken.arrow'), 'not arrow at all');
  const bad = await read(join(dir, 'broken.parquet'));
  assert.equal(bad.docs.length, 0);
  assert.deepEqual(bad.ledger.toJSON().dropped, { corrupt_parquet: 1 });
  assert.match(bad.ledger.examples.get('corrupt_parquet')![0]!, /broken\.parquet: not a readable Parquet file/);
  const badArrow = await read(join(dir, 'broken.arrow'));
  assert.deepEqual(badArrow.ledger.toJSON().dropped, { corrupt_arrow: 1 });
});

test('ranks partition records: 3 ranks hold every record exactly once, for every format', async () => {
  for (const name of ['docs-default.parquet', 'docs-pyarrow.arrow', 'docs.jsonl.zst']) {
    const seen: string[] = [];
    let counted = 0;
    for (const rank of [0, 1, 2]) {
      const ledger = new Ledger();
      const docs = await collect(readDocuments([join(fixtures, name)], ledger, ownedBy({ rank, worldSize: 3 })));
      seen.push(...docs.map((d) => d.id));
      counted += ledger.recordsIn;
      assert.ok(docs.length < expected.length, `${name}: rank ${rank} holds everything`);
    }
    assert.deepEqual([...seen].sort(), expected.map((e) => e.id).sort(), name);
    assert.equal(counted, expected.length);
  }
});
