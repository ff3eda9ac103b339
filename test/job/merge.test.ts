import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MegatronIndexedReader, encodeIndex, megatronPrefixes } from '../../src/write/megatron.js';
import { mergeStages } from '../../src/job/merge-report.js';
import { repoRoot } from '../helpers/paths.js';
import { cliPath, hashTree, midpack } from '../helpers/run-cli.js';
import { documentsOf, readRows } from '../helpers/shard-rows.js';
import { slow } from '../helpers/tiers.js';

const L = 4096;
const PREFIX_KEYS = ['text', 'lossMask', 'docLens'] as const;

/** Real text: the package READMEs and sources of data-samples, plus node_modules sources with loss-mask spans. */
function writeCorpus(dir: string): { inputs: string[]; ids: string[] } {
  const packages = join(repoRoot, 'data-samples', 'docs', 'packages.jsonl');
  const ids = readFileSync(packages, 'utf8').trim().split('\n').map((l) => JSON.parse(l).id as string);
  const files = ['commander/lib/command.js', 'commander/lib/help.js', 'yaml/dist/parse/lexer.js', 'yaml/dist/parse/parser.js', 'p-limit/index.js', 'diff/README.md'];
  const lines = files.map((f, i) => {
    const text = readFileSync(join(repoRoot, 'node_modules', f), 'utf8');
    const firstLines = text.split('\n').slice(0, 5).join('\n').length;
    ids.push(`nm-${i}`);
    return JSON.stringify({ id: `nm-${i}`, kind: 'text', source: `npm:${f}`, text, meta: {}, loss_mask_spans: [[0, firstLines]] });
  });
  const extra = join(dir, 'node-modules.jsonl');
  writeFileSync(extra, lines.join('\n') + '\n');
  return { inputs: [packages, extra], ids };
}

/** The CLI as a separate process (async, so ranks run side by side). */
function midpackAsync(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (status) => resolve({ status, stderr }));
  });
}

interface Fixture {
  dir: string;
  ids: string[];
  inputs: string[];
  rankDirs: string[];
  single: string;
  merged: string;
}

let fixture: Promise<Fixture> | undefined;

function packArgs(inputs: string[], out: string, seqLen: number): string[] {
  return ['pack', ...inputs, '--out', out, '--seq-len', String(seqLen), '--rows-per-shard', '4', '--workers', '1', '--no-progress'];
}

/** Three Slurm-array ranks and a single-rank run of the same corpus, then one merge: built once for all tests. */
function setup(): Promise<Fixture> {
  fixture ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'midpack-merge-'));
    const { inputs, ids } = writeCorpus(dir);
    const pack = (out: string) => packArgs(inputs, out, L);
    const single = join(dir, 'single');
    const runs = await Promise.all([
      ...[0, 1, 2].map((r) => midpackAsync(pack(join(dir, 'run')), { SLURM_ARRAY_TASK_ID: String(r), SLURM_ARRAY_TASK_COUNT: '3' })),
      midpackAsync(pack(single)),
    ]);
    for (const r of runs) assert.equal(r.status, 0, r.stderr);
    const rankDirs = [0, 1, 2].map((r) => join(dir, 'run', `rank-0000${r}`));
    const merged = join(dir, 'merged');
    const m = midpack(['merge', ...rankDirs, '--out', merged]);
    assert.equal(m.status, 0, m.stderr);
    return { dir, ids, inputs, rankDirs, single, merged };
  })();
  return fixture;
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

test('merge: three Slurm-array ranks merge into one balanced output holding every input document once, with the ranks\' counts summed', slow, async () => {
  const f = await setup();
  const manifest = readJson(join(f.merged, 'manifest.json'));
  const ranks = f.rankDirs.map((d) => readJson(join(d, 'manifest.json')));
  assert.deepEqual(ranks.map((m) => [m.rank, m.world_size]), [[0, 3], [1, 3], [2, 3]]);
  assert.equal(manifest.rank, null);
  assert.equal(manifest.world_size, 3);
  assert.deepEqual(manifest.ranks.map((r: { rank: number; dir: string }) => [r.rank, r.dir]), [[0, '../run/rank-00000'], [1, '../run/rank-00001'], [2, '../run/rank-00002']]);
  assert.equal(manifest.balanced, true);
  assert.equal(manifest.ledger.records_in, f.ids.length);
  assert.equal(manifest.ledger.records_out, f.ids.length);
  for (const key of Object.keys(manifest.counts)) {
    assert.equal(manifest.counts[key], ranks.reduce((s, m) => s + m.counts[key], 0), `counts.${key}`);
  }
  assert.ok(manifest.counts.masked_tokens > 0, 'the node_modules documents carry masked tokens');
  assert.deepEqual(manifest.inputs.map((i: { path: string }) => i.path), [...f.inputs].sort());
  // every rank got some documents, and the shards are the ranks' in rank order, renumbered
  assert.ok(ranks.every((m) => m.counts.documents > 0));
  const rankShards = ranks.flatMap((m) => m.shards.map((s: { sha256: string }) => s.sha256));
  assert.deepEqual(manifest.shards.map((s: { sha256: string }) => s.sha256), rankShards);
  assert.deepEqual(manifest.shards.map((s: { filename: string }) => s.filename), rankShards.map((_: string, i: number) => `part-${String(i).padStart(5, '0')}.arrow`));
  assert.deepEqual(readJson(join(f.merged, 'shards', 'state.json'))._data_files, manifest.shards.map((s: { filename: string }) => ({ filename: s.filename })));

  const rows = readRows(f.merged);
  assert.equal(rows.length, manifest.counts.bins);
  const starts = rows.flatMap((r) => r.docIds.filter((_, u) => r.offsets[u] === 0));
  assert.equal(new Set(starts).size, starts.length, 'a document starts twice');
  assert.deepEqual([...starts].sort(), [...f.ids].sort());
});

test('merge: the merged documents and their tokens equal a single-rank run\'s, document for document; document figures too', slow, async () => {
  const f = await setup();
  const merged = documentsOf(readRows(f.merged));
  const single = documentsOf(readRows(f.single));
  assert.equal(merged.size, f.ids.length);
  assert.deepEqual([...merged.keys()].sort(), [...single.keys()].sort());
  for (const [id, doc] of single) {
    const m = merged.get(id)!;
    assert.deepEqual(m.ids, doc.ids, `${id}: tokens differ from the single-rank run`);
    assert.deepEqual(m.mask, doc.mask, `${id}: loss mask differs from the single-rank run`);
  }
  // figures that depend only on the documents equal the single run's; bin figures are recomputed from the sums
  const r = readJson(join(f.merged, 'report.json'));
  const s = readJson(join(f.single, 'report.json'));
  for (const key of ['by_kind', 'by_source', 'by_ordering', 'by_language', 'doc_length_histogram', 'masked_tokens', 'masked_fraction'] as const) assert.deepEqual(r[key], s[key], key);
  for (const key of ['documents', 'tokens', 'units', 'overlong_docs', 'overlong_rate', 'lower_bound'] as const) assert.equal(r.packing[key], s.packing[key], `packing.${key}`);
  const ranks = f.rankDirs.map((d) => readJson(join(d, 'report.json')));
  assert.equal(r.packing.bins, ranks.reduce((a, x) => a + x.packing.bins, 0));
  assert.equal(r.packing.padding_tokens, r.packing.bins * L - r.packing.tokens);
  assert.equal(r.packing.padding_rate, r.packing.padding_tokens / (r.packing.bins * L));
  assert.equal(r.packing.bins_over_lower_bound, r.packing.bins / Math.ceil(r.packing.tokens / L));
  assert.equal(r.bin_fill_histogram.counts.reduce((a: number, b: number) => a + b, 0), r.packing.bins);
  assert.ok(readFileSync(join(f.merged, 'report.html'), 'utf8').includes(r.packing.tokens.toLocaleString('en-US')));
});

test('merge: Megatron datasets are the ranks\' sequences in rank order, in the layout of one pack run', slow, async () => {
  const f = await setup();
  const manifest = readJson(join(f.merged, 'manifest.json'));
  const bins = manifest.counts.bins;
  for (const key of PREFIX_KEYS) {
    const merged = new MegatronIndexedReader(megatronPrefixes(join(f.merged, 'megatron'), 'midpack')[key]);
    const ranks = f.rankDirs.map((d) => new MegatronIndexedReader(megatronPrefixes(join(d, 'megatron'), 'midpack')[key]));
    assert.equal(merged.length, bins);
    let i = 0;
    for (const r of ranks) for (let k = 0; k < r.length; k++) assert.deepEqual(merged.get(i++), r.get(k), `${key}: sequence ${i - 1}`);
    // one sequence and one document per bin, as a pack run writes: indices 0, 1, ..., bins
    assert.deepEqual(Array.from(merged.documentIndices, Number), Array.from({ length: bins + 1 }, (_, d) => d));
    const ends = Int32Array.from({ length: bins }, (_, d) => d + 1);
    const idx = readFileSync(`${merged.prefix}.idx`);
    assert.deepEqual(idx, encodeIndex(merged.dtype, merged.sequenceLengths, ends));
    if (key !== 'docLens') assert.ok(merged.sequenceLengths.every((n) => n === L));
  }
  // the text dataset is the shards' rows
  const rows = readRows(f.merged);
  const text = new MegatronIndexedReader(megatronPrefixes(join(f.merged, 'megatron'), 'midpack').text);
  rows.forEach((row, k) => assert.deepEqual(text.get(k), row.ids, `bin ${k}`));
  const lengths = Buffer.concat(f.rankDirs.map((d) => readFileSync(join(d, 'doc_lengths.u32'))));
  assert.deepEqual(readFileSync(join(f.merged, 'doc_lengths.u32')), lengths);
  assert.equal(new Uint32Array(lengths.buffer, lengths.byteOffset, lengths.byteLength / 4).reduce((a, b) => a + b, 0), manifest.counts.tokens);
});

test('merge: argument order, --copy and a re-merge into the same folder give byte-identical outputs', slow, async () => {
  const f = await setup();
  const expected = hashTree(f.merged);
  const reordered = join(f.dir, 'merged-reordered');
  const r1 = midpack(['merge', f.rankDirs[2]!, f.rankDirs[0]!, f.rankDirs[1]!, '--out', reordered]);
  assert.equal(r1.status, 0, r1.stderr);
  assert.deepEqual(hashTree(reordered), expected);

  const copied = join(f.dir, 'merged-copied');
  const r2 = midpack(['merge', ...f.rankDirs, '--out', copied, '--copy']);
  assert.equal(r2.status, 0, r2.stderr);
  assert.deepEqual(hashTree(copied), expected);
  const rankShard = statSync(join(f.rankDirs[0]!, 'shards', 'part-00000.arrow')).ino;
  assert.equal(statSync(join(f.merged, 'shards', 'part-00000.arrow')).ino, rankShard, 'hard-linked on the same filesystem');
  assert.notEqual(statSync(join(copied, 'shards', 'part-00000.arrow')).ino, rankShard, '--copy copies');

  // a re-merge replaces the earlier outputs: stale shards and a killed merge's temporaries go
  writeFileSync(join(reordered, 'shards', 'part-00099.arrow'), 'stale');
  writeFileSync(join(reordered, 'megatron', 'midpack_text_document.bin.tmp-12345'), 'half');
  const r3 = midpack(['merge', ...f.rankDirs, '--out', reordered]);
  assert.equal(r3.status, 0, r3.stderr);
  assert.deepEqual(hashTree(reordered), expected);
});

test('merge: a missing rank, a duplicated rank, other settings and folders that are not rank outputs exit 1 naming them', slow, async () => {
  const f = await setup();
  const [r0, r1, r2] = f.rankDirs as [string, string, string];
  const refused = join(f.dir, 'refused');
  const fails = (args: string[], ...expected: string[]) => {
    const r = midpack(['merge', ...(args.includes('--out') ? args : [...args, '--out', refused])]);
    assert.equal(r.status, 1, r.stderr);
    for (const e of expected) assert.ok(r.stderr.includes(e), `expected "${e}" in: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, 'one clear line');
  };
  fails([r0, r2], 'missing rank 1 of 0..2');
  // the explicit escape merges what is there and records what is not
  const partial = join(f.dir, 'partial');
  const p = midpack(['merge', r0, r2, '--out', partial, '--allow-missing-ranks']);
  assert.equal(p.status, 0, p.stderr);
  assert.match(p.stderr, /ranks 1 of 3 are missing/);
  assert.deepEqual(JSON.parse(readFileSync(join(partial, 'manifest.json'), 'utf8')).missing_ranks, [1]);
  const dup = join(f.dir, 'dup-rank-1');
  cpSync(r1, dup, { recursive: true });
  fails([r0, r1, r2, dup], 'rank 1 is given twice', r1, dup);

  const other = join(f.dir, 'other');
  const packed = midpack(packArgs(f.inputs, other, 2 * L), { env: { SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '3' } });
  assert.equal(packed.status, 0, packed.stderr);
  fails([r0, join(other, 'rank-00001'), r2], 'different settings', 'config.seq_len is 4096 vs 8192', join(other, 'rank-00001'));

  // a rank folder edited by hand: another world size, or a report that disagrees with its files
  const edited = (what: string, edit: (dir: string) => void) => {
    const d = join(f.dir, what);
    cpSync(r1, d, { recursive: true });
    edit(d);
    return d;
  };
  const editJson = (path: string, change: (j: Record<string, any>) => void) => {
    const j = readJson(path);
    change(j);
    writeFileSync(path, JSON.stringify(j));
  };
  const wider = edited('world-size-4', (d) => editJson(join(d, 'manifest.json'), (m) => (m.world_size = 4)));
  fails([r0, wider, r2], 'different world sizes', `${wider} (rank 1): 4`);
  const liar = edited('report-bins', (d) => editJson(join(d, 'report.json'), (r) => r.packing.bins++));
  fails([r0, liar, r2], 'rank outputs are inconsistent', `${liar}: report.json has`);

  const empty = join(f.dir, 'not-a-rank');
  mkdirSync(empty, { recursive: true });
  fails([r0, r1, r2, empty], empty, 'not a finished rank output');
  fails([f.merged], f.merged, 'is a merged output');
  fails([r0, r1, r2, '--out', f.single], f.single, 'not a merge output');
  assert.ok(!existsSync(refused), 'a refused merge writes nothing');
  assert.equal(readJson(join(f.single, 'manifest.json')).rank, 0, 'the pack output is untouched');
});

test('merge: a shard that differs from its manifest is refused (size always, checksum with --verify)', slow, async () => {
  const f = await setup();
  const [r0, r1, r2] = f.rankDirs as [string, string, string];
  const bad = join(f.dir, 'corrupt-rank-1');
  cpSync(r1, bad, { recursive: true });
  const shard = join(bad, 'shards', 'part-00000.arrow');
  const bytes = readFileSync(shard);
  bytes[bytes.length >> 1] ^= 0xff;
  writeFileSync(shard, bytes);
  const out = join(f.dir, 'verify-out');
  const ok = midpack(['merge', r0, bad, r2, '--out', out]);
  assert.equal(ok.status, 0, 'same size: only --verify reads the bytes');
  const verified = midpack(['merge', r0, bad, r2, '--out', out, '--verify']);
  assert.equal(verified.status, 1);
  assert.match(verified.stderr, /--verify: files differ from their manifests: .*corrupt-rank-1\/shards\/part-00000\.arrow: sha256/);
  truncateSync(shard, 100);
  const cut = midpack(['merge', r0, bad, r2, '--out', out]);
  assert.equal(cut.status, 1);
  assert.ok(cut.stderr.includes(`${shard}: 100 bytes, its manifest says ${bytes.length}`), cut.stderr);
  assert.equal(midpack(['merge', ...f.rankDirs, '--out', out, '--verify']).status, 0);
});

test('merge: datasets.load_from_disk opens the merged shards with every bin (where Python has datasets)', async (t) => {
  const probe = spawnSync('python3', ['-c', 'import datasets'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    t.skip('python3 with the datasets package is not installed');
    return;
  }
  const f = await setup();
  const py = 'import sys, datasets\nds = datasets.load_from_disk(sys.argv[1])\nprint(ds.num_rows, len(ds[0]["input_ids"]), len(ds[-1]["input_ids"]))';
  const r = spawnSync('python3', ['-c', py, join(f.merged, 'shards')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const bins = readJson(join(f.merged, 'manifest.json')).counts.bins;
  assert.equal(r.stdout.trim(), `${bins} ${L} ${L}`);
});

test('merge: stage figures merge across ranks (ledgers merged, counts summed, rates kept per rank)', () => {
  const ledger = (n: number, dropped: number) => ({ records_in: n, records_out: n - dropped, dropped: dropped ? { binary: dropped } : {}, produced: {}, examples: dropped ? { binary: [`file ${n}`] } : {} });
  const merged = mergeStages([
    { serialize_repos: { repos: 3, by_language: { Python: { documents: 2 } } }, mask: { ledger: ledger(5, 1), config: { minDocs: 3 }, threshold_rate: 0.25 } },
    undefined,
    { serialize_repos: { repos: 4, by_language: { Go: { documents: 1 } } }, mask: { ledger: ledger(7, 0), config: { minDocs: 3 }, threshold_rate: 0.5 } },
  ]);
  assert.deepEqual(merged, {
    mask: {
      config: { minDocs: 3 },
      ledger: { records_in: 12, records_out: 11, dropped: { binary: 1 }, produced: {}, examples: { binary: ['file 5'] } },
      threshold_rate: { per_rank: [0.25, null, 0.5] },
    },
    serialize_repos: { repos: 7, by_language: { Go: { documents: 1 }, Python: { documents: 2 } } },
  });
  assert.equal(mergeStages([undefined, undefined]), undefined);
});

test('merge: a rank that got no documents adds no shard; the merge of one document equals a one-rank run byte for byte', slow, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-merge-empty-'));
  const one = join(dir, 'one.jsonl');
  writeFileSync(one, readFileSync(join(repoRoot, 'data-samples', 'docs', 'packages.jsonl'), 'utf8').split('\n')[0] + '\n');
  const runs = await Promise.all([
    midpackAsync([...packArgs([one], join(dir, 'run'), L), '--rank', '0', '--world-size', '2']),
    midpackAsync([...packArgs([one], join(dir, 'run'), L), '--rank', '1', '--world-size', '2']),
    midpackAsync(packArgs([one], join(dir, 'single'), L)),
  ]);
  for (const r of runs) assert.equal(r.status, 0, r.stderr);
  const ranks = [0, 1].map((r) => readJson(join(dir, 'run', `rank-0000${r}`, 'manifest.json')));
  assert.deepEqual(ranks.map((m) => m.counts.documents).sort(), [0, 1], 'one rank owns the document, the other is empty');
  const merged = join(dir, 'merged');
  const r = midpack(['merge', join(dir, 'run', 'rank-00000'), join(dir, 'run', 'rank-00001'), '--out', merged]);
  assert.equal(r.status, 0, r.stderr);
  const m = readJson(join(merged, 'manifest.json'));
  const s = readJson(join(dir, 'single', 'manifest.json'));
  assert.equal(m.shards.length, s.shards.length, 'the empty rank\'s empty shard is left out');
  const data = (rel: string) => rel.startsWith('shards/') || rel.startsWith('megatron/') || rel === 'doc_lengths.u32';
  const single = hashTree(join(dir, 'single'), (rel) => !data(rel) && !['shards', 'megatron'].includes(rel));
  assert.ok(Object.keys(single).length >= 10);
  assert.deepEqual(hashTree(merged, (rel) => !data(rel) && !['shards', 'megatron'].includes(rel)), single);
  assert.deepEqual(m.counts, s.counts);
  assert.deepEqual(m.ledger, s.ledger);
});
