import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { repoRoot } from '../helpers/paths.js';
import { midpack, hashTree } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

/**
 * `midpack run` tokenizes while it prepares (no mixture): its output must be the bytes of the
 * serial path, `--phase prepare` and then a run that reuses the prepared documents (which
 * tokenizes them, masked, after preparing). On the example mix over data-samples, with a source
 * of documents that exercise the masks placed after tokenizing: characters split between tokens
 * (an emoji, CJK), NFC clusters, a document's own loss_mask_spans beside masking's, and documents
 * that are dropped before (empty, lone surrogate) and while tokenizing (a bad special span), which
 * the pass that places the masks must skip.
 */
const tmp = () => mkdtempSync(join(tmpdir(), 'midpack-overlap-'));

function oddDocs(dir: string): string {
  const rows = [
    { id: 'odd-1', text: 'plain start \u00e9\u0301 cafe\u0301 \u{1F600}\u{1F600} \u4e2d\u6587\u5b57 end', loss_mask_spans: [[0, 5]] },
    { id: 'odd-2', text: 'not special <x> here', special_spans: [[11, 14]] },
    { id: 'odd-3', text: '' },
    { id: 'odd-4', text: 'lone \ud800 surrogate' },
    { id: 'odd-5', text: 'Cafe\u0301 \u{1F600} line repeated\nLicense: MIT header line here\n', loss_mask_spans: [[2, 9]] },
  ];
  const path = join(dir, 'odd.jsonl');
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return path;
}

/** The example mix (and the odd documents first), a small L and chunks so there are many of both. */
function config(dir: string, out: string, mask: boolean): string {
  const cfg = YAML.parse(readFileSync(join(repoRoot, 'examples', 'pipeline.yaml'), 'utf8'));
  cfg.out = out;
  for (const s of cfg.sources) s.inputs = s.inputs.map((p: string) => join(repoRoot, 'examples', p));
  cfg.sources.unshift({ name: 'odd', type: 'documents', inputs: [oddDocs(dir)] });
  cfg.pack = { ...cfg.pack, seqLen: 16384, chunkTokens: 60000, rowsPerShard: 8 };
  if (!mask) delete cfg.mask;
  const path = join(dir, `${out.split('/').pop()}.yaml`);
  writeFileSync(path, YAML.stringify(cfg));
  return path;
}

const run = (cfg: string, workers: number, extra: string[] = [], env: Record<string, string> = {}) => midpack(['run', cfg, '--no-progress', '--workers', String(workers), '--force-workers', ...extra], { env });

/** The serial path's output: prepare, then pack the prepared documents. */
function serial(dir: string, name: string, mask: boolean, workers: number): Record<string, string> {
  const cfg = config(dir, join(dir, name), mask);
  const p = run(cfg, workers, ['--phase', 'prepare']);
  assert.equal(p.status, 0, p.stderr);
  const r = run(cfg, workers);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /reusing the prepared documents/);
  return hashTree(join(dir, name));
}

test('run: tokenizing while preparing gives the serial path\'s bytes (shards, Megatron files, report figures), 1 and 2 workers, masked and not', slow, () => {
  const dir = tmp();
  for (const mask of [true, false]) {
    const expected = serial(dir, `serial-${mask}`, mask, 2);
    for (const workers of mask ? [1, 2] : [2]) {
      const out = join(dir, `overlap-${mask}-${workers}`);
      const r = run(config(dir, out, mask), workers);
      assert.equal(r.status, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /reusing the prepared documents/);
      const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
      assert.deepEqual(Object.keys(report.peak_rss_mb), ['prepare+tokenize', ...(mask ? ['mask'] : []), 'plan', 'write']);
      const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      assert.equal(m.balanced, true);
      assert.deepEqual(m.ledger.dropped, { empty_text: 1, invalid_unicode: 1, tokenize_failed: 1 });
      if (mask) {
        // Masking's spans and the documents' own (trajectories, FIM prompts) both in the loss mask.
        assert.ok(m.stages.mask.stats.mask.masked_chars > 0 && report.by_kind.trajectory.masked_tokens > 0 && report.by_kind.text.masked_tokens > 0, 'masks placed');
        assert.equal(m.stages.mask.ledger.records_in, m.ledger.records_in, 'the mask stage saw every prepared document');
      }
      assert.deepEqual(hashTree(out), expected, `${workers} workers, mask ${mask}`);
      assert.equal(existsSync(join(out, '.run')) || existsSync(join(out, '.work')), false, 'work folders removed');
    }
  }
});

test('run: killed while tokenizing beside preparing, or while placing the masks, then rerun: the same bytes', slow, () => {
  const dir = tmp();
  const expected = serial(dir, 'serial', true, 1);
  for (const plan of [['docs:40', 'chunks:1'], ['masks:1'], ['masks:2', 'chunks:2'], ['bins:2']]) {
    const out = join(dir, `killed-${plan.join('-')}`);
    const cfg = config(dir, out, true);
    for (const fault of plan) {
      const k = run(cfg, 1, [], { MIDPACK_FAULT: fault });
      assert.equal(k.status, null, `not killed at ${fault}: ${k.stderr.slice(-500)}`);
    }
    const r = run(cfg, 2);
    assert.equal(r.status, 0, r.stderr);
    // Killed once the masks were all placed (bins:2): the rerun reuses the prepared documents and every chunk.
    if (plan[0] === 'bins:2') assert.match(r.stderr, /reusing the prepared documents[^]*resuming after \d+ complete chunks/);
    assert.deepEqual(hashTree(out), expected, `killed at ${plan.join(', ')}`);
    // A rerun of the finished output changes no byte.
    assert.equal(run(cfg, 2).status, 0);
    assert.deepEqual(hashTree(out), expected, `rerun after ${plan.join(', ')}`);
  }
});
