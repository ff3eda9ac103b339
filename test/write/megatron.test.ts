import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, truncateSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PackedBin } from '../../src/write/bin.js';
import { encodeIndex, MegatronBinsWriter, MegatronIndexedReader, megatronPrefixes } from '../../src/write/megatron.js';
import { hashesOfTwoRuns, pythonHas, tempDir, realBins, ROOT, runPythonJson } from './fixtures.js';
import { slow } from '../helpers/tiers.js';

const L = 2048;
const fixture = await realBins(L);
const bins = fixture.bins;
const EXAMPLE_DIR = join(ROOT, 'examples', 'megatron');

const tmp = tempDir;

async function writeMegatron(dir: string, feed: readonly PackedBin[], seqLen = L): Promise<void> {
  const w = new MegatronBinsWriter({ dir, name: 'code', seqLen });
  for (const b of feed) await w.writeBin(b);
  await w.close();
}

test('the .idx layout is byte-exact: header, version, dtype code, counts, lengths, pointers, document indices', () => {
  const idx = encodeIndex('int32', Int32Array.of(4, 4), Int32Array.of(1, 2));
  const expected = [
    '4d4d4944494458 0000', // MMIDIDX\0\0
    '0100000000000000', // version 1 <Q
    '04', // DType.int32 <B
    '0200000000000000', // sequence count <Q
    '0300000000000000', // len(document_indices) <Q
    '04000000 04000000', // sequence lengths int32
    '0000000000000000 1000000000000000', // byte pointers int64: 0, 4 tokens × 4 bytes
    '0000000000000000 0100000000000000 0200000000000000', // document indices int64
  ].join('').replace(/ /g, '');
  assert.equal(idx.toString('hex'), expected);
  assert.equal(encodeIndex('uint8', Int32Array.of(3), Int32Array.of(1)).readUInt8(17), 1, 'DType.uint8 = 1');
});

test('three aligned datasets, one sequence and one document per bin, read back exact', async () => {
  const dir = tmp();
  await writeMegatron(dir, bins);
  const p = megatronPrefixes(dir, 'code');
  assert.deepEqual(readdirSync(dir).sort(), ['code_doc_lens_document.bin', 'code_doc_lens_document.idx', 'code_loss_mask_document.bin', 'code_loss_mask_document.idx', 'code_text_document.bin', 'code_text_document.idx']);
  const text = new MegatronIndexedReader(p.text);
  const mask = new MegatronIndexedReader(p.lossMask);
  const lens = new MegatronIndexedReader(p.docLens);
  assert.equal(text.dtype, 'int32');
  assert.equal(mask.dtype, 'uint8');
  assert.equal(lens.dtype, 'int32');
  for (const r of [text, mask, lens]) {
    assert.equal(r.length, bins.length);
    assert.deepEqual(Array.from(r.documentIndices, Number), Array.from({ length: bins.length + 1 }, (_, i) => i));
  }
  assert.deepEqual(Array.from(text.sequenceLengths), bins.map(() => L));
  assert.deepEqual(Array.from(text.sequencePointers, Number), bins.map((_, i) => i * L * 4));
  assert.deepEqual(Array.from(mask.sequencePointers, Number), bins.map((_, i) => i * L));
  bins.forEach((b, i) => {
    assert.deepEqual(text.get(i), b.inputIds, `tokens of bin ${i}`);
    assert.deepEqual(mask.get(i), b.lossMask, `loss mask of bin ${i}`);
    assert.deepEqual(lens.get(i), b.docLens, `doc_lens of bin ${i}`);
  });
});

test('a numpy reader written from indexed_dataset.py (examples/megatron) reads the same sequences and indices', async (t) => {
  if (!pythonHas(['numpy'], t.name)) return t.skip('numpy is not installed');
  const dir = tmp();
  await writeMegatron(dir, bins);
  const p = megatronPrefixes(dir, 'code');
  const out = runPythonJson(
    `import json, sys
sys.path.insert(0, sys.argv[1])
from midpack_dataset import IndexedDataset
res = {}
for prefix in sys.argv[2:]:
    ds = IndexedDataset(prefix)
    res[prefix] = {"dtype": ds.dtype.__name__, "docs": ds.document_indices.tolist(), "seqs": [ds[i].tolist() for i in range(len(ds))]}
print(json.dumps(res))`,
    [EXAMPLE_DIR, p.text, p.lossMask, p.docLens],
  ) as Record<string, { dtype: string; docs: number[]; seqs: number[][] }>;
  const docs = Array.from({ length: bins.length + 1 }, (_, i) => i);
  assert.deepEqual(out[p.text], { dtype: 'int32', docs, seqs: bins.map((b) => Array.from(b.inputIds)) });
  assert.deepEqual(out[p.lossMask], { dtype: 'uint8', docs, seqs: bins.map((b) => Array.from(b.lossMask)) });
  assert.deepEqual(out[p.docLens], { dtype: 'int32', docs, seqs: bins.map((b) => Array.from(b.docLens)) });
});

/** Runs MidpackGPTDataset from the example on a folder and returns its samples as lists. */
function exampleSamples(dir: string, eodId: number | null): Record<string, number[]>[] {
  return runPythonJson(
    `import json, sys
sys.path.insert(0, sys.argv[1])
from midpack_dataset import MidpackGPTDataset
eod = None if sys.argv[3] == "none" else int(sys.argv[3])
ds = MidpackGPTDataset(sys.argv[2], "code", pad_id=0, eod_id=eod, as_torch=False)
print(json.dumps([{k: v.tolist() for k, v in ds[i].items()} for i in range(len(ds))]))`,
    [EXAMPLE_DIR, dir, String(eodId ?? 'none')],
  ) as Record<string, number[]>[];
}

test('MidpackGPTDataset: shifted labels, loss mask shifted and cut at document ends, positions and cu_seqlens per document', slow, async (t) => {
  if (!pythonHas(['numpy'], t.name)) return t.skip('numpy is not installed');
  const dir = tmp();
  const EOD = 9;
  // Two documents [11 12 EOD] [13 14 15 EOD] and one pad; 12 is masked (e.g. a license line).
  const bin: PackedBin = { inputIds: Int32Array.of(11, 12, EOD, 13, 14, 15, EOD, 0), lossMask: Uint8Array.of(1, 0, 1, 1, 1, 1, 1, 0), docLens: Int32Array.of(3, 4), docIds: ['a', 'b'] };
  await writeMegatron(dir, [bin], 8);
  const expected = {
    tokens: [11, 12, EOD, 13, 14, 15, EOD, 0],
    labels: [12, EOD, 13, 14, 15, EOD, 0, 0],
    loss_mask: [0, 1, 0, 1, 1, 1, 0, 0],
    position_ids: [0, 1, 2, 0, 1, 2, 3, 0],
    cu_seqlens: [0, 3, 7, 8],
  };
  assert.deepEqual(exampleSamples(dir, null), [expected]);
  // Without the doc_lens sidecar, the boundaries come from the EOD tokens: same sample.
  const p = megatronPrefixes(dir, 'code');
  rmSync(`${p.docLens}.idx`);
  rmSync(`${p.docLens}.bin`);
  assert.deepEqual(exampleSamples(dir, EOD), [expected]);
});

test('MidpackGPTDataset on real bins: tokens are the bin, cu_seqlens are the document boundaries then L', slow, async (t) => {
  if (!pythonHas(['numpy'], t.name)) return t.skip('numpy is not installed');
  const dir = tmp();
  await writeMegatron(dir, bins);
  const samples = exampleSamples(dir, null);
  assert.equal(samples.length, bins.length);
  samples.forEach((s, i) => {
    const b = bins[i]!;
    assert.deepEqual(s.tokens, Array.from(b.inputIds));
    const bounds = [0];
    for (const n of b.docLens) bounds.push(bounds.at(-1)! + n);
    if (bounds.at(-1)! < L) bounds.push(L);
    assert.deepEqual(s.cu_seqlens, bounds);
  });
});

test('a rerun writes byte-identical Megatron files', async () => {
  const [first, second] = await hashesOfTwoRuns((dir) => writeMegatron(dir, bins));
  assert.deepEqual(first, second);
});

test('an aborted run leaves nothing under the final names', async () => {
  const dir = tmp();
  const w = new MegatronBinsWriter({ dir, name: 'code', seqLen: L });
  for (const b of bins.slice(0, 3)) await w.writeBin(b);
  await w.abort();
  assert.deepEqual(readdirSync(dir), []);
});

test('the reader names the file when an index or data file is damaged', async () => {
  const dir = tmp();
  await writeMegatron(dir, bins.slice(0, 2));
  const p = megatronPrefixes(dir, 'code');
  truncateSync(`${p.text}.bin`, L * 4 + 10);
  assert.throws(() => new MegatronIndexedReader(p.text), new RegExp(`code_text_document\\.bin: ${L * 4 + 10} bytes, the index expects ${2 * L * 4}`));
  const idx = readFileSync(`${p.lossMask}.idx`);
  idx[0] = 0;
  writeFileSync(`${p.lossMask}.idx`, idx);
  assert.throws(() => new MegatronIndexedReader(p.lossMask), /code_loss_mask_document\.idx: not a Megatron index/);
  assert.ok(existsSync(`${p.docLens}.idx`));
});
