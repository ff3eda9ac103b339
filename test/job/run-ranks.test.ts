import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { repoRoot } from '../helpers/paths.js';
import { midpack } from '../helpers/run-cli.js';
import { readRows, documentsOf } from '../helpers/shard-rows.js';
import { slow } from '../helpers/tiers.js';

/**
 * The whole two-phase masked pipeline over three ranks, each a separate process with the Slurm
 * variables set: prepare, merge the segment counts, pack with the merged counts, merge the ranks.
 * The merged output holds exactly the documents, tokens and loss masks of a one-rank run.
 */
test('run over 3 ranks (hand-set Slurm variables, no scheduler) + merge equals a 1-rank run, document for document', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-ranks-'));
  const cfg = YAML.parse(readFileSync(join(repoRoot, 'examples', 'pipeline.yaml'), 'utf8'));
  for (const s of cfg.sources) s.inputs = s.inputs.map((p: string) => join(repoRoot, 'examples', p));
  cfg.pack = { ...cfg.pack, seqLen: 16384 };
  const write = (out: string) => {
    const path = join(dir, `${out}.yaml`);
    writeFileSync(path, YAML.stringify({ ...cfg, out: join(dir, out) }));
    return path;
  };
  const single = write('single');
  assert.equal(midpack(['run', single, '--no-progress']).status, 0);

  const multi = write('multi');
  const slurm = (r: number) => ({ SLURM_ARRAY_TASK_ID: String(r), SLURM_ARRAY_TASK_COUNT: '3' });
  for (const r of [0, 1, 2]) {
    const p = midpack(['run', multi, '--phase', 'prepare', '--no-progress'], { env: slurm(r) });
    assert.equal(p.status, 0, p.stderr);
  }
  const counts = join(dir, 'counts.bin');
  const rankDirs = readdirSync(join(dir, 'multi')).filter((d) => d.startsWith('rank-')).sort().map((d) => join(dir, 'multi', d));
  assert.deepEqual(rankDirs.map((d) => d.slice(-10)), ['rank-00000', 'rank-00001', 'rank-00002']);
  const rankCounts = rankDirs.map((d) => join(d, '.run', 'mask-counts.bin'));
  // A rank missing from the counts: refused at the merge, naming it; merged anyway on request,
  // those counts are refused by the rank they lack.
  const partial = join(dir, 'partial.bin');
  const refused = midpack(['mask', 'merge', rankCounts[0]!, rankCounts[2]!, '--out', partial]);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /mask merge: missing rank 1 of 0\.\.2/);
  assert.equal(midpack(['mask', 'merge', rankCounts[0]!, rankCounts[2]!, '--out', partial, '--allow-missing-ranks']).status, 0);
  const lacking = midpack(['run', multi, '--phase', 'pack', '--counts', partial, '--no-progress'], { env: slurm(1) });
  assert.equal(lacking.status, 1);
  assert.match(lacking.stderr, /ranks 0, 2 of 3 do not include this rank \(1\)/);
  assert.equal(midpack(['mask', 'merge', ...rankCounts, '--out', counts]).status, 0);
  for (const r of [0, 1, 2]) {
    const p = midpack(['run', multi, '--phase', 'pack', '--counts', counts, '--no-progress'], { env: slurm(r) });
    assert.equal(p.status, 0, p.stderr);
  }
  const merged = join(dir, 'merged');
  const m = midpack(['merge', ...rankDirs, '--out', merged]);
  assert.equal(m.status, 0, m.stderr);

  const manifest = JSON.parse(readFileSync(join(merged, 'manifest.json'), 'utf8'));
  const one = JSON.parse(readFileSync(join(dir, 'single', 'manifest.json'), 'utf8'));
  assert.equal(manifest.balanced, true);
  assert.equal(manifest.ledger.records_in, one.ledger.records_in);
  assert.equal(manifest.counts.tokens, one.counts.tokens);
  assert.equal(manifest.counts.masked_tokens, one.counts.masked_tokens);

  const a = documentsOf(readRows(join(dir, 'single')));
  const b = documentsOf(readRows(merged));
  assert.equal(b.size, a.size);
  assert.ok(a.size > 100);
  for (const [id, doc] of a) {
    const other = b.get(id);
    assert.ok(other, `document ${id} is missing from the merged ranks`);
    assert.deepEqual(other.ids, doc.ids, `tokens of ${id}`);
    assert.deepEqual(other.mask, doc.mask, `loss mask of ${id}`);
  }
  // every unit appears exactly once across the merged bins
  const units = readRows(merged).flatMap((r) => r.docIds.map((id, u) => `${id}@${r.offsets[u]}`));
  assert.equal(new Set(units).size, units.length);
});
