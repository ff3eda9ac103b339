import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { parseRunConfig } from '../../src/job/run-config.js';
import { DEFAULT_RUN_MEMORY_MB, withMemoryBudget } from '../../src/job/memory-budget.js';
import { DEFAULT_PASS_UNITS } from '../../src/pack/planner.js';
import { repoRoot } from '../helpers/paths.js';
import { hashTree, midpack } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

const config = (extra: Record<string, unknown> = {}) =>
  parseRunConfig({ sources: [{ type: 'edits', inputs: ['h.bundle'] }, { type: 'documents', inputs: ['d.jsonl'] }], mask: { minDocs: 4 }, ...extra }, 'test.yaml');

test('the memory budget gives its shares to the mask table, the context caches and a planning pass, unless the config sets them', () => {
  const d = withMemoryBudget(config());
  assert.equal(d.memoryMb, DEFAULT_RUN_MEMORY_MB);
  assert.equal(d.mask!.memoryMb, 256);
  assert.equal(d.sources[0]!.options.contextCacheMb, 128);
  assert.equal(d.sources[1]!.options.contextCacheMb, undefined, 'only edits sources have context caches');
  assert.equal(d.pack.passUnits, DEFAULT_PASS_UNITS, 'the default budget gives the default planning pass');
  const small = withMemoryBudget(config({ memoryMb: 256 }));
  assert.deepEqual([small.mask!.memoryMb, small.sources[0]!.options.contextCacheMb, small.pack.passUnits], [64, 32, Math.floor((64 * 2 ** 20) / 60)]);
  const set = withMemoryBudget(config({ mask: { minDocs: 4, memoryMb: 700 }, pack: { passUnits: 5000 } }), 256);
  assert.deepEqual([set.mask!.memoryMb, set.pack.passUnits], [700, 5000], "the config's own settings win");
  // Tokenizing beside preparing: the tokenizer workers share the prepare phase, its two shares halved; planning's unchanged.
  const beside = withMemoryBudget(config(), undefined, true);
  assert.deepEqual([beside.mask!.memoryMb, beside.sources[0]!.options.contextCacheMb, beside.pack.passUnits], [128, 64, DEFAULT_PASS_UNITS]);
  assert.throws(() => config({ memoryMb: 10 }), /memoryMb: must be an integer >= 64, got 10/);
});

test('run: a small memory budget gives the same shards and Megatron files as the default', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-budget-'));
  try {
    const cfg = YAML.parse(readFileSync(join(repoRoot, 'examples', 'pipeline.yaml'), 'utf8'));
    for (const s of cfg.sources) s.inputs = s.inputs.map((p: string) => join(repoRoot, 'examples', p));
    cfg.pack = { ...cfg.pack, seqLen: 16384, rowsPerShard: 8 };
    const outputs = ['default', 'small'].map((name) => {
      const path = join(dir, `${name}.yaml`);
      writeFileSync(path, YAML.stringify({ ...cfg, out: join(dir, name) }));
      const r = midpack(['run', path, '--workers', '2', '--no-progress', ...(name === 'small' ? ['--memory-mb', '64'] : [])]);
      assert.equal(r.status, 0, r.stderr);
      const manifest = JSON.parse(readFileSync(join(dir, name, 'manifest.json'), 'utf8')) as { config: { pass_units: number } };
      return { files: hashTree(join(dir, name), (rel) => /^(manifest|report)\./.test(rel)), passUnits: manifest.config.pass_units };
    });
    assert.ok(Object.keys(outputs[0]!.files).some((f) => f.startsWith('megatron/')));
    assert.deepEqual(outputs[1]!.files, outputs[0]!.files);
    assert.deepEqual([outputs[0]!.passUnits, outputs[1]!.passUnits], [DEFAULT_PASS_UNITS, Math.floor((16 * 2 ** 20) / 60)], 'the budget reached the planner');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
