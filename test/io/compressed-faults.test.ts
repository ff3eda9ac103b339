import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Ledger } from '../../src/core/ledger.js';
import { collect } from '../../src/core/stage.js';
import { readDocuments } from '../../src/io/documents.js';
import { repoRoot } from '../helpers/paths.js';

const packages = readFileSync(join(repoRoot, 'data-samples', 'docs', 'packages.jsonl'));
const lines = packages.toString('utf8').split('\n').filter(Boolean);
const zst = readFileSync(join(repoRoot, 'test', 'fixtures', 'io', 'docs.jsonl.zst'));

test('a truncated or fake .gz/.zst and a 0-byte .jsonl.gz are each counted by reason, naming the file; the other files are read whole', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-io-faults-'));
  const gz = gzipSync(packages);
  writeFileSync(join(dir, 'a-good.jsonl.gz'), gz);
  writeFileSync(join(dir, 'b-truncated.jsonl.gz'), gz.subarray(0, Math.floor(gz.length * 0.6)));
  writeFileSync(join(dir, 'c-empty.jsonl.gz'), Buffer.alloc(0));
  writeFileSync(join(dir, 'd-fake.jsonl.gz'), packages.subarray(0, 5000)); // plain JSONL named .gz
  writeFileSync(join(dir, 'e-truncated.jsonl.zst'), zst.subarray(0, Math.floor(zst.length / 2)));
  writeFileSync(join(dir, 'f-fake.jsonl.zst'), packages.subarray(0, 5000));
  writeFileSync(join(dir, 'g-good.jsonl'), packages);
  const ledger = new Ledger();
  const docs = await collect(readDocuments([dir], ledger));
  const json = ledger.toJSON();
  assert.deepEqual(json.dropped, { corrupt_gzip: 3, corrupt_zstd: 2 }, JSON.stringify(json.examples));
  const messages = [...json.examples.corrupt_gzip!, ...json.examples.corrupt_zstd!].join('\n');
  for (const name of ['b-truncated.jsonl.gz', 'c-empty.jsonl.gz', 'd-fake.jsonl.gz', 'e-truncated.jsonl.zst', 'f-fake.jsonl.zst']) {
    assert.ok(messages.includes(join(dir, name)), `the message names ${name}`);
  }
  // Both good files whole, plus the records the truncated gzip held before the fault.
  const truncatedRead = Number(/b-truncated\.jsonl\.gz: .* after line (\d+)/.exec(messages)![1]);
  assert.ok(truncatedRead > 0 && truncatedRead < lines.length, `records before the fault are kept (${truncatedRead})`);
  assert.equal(docs.length, 2 * lines.length + truncatedRead);
  assert.deepEqual(docs.slice(0, lines.length).map((d) => d.text), lines.map((l) => (JSON.parse(l) as { text: string }).text));
  // The reader counts records in and drops; its caller counts what it yields out.
  assert.equal(ledger.recordsIn, docs.length + ledger.droppedTotal);
});
