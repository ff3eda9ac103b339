import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { loadRunConfig } from '../../src/job/run-config.js';
import { repoRoot } from '../helpers/paths.js';
import { midpack, hashTree } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'midpack-run-'));
const samples = join(repoRoot, 'data-samples');

/** The example mix over data-samples, with a small L so there are many bins and chunks. */
function exampleConfig(dir: string, out: string, extra: { mask?: boolean } = {}): string {
  const cfg = YAML.parse(readFileSync(join(repoRoot, 'examples', 'pipeline.yaml'), 'utf8'));
  cfg.out = out;
  for (const s of cfg.sources) s.inputs = s.inputs.map((p: string) => join(repoRoot, 'examples', p));
  cfg.pack = { ...cfg.pack, seqLen: 16384, chunkTokens: 60000, rowsPerShard: 8 };
  if (extra.mask === false) delete cfg.mask;
  const path = join(dir, 'pipeline.yaml');
  writeFileSync(path, YAML.stringify(cfg));
  return path;
}

test('run config: wrong keys and values are named with their path', () => {
  const dir = tmp();
  const write = (body: string) => {
    const p = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(p, body);
    return p;
  };
  const cases: [string, RegExp][] = [
    ['sources: []\n', /sources: must be a non-empty list/],
    ['sources:\n  - type: repos\n    inputs: [x]\n    options: {ordr: alpha}\n', /sources\[0\]\.options\.ordr: unknown key \(allowed: order,/],
    ['sources:\n  - type: repoz\n    inputs: [x]\n', /sources\[0\]\.type: must be one of repos, web, edits, code, documents/],
    ['sources:\n  - type: web\n    inputs: [x]\npack: {seqLen: -3}\n', /pack\.seqLen: must be an integer in 1\.\.∞, got -3/],
    ['sources:\n  - type: web\n    inputs: [x]\nmask: {minDoc: 3}\n', /mask\.minDoc: unknown key/],
    ['sources:\n  - type: web\n    inputs: [x]\n    then: [{type: fim, options: {rate: 1}}]\n', /sources\[0\]\.then\[0\]\.options\.rate: unknown key/],
    ['sources: [: bad\n', /not valid YAML/],
    ['outt: x\nsources:\n  - type: web\n    inputs: [x]\n', /outt: unknown key/],
  ];
  for (const [body, re] of cases) {
    const p = write(body);
    assert.throws(() => loadRunConfig(p), (e: Error) => re.test(e.message) && e.message.startsWith(p), body);
  }
  // and through the CLI: exit code 1, one clear line
  const r = midpack(['run', write(cases[1]![0])]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^midpack: error: .*sources\[0\]\.options\.ordr: unknown key/m);
});

test('run: the example mix over data-samples, every stage accounted for, every kind present', slow, () => {
  const dir = tmp();
  const out = join(dir, 'out');
  // Not a reproducible run (no SOURCE_DATE_EPOCH): report.json and report.html carry the stage times.
  const r = midpack(['run', exampleConfig(dir, out), '--workers', '2', '--force-workers'], { env: { SOURCE_DATE_EPOCH: '' } });
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.equal(m.balanced, true);
  // Time per stage: report.json, report.html, and one progress line per stage (stderr is not a terminal here).
  const times = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')).stage_times as Record<string, { wall_s: number; cpu_s: number; documents: number; bytes: number; mb_per_s: number }>;
  const stageNames = Object.keys(m.stages).filter((k) => k !== 'mask');
  // Tokenizing ran beside preparing (no mixture): the two side by side, the masks placed after, then the rest of the pack job.
  assert.deepEqual(Object.keys(times), [...stageNames, 'prepare.write', 'mask.count', 'prepare', 'prepare+tokenize', 'mask.apply', 'pack']);
  assert.ok(times['prepare+tokenize']!.wall_s >= times.prepare!.wall_s, 'tokenizing ends after preparing');
  assert.ok(times['mask.apply']!.wall_s <= times.pack!.wall_s + 0.01, 'placing the masks is part of the pack phase after preparing');
  const lastOfEach = stageNames.filter((k) => !stageNames.some((o) => o.startsWith(`${k}.`)));
  assert.equal(lastOfEach.reduce((n, k) => n + times[k]!.documents, 0), m.ledger.records_in, 'the last stage of each source yields the packed documents');
  assert.equal(times.prepare!.documents, m.ledger.records_in);
  // On 2 workers the sources run in a prepare worker while the main thread writes and counts: each within the phase.
  for (const k of stageNames) assert.ok(times[k]!.wall_s <= times.prepare!.wall_s + 0.01, `${k}: ${times[k]!.wall_s} s, longer than the prepare phase`);
  assert.ok(times['prepare.write']!.wall_s + times['mask.count']!.wall_s <= times.prepare!.wall_s + 0.01);
  assert.ok(times.pack!.wall_s > 0 && times.pack!.mb_per_s > 0);
  for (const k of [...stageNames, 'pack']) assert.match(r.stderr, new RegExp(`^midpack: run: stage ${k.replace('.', '\\.')}: [\\d,]+ documents, `, 'm'));
  assert.match(readFileSync(join(out, 'report.html'), 'utf8'), /<h2>Time per stage<\/h2>/);
  for (const [name, s] of Object.entries(m.stages as Record<string, { ledger: { records_in: number; records_out: number; dropped: Record<string, number> } }>)) {
    const dropped = Object.values(s.ledger.dropped).reduce((a, b) => a + b, 0);
    assert.equal(s.ledger.records_in, s.ledger.records_out + dropped, `stage ${name} does not balance`);
  }
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  for (const kind of ['repo', 'web', 'edit', 'text', 'fim', 'sr', 'trajectory']) assert.ok(report.by_kind[kind]?.documents > 0, `no ${kind} documents`);
  assert.ok(report.masked_fraction > 0 && report.masked_fraction < 0.5, `masked fraction ${report.masked_fraction}`);
  assert.equal(report.packing.fragmentation_rate, 0);
  // every document the stages made went into the packer
  const prepared = Object.entries(m.stages).filter(([k]) => k !== 'mask' && !k.includes('.')).reduce((n, [, s]) => n + (s as { ledger: { records_out: number } }).ledger.records_out, 0);
  assert.ok(m.ledger.records_in >= 1 && m.ledger.records_in <= prepared + 1000);
  assert.equal(existsSync(join(out, '.run')), false, 'work folder removed after success');
});

test('run: killed with SIGKILL in each step, rerun, ends with the same bytes as an uninterrupted run', slow, () => {
  const dir = tmp();
  const ref = join(dir, 'ref');
  assert.equal(midpack(['run', exampleConfig(dir, ref), '--no-progress', '--workers', '1']).status, 0);
  const expected = hashTree(ref);
  // A fresh run killed while writing (everything before it done in one process), then one run
  // killed in each step in turn (preparing, tokenizing, writing), each rerun resuming the one before.
  for (const plan of [['bins:5'], ['docs:10', 'chunks:2', 'bins:20']]) {
    const out = join(dir, `killed-${plan.join('-')}`);
    const cfg = exampleConfig(join(dir), out);
    for (const fault of plan) {
      const k = midpack(['run', cfg, '--no-progress', '--workers', '1'], { env: { MIDPACK_FAULT: fault } });
      assert.equal(k.status, null, `not killed at ${fault}: ${k.stderr.slice(-500)}`);
    }
    const r = midpack(['run', cfg, '--no-progress', '--workers', '2']);
    assert.equal(r.status, 0, r.stderr);
    if (plan.some((p) => !p.startsWith('docs'))) assert.match(r.stderr, /reusing the prepared documents/);
    assert.deepEqual(hashTree(out), expected, `killed at ${plan.join(', ')}`);
  }
});

/** Mounts a tmpfs (root only); undefined where mounting is not allowed. */
function tmpfs(dir: string, opts: string): string | undefined {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', dir], { encoding: 'utf8' });
  return r.status === 0 ? dir : undefined;
}

test('pack: a full disk or a read-only output gives a clear error and no shard under a final name', slow, (t) => {
  const dir = tmp();
  const full = tmpfs(join(dir, 'full'), 'size=2m');
  if (!full) {
    t.skip('cannot mount a tmpfs here (needs root): the full-disk case is not run');
    return;
  }
  try {
    const r = midpack(['pack', join(samples, 'docs'), '--out', join(full, 'out'), '--seq-len', '8192', '--no-progress', '--workers', '1']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /midpack: error: .*(ENOSPC|no space left)/i);
    const shards = join(full, 'out', 'shards');
    const named = existsSync(shards) ? readdirSync(shards).filter((f) => /^part-\d+\.arrow$/.test(f)) : [];
    // a shard under its final name must be complete: its bytes equal the same shard of a run with room
    const roomy = join(dir, 'roomy');
    assert.equal(midpack(['pack', join(samples, 'docs'), '--out', roomy, '--seq-len', '8192', '--no-progress', '--workers', '1']).status, 0);
    const good = hashTree(join(roomy, 'shards'));
    const got = existsSync(shards) ? hashTree(shards) : {};
    for (const f of named) assert.equal(got[f], good[f], `${f} is named complete but differs from a complete run`);
    assert.equal(existsSync(join(full, 'out', 'manifest.json')), false);
  } finally {
    spawnSync('umount', [full]);
  }
  const ro = tmpfs(join(dir, 'ro'), 'ro,size=1m');
  if (ro) {
    try {
      const r = midpack(['pack', join(samples, 'docs'), '--out', join(ro, 'out'), '--no-progress']);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /midpack: error: cannot write the output folder .*\/ro\/out/);
    } finally {
      spawnSync('umount', [ro]);
    }
  }
});

test('run: the same config and data in two different folders give the same bytes', slow, () => {
  const hashes = ['a', join('b', 'deeper', 'c')].map((sub) => {
    const root = join(tmp(), sub);
    mkdirSync(join(root, 'examples'), { recursive: true });
    cpSync(join(repoRoot, 'data-samples'), join(root, 'data-samples'), { recursive: true });
    const cfg = YAML.parse(readFileSync(join(repoRoot, 'examples', 'pipeline.yaml'), 'utf8'));
    cfg.pack = { ...cfg.pack, seqLen: 32768 };
    writeFileSync(join(root, 'examples', 'pipeline.yaml'), YAML.stringify(cfg));
    const r = midpack(['run', join(root, 'examples', 'pipeline.yaml'), '--no-progress']);
    assert.equal(r.status, 0, r.stderr);
    return hashTree(join(root, 'out', 'demo'));
  });
  assert.ok(Object.keys(hashes[0]!).length > 8);
  assert.deepEqual(hashes[1], hashes[0]);
});
