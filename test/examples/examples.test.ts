import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import YAML from 'yaml';
import { repoRoot } from '../helpers/paths.js';
import { midpack } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

const hasPython = (modules: string) => spawnSync('python3', ['-c', `import ${modules}`]).status === 0;

test('the shipped examples run on a pack output: midpack_dataset.py with the manifest pad id, hf_load.py', slow, (t) => {
  const out = join(mkdtempSync(join(tmpdir(), 'midpack-examples-')), 'out');
  const r = midpack(['pack', join(repoRoot, 'data-samples/docs'), '--out', out, '--seq-len', '16384', '--workers', '1', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  const padId = manifest.tokenizer.pad_id as number;
  assert.notEqual(padId, 0, 'the Qwen3 pad id is not 0, so reading it from the manifest matters');

  if (!hasPython('numpy')) t.diagnostic('python3 has no numpy: examples/megatron/midpack_dataset.py is not run');
  else {
    // The last bin ends with padding: its last label is the pad id.
    const last = String(manifest.counts.bins - 1);
    const m = spawnSync('python3', [join(repoRoot, 'examples/megatron/midpack_dataset.py'), join(out, 'megatron'), 'midpack', last], { encoding: 'utf8' });
    assert.equal(m.status, 0, m.stderr);
    assert.match(m.stdout, new RegExp(`^${manifest.counts.bins} samples of 16384 tokens; pad id ${padId} \\(from manifest\\.json\\); sample ${last}:`, 'm'));
    assert.match(m.stdout, new RegExp(`^  last label: ${padId}$`, 'm'));
  }

  if (!hasPython('datasets')) t.diagnostic('python3 has no datasets: examples/hf_load.py is not run');
  else {
    const h = spawnSync('python3', [join(repoRoot, 'examples/hf_load.py'), join(out, 'shards')], { encoding: 'utf8' });
    assert.equal(h.status, 0, h.stderr);
    assert.match(h.stdout, /^bin 0: 16384 tokens, \d+ of them documents, \d+ trained on$/m);
    assert.match(h.stdout, /^input_ids batch shape: \(\d, 16384\)$/m);
    assert.match(h.stdout, new RegExp(`^first shard rows: ${Math.min(manifest.counts.bins, 256)}$`, 'm'));
  }

  // hf_load.py's default is the folder the demo writes.
  const demoOut = resolve(repoRoot, 'examples', YAML.parse(readFileSync(join(repoRoot, 'examples/pipeline.yaml'), 'utf8')).out);
  const script = readFileSync(join(repoRoot, 'examples/hf_load.py'), 'utf8');
  assert.ok(script.includes('os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "out", "demo", "shards")'));
  assert.equal(demoOut, join(repoRoot, 'out', 'demo'));
});
