import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { repoRoot } from '../helpers/paths.js';
import { hashTree, midpack } from '../helpers/run-cli.js';
import { documentsOf, readRows, type Row } from '../helpers/shard-rows.js';
import { MegatronIndexedReader, megatronPrefixes } from '../../src/write/megatron.js';
import { pythonHas, runPythonJson } from '../write/fixtures.js';
import { slow } from '../helpers/tiers.js';

/**
 * Token-budgeted mixtures end to end, on real code and documents with the real Qwen3 tokenizer:
 * four sources of very different sizes (214k, 144k, 40k and 13k tokens), two downsampled, one
 * downsampled a little, one repeated three times through its FIM stage. Every figure of the
 * report is recomputed here from the Arrow shards.
 */
const nm = (p: string) => join(repoRoot, 'node_modules', p);
const TARGETS = { arrow: 0.45, linkedom: 0.12, docs: 0.3, small: 0.13 };

function config(dir: string, out: string, pack: Record<string, unknown> = {}, edit: (c: Record<string, unknown>) => void = () => {}): string {
  const cfg: Record<string, unknown> = {
    out: join(dir, out),
    seed: 3,
    tokenizer: 'qwen3',
    workers: 2,
    sources: [
      { name: 'arrow', type: 'code', inputs: [nm('apache-arrow/src')], share: TARGETS.arrow },
      { name: 'linkedom', type: 'code', inputs: [nm('linkedom/esm')], share: TARGETS.linkedom },
      { name: 'docs', type: 'documents', inputs: [join(repoRoot, 'data-samples', 'docs')], share: TARGETS.docs },
      {
        name: 'small',
        type: 'code',
        inputs: [nm('cli-progress/lib'), nm('p-limit'), nm('yocto-queue')],
        share: TARGETS.small,
        maxRepeat: 4,
        then: [{ type: 'fim', options: { fimRate: 0.5, formats: 'fim=1' } }],
      },
    ],
    pack: { seqLen: 8192, overlong: 'split', rowsPerShard: 16, tokens: 300_000, ...pack },
  };
  edit(cfg);
  const path = join(dir, `${out}.yaml`);
  writeFileSync(path, YAML.stringify(cfg));
  return path;
}

const json = (p: string) => JSON.parse(readFileSync(p, 'utf8'));

/** Each packed document's config source, from the mixed documents the run kept (--keep-work). */
function sourceOfIds(out: string): Map<string, { source: string; text: string; unit: string; repeat?: number }> {
  const m = new Map<string, { source: string; text: string; unit: string; repeat?: number }>();
  for (const line of readFileSync(join(out, '.run', 'mixed.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const d = JSON.parse(line);
    m.set(d.id, { source: d.meta.mixture_source, text: d.text, unit: d.meta.mixture_unit, repeat: d.meta.mixture_repeat });
  }
  return m;
}

/** Tokens per source, summed over the units of the shards. */
function tokensBySource(rows: Row[], sourceOf: (id: string) => string): Map<string, number> {
  const t = new Map<string, number>();
  for (const r of rows) r.lens.forEach((len, u) => t.set(sourceOf(r.docIds[u]!), (t.get(sourceOf(r.docIds[u]!)) ?? 0) + len));
  return t;
}

const dir = mkdtempSync(join(tmpdir(), 'midpack-mixture-'));
const single = join(dir, 'single');
const ok = (r: { status: number | null; stderr: string }) => assert.equal(r.status, 0, r.stderr);

test('four sources: achieved shares within 0.5 points of the targets, recomputed from the shards', slow, () => {
  ok(midpack(['run', config(dir, 'single'), '--keep-work', '--no-progress']));
  const report = json(join(single, 'report.json'));
  const ids = sourceOfIds(single);
  const rows = readRows(single);
  // Per source from the shards alone (doc_sources), and the same from the kept documents.
  const tokens = new Map<string, number>();
  for (const r of rows) r.lens.forEach((len, u) => tokens.set(r.sources[u]!, (tokens.get(r.sources[u]!) ?? 0) + len));
  assert.deepEqual(tokens, tokensBySource(rows, (id) => ids.get(id)!.source));
  const total = [...tokens.values()].reduce((a, b) => a + b, 0);
  assert.equal(report.mixture.achieved_tokens, total);
  for (const [name, target] of Object.entries(TARGETS)) {
    const s = report.mixture.sources[name];
    assert.equal(s.target_share, target);
    assert.equal(s.achieved_tokens, tokens.get(name), name);
    assert.equal(s.achieved_share, tokens.get(name)! / total, name);
    assert.ok(Math.abs(s.achieved_share - target) < 0.005, `${name}: achieved ${s.achieved_share}, target ${target}`);
  }
  // The manifest holds the same section.
  assert.deepEqual(json(join(single, 'manifest.json')).mixture, report.mixture);

  const s = report.mixture.sources;
  assert.ok(s.arrow.repeat_factor < 0.7 && s.arrow.dropped_by_sampling > 50, 'arrow is downsampled');
  assert.ok(s.docs.repeat_factor < 0.7 && s.docs.dropped_by_sampling > 30, 'docs is downsampled');
  assert.ok(s.small.repeat_factor > 3 && s.small.repeated_documents >= 40, 'small is repeated');
  assert.equal(s.small.dropped_by_sampling, 0);
  // Available documents and tokens: those of the prepared documents, which the ledgers count.
  const stages = json(join(single, 'manifest.json')).stages;
  assert.equal(s.linkedom.available_documents, stages.linkedom.ledger.records_out);
  assert.equal(stages.mixture.ledger.records_in, Object.values(s).reduce((n: number, x) => n + (x as { available_documents: number }).available_documents, 0));

  // Repeats are new units ID#rN, and the FIM stage drew afresh for them: some repeat differs from its first use.
  const packed = documentsOf(rows);
  const repeats = [...ids].filter(([, d]) => d.repeat !== undefined);
  assert.equal(repeats.length, s.small.repeated_documents);
  assert.ok(repeats.every(([, d]) => d.source === 'small' && d.repeat! >= 1 && d.repeat! <= 3));
  for (const [id] of repeats) assert.ok(packed.has(id), `repeat ${id} is packed`);
  // A repeat the FIM stage left whole is its source document renamed: UNIT#rN.
  assert.ok(repeats.some(([id, d]) => id === `${d.unit}#r${d.repeat}`));
  const firstUse = new Map([...ids].filter(([, d]) => d.repeat === undefined).map(([, d]) => [d.unit, d.text]));
  const redrawn = repeats.filter(([, d]) => firstUse.get(d.unit) !== d.text);
  assert.ok(redrawn.length > 0 && redrawn.length < repeats.length, `the FIM stage drew afresh for the repeats (${redrawn.length} of ${repeats.length} differ from their first use)`);
});

test('1 rank and 3 ranks merged hold the same documents, repeats included, with the same tokens', slow, () => {
  const multi = config(dir, 'multi');
  const slurm = (r: number) => ({ SLURM_ARRAY_TASK_ID: String(r), SLURM_ARRAY_TASK_COUNT: '3' });
  // Without the counts of every rank the run refuses to sample.
  const refused = midpack(['run', multi, '--no-progress'], { env: slurm(0) });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /a mixture over 3 ranks needs the token counts of every rank: run --phase count on each rank/);
  for (const r of [0, 1, 2]) ok(midpack(['run', multi, '--phase', 'count', '--no-progress'], { env: slurm(r) }));
  const rankDirs = readdirSync(join(dir, 'multi')).filter((d) => d.startsWith('rank-')).sort().map((d) => join(dir, 'multi', d));
  const counts = join(dir, 'mixture-counts.json');
  ok(midpack(['mixture', 'merge', ...rankDirs.map((d) => join(d, '.run', 'mixture-counts.json')), '--out', counts]));
  for (const r of [0, 1, 2]) ok(midpack(['run', multi, '--phase', 'pack', '--mixture-counts', counts, '--no-progress'], { env: slurm(r) }));
  const merged = join(dir, 'merged');
  ok(midpack(['merge', ...rankDirs, '--out', merged]));

  const a = documentsOf(readRows(single));
  const b = documentsOf(readRows(merged));
  assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
  for (const [id, doc] of a) assert.deepEqual(b.get(id), doc, id);
  const one = json(join(single, 'report.json')).mixture;
  const many = json(join(merged, 'report.json')).mixture;
  for (const name of Object.keys(TARGETS)) {
    for (const k of ['achieved_tokens', 'achieved_share', 'available_tokens', 'repeat_factor', 'dropped_by_sampling', 'repeated_documents']) assert.equal(many.sources[name][k], one.sources[name][k], `${name}.${k}`);
  }
});

test('perSource: one Megatron dataset and Arrow folder per source, and a blend line whose weights are the targets', slow, async (t) => {
  const out = join(dir, 'per-source');
  ok(midpack(['run', config(dir, 'per-source', { perSource: true }), '--keep-work', '--no-progress']));
  const report = json(join(out, 'report.json'));
  const line = readFileSync(join(out, 'blend.txt'), 'utf8').trim();
  assert.equal(report.mixture.blend.data_path, line);
  const words = line.split(' ');
  assert.equal(words[0], '--data-path');
  const pairs = Object.keys(TARGETS).map((_, i) => [Number(words[1 + 2 * i]), words[2 + 2 * i]] as const);
  assert.deepEqual(pairs, Object.entries(TARGETS).map(([name, w]) => [w, `sources/${name}/megatron/midpack_text_document`]));
  const ids = sourceOfIds(out);
  const numpy = pythonHas(['numpy'], t.name);
  for (const name of Object.keys(TARGETS)) {
    const folder = join(out, 'sources', name);
    const rows = readRows(folder);
    // Each bin holds one source.
    for (const r of rows) for (const id of r.docIds) assert.equal(ids.get(id)!.source, name, `${id} in ${name}'s bins`);
    assert.equal([...tokensBySource(rows, () => name).values()][0], report.mixture.sources[name].achieved_tokens);
    const p = megatronPrefixes(join(folder, 'megatron'), 'midpack');
    const reader = new MegatronIndexedReader(p.text);
    assert.equal(reader.length, rows.length);
    for (let i = 0; i < rows.length; i++) assert.deepEqual(Array.from(reader.get(i)), Array.from(rows[i]!.ids));
    if (numpy) {
      // Megatron's own layout, read by the numpy reader written from indexed_dataset.py.
      const got = runPythonJson(
        'import json, sys\nsys.path.insert(0, sys.argv[1])\nfrom midpack_dataset import IndexedDataset\nds = IndexedDataset(sys.argv[2])\nprint(json.dumps({"n": len(ds), "docs": ds.document_indices.tolist(), "first": ds[0].tolist()}))',
        [join(repoRoot, 'examples', 'megatron'), p.text],
      ) as { n: number; docs: number[]; first: number[] };
      assert.equal(got.n, rows.length);
      assert.deepEqual(got.docs, Array.from({ length: rows.length + 1 }, (_, i) => i));
      assert.deepEqual(got.first, Array.from(rows[0]!.ids));
    }
  }
  // The same decisions as one output: the same documents, spread over the source folders.
  const all = new Map(Object.keys(TARGETS).flatMap((n) => [...documentsOf(readRows(join(out, 'sources', n)))]));
  const one = documentsOf(readRows(single));
  assert.deepEqual([...all.keys()].sort(), [...one.keys()].sort());
  for (const name of Object.keys(TARGETS)) assert.equal(report.mixture.sources[name].achieved_tokens, json(join(single, 'report.json')).mixture.sources[name].achieved_tokens);
});

test('a target that maxRepeat cannot meet: reported before packing, an error with --strict-mixture', slow, () => {
  const short = config(dir, 'short', {}, (c) => {
    (c.sources as Record<string, unknown>[])[3]!.maxRepeat = 2;
  });
  const strict = midpack(['run', short, '--strict-mixture', '--no-progress']);
  assert.equal(strict.status, 1);
  assert.match(strict.stderr, /--strict-mixture: targets cannot be met within maxRepeat:\n {2}small: target 39000 tokens, \d+ available × maxRepeat 2 = \d+ \(short by \d+\)/);
  const lax = midpack(['run', short, '--no-progress']);
  ok(lax);
  assert.match(lax.stderr, /mixture: targets not met within maxRepeat/);
  const s = json(join(dir, 'short', 'report.json')).mixture.sources.small;
  assert.equal(s.repeat_factor, 2);
  assert.ok(s.shortfall_tokens > 10_000);
  assert.match(s.reason, /^short by \d+ tokens within maxRepeat 2$/);
});

test('a mixture run killed while packing resumes to the same bytes, for 1 or 2 workers; another target is refused in the same folder, and replaced with --overwrite', slow, () => {
  const ref = config(dir, 'resume-ref');
  ok(midpack(['run', ref, '--no-progress', '--workers', '1']));
  const expected = hashTree(join(dir, 'resume-ref'));
  const cfg = config(dir, 'resumed');
  for (const fault of ['chunks:1', 'bins:3']) {
    const k = midpack(['run', cfg, '--no-progress', '--workers', '1'], { env: { MIDPACK_FAULT: fault } });
    assert.equal(k.status, null, `not killed at ${fault}: ${k.stderr.slice(-500)}`);
  }
  const r = midpack(['run', cfg, '--no-progress', '--workers', '2']);
  ok(r);
  assert.match(r.stderr, /reusing the prepared documents/);
  assert.deepEqual(hashTree(join(dir, 'resumed')), expected);
  // The same folder with another target: the mixture is part of the fingerprint.
  const other = config(dir, 'resumed', {}, (c) => {
    (c.sources as Record<string, unknown>[])[2]!.share = 0.27;
    (c.sources as Record<string, unknown>[])[3]!.share = 0.16;
  });
  const refused = midpack(['run', other, '--no-progress']);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /holds a midpack output of other inputs or settings \(config_sha256 was/);
  const k = midpack(['run', other, '--overwrite', '--no-progress'], { env: { MIDPACK_FAULT: 'chunks:1' } });
  assert.equal(k.status, null);
  const again = midpack(['run', other, '--overwrite', '--no-progress']);
  ok(again);
  assert.ok(Math.abs(json(join(dir, 'resumed', 'report.json')).mixture.sources.small.achieved_share - 0.16) < 0.005);
});

test('repeats of a trajectory source draw their template afresh from the seed and the repeat index', slow, () => {
  const out = join(dir, 'trajectories');
  const path = join(dir, 'trajectories.yaml');
  writeFileSync(path, YAML.stringify({
    out,
    seed: 3,
    tokenizer: 'qwen3',
    workers: 1,
    sources: [
      { name: 'agents', type: 'trajectories', inputs: [join(repoRoot, 'data-samples', 'trajectories')], share: 0.24, maxRepeat: 4 },
      { name: 'docs', type: 'documents', inputs: [join(repoRoot, 'data-samples', 'docs')], share: 0.76 },
    ],
    pack: { seqLen: 8192, overlong: 'split', rowsPerShard: 16 },
  }));
  ok(midpack(['run', path, '--keep-work', '--no-progress']));
  const mixed = readFileSync(join(out, '.run', 'mixed.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const firstUse = new Map(mixed.filter((d) => d.meta.mixture_repeat === undefined).map((d) => [d.id, d]));
  const repeats = mixed.filter((d) => d.meta.mixture_repeat !== undefined);
  const s = json(join(out, 'report.json')).mixture.sources.agents;
  assert.ok(s.repeat_factor > 3, `agents repeated (factor ${s.repeat_factor})`);
  assert.equal(repeats.length, s.repeated_documents);
  for (const d of repeats) {
    assert.equal(d.id, `${d.meta.mixture_unit}#r${d.meta.mixture_repeat}`);
    assert.ok(firstUse.has(d.meta.mixture_unit), `${d.id}: its first use is packed too`);
  }
  const redrawn = repeats.filter((d) => d.meta.template !== firstUse.get(d.meta.mixture_unit).meta.template);
  assert.ok(redrawn.length > 0 && redrawn.every((d) => d.text !== firstUse.get(d.meta.mixture_unit).text), `${redrawn.length} of ${repeats.length} repeats in another template`);
  assert.ok(Math.abs(s.achieved_share - 0.24) < 0.005, `agents: achieved ${s.achieved_share}`);
  const packed = documentsOf(readRows(out));
  for (const d of repeats) assert.ok(packed.has(d.id), `repeat ${d.id} is packed`);
});
