import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { RecordBatchStreamReader } from 'apache-arrow';
import { ArrowShardWriter, completedShards, shardFeatures, type ShardsResult } from '../../src/write/arrow-shards.js';
import type { PackedBin } from '../../src/write/bin.js';
import { binAsLists, folderHashes, hashesOfTwoRuns, tempDir, pythonHas, realBins, runPythonJson } from './fixtures.js';

const L = 2048;
const ROWS_PER_SHARD = 4;
const fixture = await realBins(L);
const bins = fixture.bins;

const tmp = tempDir;

async function writeShards(dir: string, feed: readonly PackedBin[], startShard = 0): Promise<ShardsResult> {
  const w = new ArrowShardWriter({ dir, seqLen: L, rowsPerShard: ROWS_PER_SHARD, batchRows: 3, startShard });
  for (const b of feed) await w.writeBin(b);
  return w.close();
}

/** Every row of every shard (in state.json order) as plain lists, read with apache-arrow JS. */
function readShardsJs(dir: string): Record<string, unknown>[] {
  const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { _data_files: { filename: string }[] };
  const rows: Record<string, unknown>[] = [];
  for (const { filename } of state._data_files) {
    const reader = RecordBatchStreamReader.from(readFileSync(join(dir, filename)));
    for (const batch of reader) {
      for (let r = 0; r < batch.numRows; r++) {
        const row: Record<string, unknown> = {};
        for (const f of batch.schema.fields) row[f.name] = Array.from(batch.getChild(f.name)!.get(r)!.toArray() as ArrayLike<unknown>);
        rows.push(row);
      }
    }
  }
  return rows;
}

test('the fixture is real and non-trivial: several shards, split documents, masked and padded tokens', () => {
  assert.ok(bins.length > 2 * ROWS_PER_SHARD, `${bins.length} bins`);
  assert.ok(bins.some((b) => b.docLens.length > 1), 'some bin holds several documents');
  assert.ok(bins.some((b) => b.docOffsets!.some((o) => o > 0)), 'some unit is a later chunk of a document');
  assert.ok(bins.some((b) => b.inputIds[L - 1] === fixture.padId && b.lossMask[L - 1] === 0), 'some bin ends with padding');
});

test('Arrow shards read back token-exact with apache-arrow RecordBatchStreamReader, rowsPerShard rows each', async () => {
  const dir = tmp();
  const result = await writeShards(dir, bins);
  assert.equal(result.rows, bins.length);
  assert.deepEqual(
    result.shards.map((s) => s.rows),
    Array.from({ length: Math.ceil(bins.length / ROWS_PER_SHARD) }, (_, i) => Math.min(ROWS_PER_SHARD, bins.length - i * ROWS_PER_SHARD)),
  );
  assert.deepEqual(readShardsJs(dir), bins.map(binAsLists));
  const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
  assert.deepEqual(state, {
    _data_files: result.shards.map((s) => ({ filename: s.filename })),
    _fingerprint: result.fingerprint,
    _format_columns: null,
    _format_kwargs: {},
    _format_type: null,
    _output_all_columns: false,
    _split: null,
  });
  assert.match(result.fingerprint, /^[0-9a-f]{16}$/);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'dataset_info.json'), 'utf8')).features, shardFeatures());
  assert.deepEqual(readdirSync(dir).sort(), [...result.shards.map((s) => s.filename), 'dataset_info.json', 'state.json'].sort());
});

test('pyarrow.ipc.open_stream reads the shards token-exact with list<int32>/list<uint8> types', (t) => {
  if (!pythonHas(['pyarrow'], t.name)) return t.skip('pyarrow is not installed');
  const dir = tmp();
  return writeShards(dir, bins).then(() => {
    const out = runPythonJson(
      `import json, sys, pyarrow as pa
state = json.load(open(sys.argv[1] + "/state.json"))
rows, types = [], None
for f in state["_data_files"]:
    with pa.ipc.open_stream(sys.argv[1] + "/" + f["filename"]) as r:
        t = r.read_all()
    types = {n: str(t.schema.field(n).type) for n in t.schema.names}
    rows += t.to_pylist()
print(json.dumps({"types": types, "rows": rows}))`,
      [dir],
    ) as { types: Record<string, string>; rows: unknown[] };
    assert.deepEqual(out.types, {
      input_ids: 'list<item: int32>',
      loss_mask: 'list<item: uint8>',
      doc_lens: 'list<item: int32>',
      doc_ids: 'list<item: string>',
      doc_kinds: 'list<item: string>',
      doc_offsets: 'list<item: int32>',
      doc_sources: 'list<item: string>',
    });
    assert.deepEqual(out.rows, bins.map(binAsLists));
  });
});

test('datasets.load_from_disk and Dataset.from_file open the shards with the declared features, contents exact', async (t) => {
  if (!pythonHas(['datasets'], t.name)) return t.skip('Hugging Face datasets is not installed');
  const dir = tmp();
  const result = await writeShards(dir, bins);
  const out = runPythonJson(
    `import json, sys
from datasets import Dataset, load_from_disk
ds = load_from_disk(sys.argv[1])
one = Dataset.from_file(sys.argv[1] + "/" + sys.argv[2])
print(json.dumps({"rows": ds.to_list(), "features": {k: repr(v) for k, v in ds.features.items()}, "one": one.to_list()}))`,
    [dir, result.shards[1]!.filename],
    { HF_DATASETS_OFFLINE: '1', HF_HUB_OFFLINE: '1', HF_HOME: join(dir, '.hf') },
  ) as { rows: unknown[]; features: Record<string, string>; one: unknown[] };
  assert.deepEqual(out.rows, bins.map(binAsLists));
  assert.deepEqual(out.one, bins.slice(ROWS_PER_SHARD, 2 * ROWS_PER_SHARD).map(binAsLists));
  assert.match(out.features.input_ids!, /int32/);
  assert.match(out.features.loss_mask!, /uint8/);
});

test('a rerun writes byte-identical shards, state.json and dataset_info.json', async () => {
  const [first, second] = await hashesOfTwoRuns((dir) => writeShards(dir, bins));
  assert.deepEqual(first, second);
});

test('resume after a kill: completed shards are reused, the result is byte-identical to an uninterrupted run', async () => {
  const whole = tmp();
  await writeShards(whole, bins);
  const dir = tmp();
  // The killed run: 2 shards complete, the third half written, plus the temporary file a kill leaves.
  const killed = new ArrowShardWriter({ dir, seqLen: L, rowsPerShard: ROWS_PER_SHARD, batchRows: 3 });
  for (const b of bins.slice(0, 2 * ROWS_PER_SHARD + 2)) await killed.writeBin(b);
  writeFileSync(join(dir, 'part-00002.arrow.tmp-999999'), 'half a shard');
  assert.equal(completedShards(dir), 2);
  const resumed = await writeShards(dir, bins, completedShards(dir));
  assert.deepEqual(resumed.shards.map((s) => s.reused).slice(0, 3), [true, true, false]);
  assert.deepEqual(folderHashes(dir), folderHashes(whole));
});

test('resume refuses shards that this run does not reach (they come from a different run)', async () => {
  const dir = tmp();
  await writeShards(dir, bins);
  const shards = completedShards(dir);
  await assert.rejects(writeShards(dir, bins.slice(0, ROWS_PER_SHARD), shards), /cannot resume at shard .*different run/);
});

test('a rerun with fewer bins removes the stale shards of the longer run', async () => {
  const dir = tmp();
  await writeShards(dir, bins);
  const result = await writeShards(dir, bins.slice(0, ROWS_PER_SHARD + 1));
  assert.equal(result.shards.length, 2);
  assert.ok(!existsSync(join(dir, 'part-00002.arrow')));
  assert.deepEqual(readShardsJs(dir), bins.slice(0, ROWS_PER_SHARD + 1).map(binAsLists));
});

test('no bins: one empty shard with the full schema, so the folder still loads', async () => {
  const dir = tmp();
  const result = await writeShards(dir, []);
  assert.deepEqual(result.shards.map((s) => [s.filename, s.rows]), [['part-00000.arrow', 0]]);
  const reader = RecordBatchStreamReader.from(readFileSync(join(dir, 'part-00000.arrow')));
  const batches = [...reader];
  assert.equal(batches.reduce((n, b) => n + b.numRows, 0), 0);
  assert.deepEqual(batches[0]!.schema.fields.map((f) => f.name), Object.keys(shardFeatures()));
});

test('a bin that breaks the contract is refused with its row and first document id', async () => {
  const w = new ArrowShardWriter({ dir: tmp(), seqLen: L });
  await w.writeBin(bins[0]!);
  const short = { ...bins[1]!, inputIds: bins[1]!.inputIds.subarray(0, L - 1) };
  await assert.rejects(w.writeBin(short), new RegExp(`bin 1 \\(first document ${bins[1]!.docIds[0]}\\): input_ids must be an Int32Array of exactly ${L}`));
  const overfull = { ...bins[1]!, docLens: Int32Array.from(bins[1]!.docLens, (n, i) => (i === 0 ? n + L : n)) };
  await assert.rejects(w.writeBin(overfull), /more than the bin length/);
  await w.abort();
});
