import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { readRows, documentsOf } from '../helpers/shard-rows.js';
import { loadTokenizer } from '../../src/tokenize/tokenizer.js';
import { repoRoot } from '../helpers/paths.js';
import { midpack, midpackKilled, hashTree } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

const L = 4096;
const tmp = () => mkdtempSync(join(tmpdir(), 'midpack-pack-'));

/** Real code and prose from node_modules, one document per file, with a few loss-mask spans. */
function realCorpus(dir: string, opts: { bad?: boolean } = {}): { path: string; docs: Map<string, { text: string; spans: [number, number][] }> } {
  const files = [
    'commander/lib/command.js',
    'commander/lib/help.js',
    'commander/lib/option.js',
    'commander/Readme.md',
    'p-limit/index.js',
    'p-limit/readme.md',
    'yaml/dist/compose/composer.js',
    'yaml/dist/parse/lexer.js',
    'yaml/dist/parse/parser.js',
    'hyparquet/src/read.js',
    'cli-progress/README.md',
  ];
  const docs = new Map<string, { text: string; spans: [number, number][] }>();
  const lines: string[] = [];
  files.forEach((f, i) => {
    const text = readFileSync(join(repoRoot, 'node_modules', f), 'utf8');
    // mask the first 5 lines and every line that starts with "//" or "import"/"const": a stand-in for masking
    const spans: [number, number][] = [];
    let pos = 0;
    text.split('\n').forEach((line, k) => {
      const end = pos + line.length + 1;
      if (k < 5 || /^\s*(\/\/|import |const )/.test(line)) {
        const last = spans[spans.length - 1];
        const b = Math.min(end, text.length);
        if (last && last[1] === pos) last[1] = b;
        else if (b > pos) spans.push([pos, b]);
      }
      pos = end;
    });
    const id = `doc-${i}`;
    docs.set(id, { text, spans });
    lines.push(JSON.stringify({ id, kind: i % 2 ? 'web' : 'text', source: `npm:${f}`, text, meta: {}, loss_mask_spans: spans }));
    if (opts.bad && i === 3) {
      lines.push('{"id": "broken", "text": "no closing brace"');
      lines.push(JSON.stringify({ id: 'empty', text: '' }));
      lines.push(JSON.stringify({ id: 'no-text', meta: {} }));
      // a span that claims ordinary text is a special token: the document cannot be tokenized
      lines.push(JSON.stringify({ id: 'bad-special', text: 'not a marker here', special_spans: [[0, 3]] }));
    }
  });
  const path = join(dir, 'corpus.jsonl');
  let body = Buffer.from(lines.join('\n') + '\n');
  if (opts.bad) body = Buffer.concat([body, Buffer.from('{"id":"latin1","text":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]);
  writeFileSync(path, body);
  return { path, docs };
}

function readShards(out: string) {
  return { manifest: JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')), rows: readRows(out) };
}

test('pack: every document in the shards equals a fresh tokenization; rows are exactly L; masks exact by decoding', async () => {
  const dir = tmp();
  const { path, docs } = realCorpus(dir);
  const out = join(dir, 'out');
  const r = midpack(['pack', path, '--out', out, '--seq-len', String(L), '--workers', '2', '--no-progress']);
  assert.equal(r.status, 0, r.stderr);
  const tok = await loadTokenizer();
  const { manifest, rows } = readShards(out);
  assert.equal(manifest.balanced, true);
  for (const row of rows) {
    assert.equal(row.ids.length, L);
    const used = row.lens.reduce((s, x) => s + x, 0);
    assert.ok(used <= L);
    for (let i = used; i < L; i++) {
      assert.equal(row.ids[i], tok.padId);
      assert.equal(row.mask[i], 0);
    }
  }
  // each document reassembled from its units (split policy: chunks in order of offset)
  const packed = documentsOf(rows);
  assert.equal(packed.size, docs.size);
  for (const [id, { text, spans }] of docs) {
    const ids = Int32Array.from(packed.get(id)!.ids);
    const mask = Uint8Array.from(packed.get(id)!.mask);
    const fresh = tok.encodeDoc({ text });
    assert.deepEqual(ids, fresh.ids, `${id}: tokens differ from a fresh tokenization`);
    // exactness by decoding: walk tokens, each decodes to the next characters of the text
    let pos = 0;
    let checked = 0;
    for (let i = 0; i < ids.length - 1; i++) {
      const piece = tok.decode([ids[i]!]);
      if (piece.includes('\uFFFD')) {
        pos = -1; // a multi-byte character split across tokens: positions resync below
        break;
      }
      assert.equal(text.slice(pos, pos + piece.length), piece);
      const inside = spans.some(([a, b]) => a <= pos && pos + piece.length <= b);
      assert.equal(mask[i], inside ? 0 : 1, `${id}: token ${i} ${JSON.stringify(piece)} at ${pos}`);
      pos += piece.length;
      checked++;
    }
    if (pos >= 0) assert.equal(pos, text.length);
    assert.ok(checked > 100);
    assert.equal(mask[ids.length - 1], 1, 'the end-of-text token is trained on');
  }
});

test('pack: the manifest balances with malformed lines, empty texts, a record without text and invalid UTF-8', () => {
  const dir = tmp();
  const { path, docs } = realCorpus(dir, { bad: true });
  const out = join(dir, 'out');
  const r = midpack(['pack', path, '--out', out, '--seq-len', String(L), '--workers', '1', '--no-progress']);
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.equal(m.ledger.records_in, docs.size + 5);
  assert.equal(m.ledger.records_out, docs.size);
  assert.deepEqual(m.ledger.dropped, { empty_text: 1, invalid_utf8: 1, malformed_json: 1, missing_text: 1, tokenize_failed: 1 });
  assert.equal(m.balanced, true);
  assert.match(r.stderr, /corpus\.jsonl:\d+: .*JSON/);
  assert.match(r.stderr, /corpus\.jsonl:\d+: line is not valid UTF-8/);
});

test('pack: the same bytes for 1, 2 and 4 workers', slow, () => {
  const dir = tmp();
  const { path } = realCorpus(dir);
  const hashes = [1, 2, 4].map((w) => {
    const out = join(dir, `out-${w}`);
    const r = midpack(['pack', path, '--out', out, '--seq-len', String(L), '--workers', String(w), '--no-progress', '--chunk-tokens', '20000']);
    assert.equal(r.status, 0, r.stderr);
    return hashTree(out);
  });
  assert.ok(Object.keys(hashes[0]!).length >= 8);
  assert.deepEqual(hashes[1], hashes[0]);
  assert.deepEqual(hashes[2], hashes[0]);
});

test('pack: killed with SIGKILL at several points, then rerun, ends with the same sha256 for every file', slow, async () => {
  const dir = tmp();
  // with bad records too: a resumed run must count them exactly as the first run did
  const { path } = realCorpus(dir, { bad: true });
  // --pass-units 6: planning takes several passes; small windows and few open bins make each
  // pass close bins, so the plan:N kill points fall between passes that planned bins
  const args = (out: string) => ['pack', path, '--out', out, '--seq-len', String(L), '--workers', '1', '--no-progress', '--chunk-tokens', '15000', '--rows-per-shard', '4', '--pass-units', '6', '--window-units', '4', '--max-open-bins', '2'];
  const ref = join(dir, 'ref');
  assert.equal(midpack(args(ref)).status, 0);
  const expected = hashTree(ref);
  const bins = JSON.parse(readFileSync(join(ref, 'manifest.json'), 'utf8')).counts.bins;
  assert.ok(bins > 12, `only ${bins} bins`);
  const units = JSON.parse(readFileSync(join(ref, 'manifest.json'), 'utf8')).counts.units;
  assert.ok(units > 3 * 6, `${units} units: planning takes fewer than 3 passes`);
  // Deterministic kill points, one round per thing a resume must get right: a fresh run killed
  // after its first tokenized chunk; then in each phase (tokenizing, planning, writing) killed
  // twice in a row, so a resumed run is itself killed and resumed; then one kill at a random
  // moment. (More kill points of the same kinds: npm run test:faults.)
  const plans = [['chunks:1'], ['chunks:2', 'chunks:1'], ['plan:2', 'plan:1'], [`bins:${bins - 1}`, 'bins:2']];
  for (const plan of plans) {
    const out = join(dir, `killed-${plan.join('-')}`);
    for (const fault of plan) {
      const k = midpack(args(out), { env: { MIDPACK_FAULT: fault } });
      assert.equal(k.status, null, `the run was not killed at ${fault}`);
    }
    const r = midpack(args(out));
    assert.equal(r.status, 0, r.stderr);
    if (plan[0]!.startsWith('chunks')) assert.match(r.stderr, /resuming after \d+ complete chunks/);
    assert.deepEqual(hashTree(out), expected, `killed at ${plan.join(', ')}`);
  }
  const out = join(dir, 'killed-random');
  await midpackKilled(args(out), 300 + Math.floor(Math.random() * 1500));
  assert.equal(midpack(args(out)).status, 0);
  assert.deepEqual(hashTree(out), expected, 'killed at a random moment');
});

test('pack: Hugging Face datasets opens the shards (where Python has datasets)', (t) => {
  const probe = spawnSync('python3', ['-c', 'import datasets'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    t.skip('python3 with the datasets package is not installed');
    return;
  }
  const dir = tmp();
  const { path, docs } = realCorpus(dir);
  const out = join(dir, 'out');
  assert.equal(midpack(['pack', path, '--out', out, '--seq-len', String(L), '--no-progress']).status, 0);
  const py = `
import sys, json, datasets
ds = datasets.load_from_disk(sys.argv[1])
rows = [ds[i] for i in range(len(ds))]
assert all(len(r["input_ids"]) == ${L} for r in rows)
ids = sorted(set(i for r in rows for i in r["doc_ids"]))
print(json.dumps({"rows": len(ds), "ids": ids, "tokens": sum(sum(r["doc_lens"]) for r in rows)}))
`;
  const r = spawnSync('python3', ['-c', py, join(out, 'shards')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const got = JSON.parse(r.stdout);
  const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.equal(got.rows, m.counts.bins);
  assert.equal(got.tokens, m.counts.tokens);
  assert.deepEqual(got.ids, [...docs.keys()].sort());
});
