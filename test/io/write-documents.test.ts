import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ledger } from '../../src/core/ledger.js';
import { collect } from '../../src/core/stage.js';
import { docToJson } from '../../src/doc/document.js';
import { readDocumentFile } from '../../src/io/documents.js';
import { repoRoot } from '../helpers/paths.js';
import { midpack } from '../helpers/run-cli.js';

const python = (code: string, ...args: string[]) => spawnSync('python3', ['-c', code, ...args], { encoding: 'utf8' });
const hasModule = (m: string) => python(`import ${m}`).status === 0;

/** Reads a Parquet file with a Python library; prints one JSON document a line. */
const PY_READ = {
  pyarrow: `import sys, json, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
print(json.dumps([str(f.type) for f in t.schema]))
for r in t.to_pylist(): print(json.dumps(r, ensure_ascii=False))`,
  polars: `import sys, json, polars as pl
df = pl.read_parquet(sys.argv[1])
print(json.dumps([str(t) for t in df.dtypes]))
for r in df.iter_rows(named=True): print(json.dumps(r, ensure_ascii=False))`,
};

test('--out F.parquet: the same documents as JSONL, fields as columns, read by midpack, pyarrow and polars', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-parquet-out-'));
  const inputs = [join(repoRoot, 'node_modules/p-limit'), join(repoRoot, 'node_modules/yocto-queue')];
  // FIM samples carry loss-mask and special spans: every column has content.
  const args = (out: string) => ['fim', ...inputs, '--out', out, '--fim-rate', '1', '--mask-prompt', '--quiet'];
  assert.equal(midpack(args(join(dir, 'd.jsonl'))).status, 0);
  const r = midpack(args(join(dir, 'd.parquet')));
  assert.equal(r.status, 0, r.stderr);
  const jsonl = readFileSync(join(dir, 'd.jsonl'), 'utf8').trim().split('\n');
  assert.ok(jsonl.length >= 5);
  assert.ok(jsonl.some((l) => l.includes('"loss_mask_spans"')) && jsonl.some((l) => l.includes('"special_spans"')));

  const back = await collect(readDocumentFile(join(dir, 'd.parquet'), new Ledger()));
  assert.deepEqual(back.map(docToJson), jsonl, 'midpack reads back the documents it wrote, byte for byte');
  const manifest = JSON.parse(readFileSync(join(dir, 'd.parquet.manifest.json'), 'utf8'));
  assert.equal(manifest.ledger.records_out, jsonl.length);

  for (const lib of ['pyarrow', 'polars'] as const) {
    if (!hasModule(lib)) {
      t.diagnostic(`python3 has no ${lib}: its check is skipped`);
      continue;
    }
    const py = python(PY_READ[lib], join(dir, 'd.parquet'));
    assert.equal(py.status, 0, py.stderr);
    const [types, ...rows] = py.stdout.trim().split('\n');
    assert.equal(JSON.parse(types!).length, 7, `${lib}: seven columns`);
    assert.equal(rows.length, jsonl.length);
    rows.forEach((row, i) => {
      const got = JSON.parse(row);
      const want = JSON.parse(jsonl[i]!);
      assert.equal(got.id, want.id);
      assert.equal(got.text, want.text, `${lib}: text of ${want.id}`);
      assert.deepEqual(JSON.parse(got.meta), want.meta);
      assert.deepEqual(JSON.parse(got.loss_mask_spans), want.loss_mask_spans ?? []);
      assert.deepEqual(JSON.parse(got.special_spans), want.special_spans ?? []);
    });
  }
});
