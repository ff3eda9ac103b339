import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { repoRoot } from '../helpers/paths.js';
import { midpack } from '../helpers/run-cli.js';

/**
 * The prepare step's sources in worker threads (src/job/prepare-pool.ts): on the example mix over
 * data-samples (real repositories with FIM, web pages, history, documents, trajectories), the
 * prepared documents, the segment counts and every stage's ledger and figures are the same bytes
 * on 1 worker (every source on the main thread), 2 (two prepare workers beside the main thread)
 * and 4 (more than the machine's cores), and a source that fails in a worker fails the run.
 */
const tmp = () => mkdtempSync(join(tmpdir(), 'midpack-prepare-pool-'));

function exampleConfig(dir: string, name: string, edit?: (cfg: { sources: { name: string; type: string; inputs: string[] }[] }) => void): string {
  const cfg = YAML.parse(readFileSync(join(repoRoot, 'examples', 'pipeline.yaml'), 'utf8'));
  cfg.out = join(dir, name);
  for (const s of cfg.sources) s.inputs = s.inputs.map((p: string) => join(repoRoot, 'examples', p));
  edit?.(cfg);
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, YAML.stringify(cfg));
  return path;
}

/** What the prepare step leaves in OUT/.run: documents, counts, and prepared.json without its measured times. */
function prepared(out: string): { docs: string; counts: Buffer; stages: unknown; documents: number; times: Record<string, { documents: number; wall_s: number; cpu_s: number }> } {
  const run = join(out, '.run');
  const p = JSON.parse(readFileSync(join(run, 'prepared.json'), 'utf8'));
  return { docs: readFileSync(join(run, 'docs.jsonl'), 'utf8'), counts: readFileSync(join(run, p.counts)), stages: p.stages, documents: p.documents, times: p.stage_times };
}

test('run --phase prepare: the same documents, counts, ledgers and figures on 1, 2 and 4 workers', () => {
  const dir = tmp();
  const results = [1, 2, 4].map((w) => {
    const r = midpack(['run', exampleConfig(dir, `w${w}`), '--phase', 'prepare', '--workers', String(w), '--no-progress', '--force-workers']);
    assert.equal(r.status, 0, r.stderr);
    // Every source's stage times came back from wherever it ran, with what it yielded.
    const p = prepared(join(dir, `w${w}`));
    for (const s of ['repos', 'repos.fim', 'web', 'history', 'docs', 'trajectories']) assert.ok(p.times[s]!.documents > 0 && p.times[s]!.wall_s >= 0 && p.times[s]!.cpu_s >= 0, `${s} on ${w} workers`);
    // On the main thread the parts add up: the stages, the writes and the counting, each measured, are the
    // phase, but for setting up each source and passing documents between generators (a few % under load;
    // 6% was seen once at load 16 on two cores, while the history read ahead on the event loop).
    if (w === 1) {
      const own = Object.keys(p.stages as object).reduce((n, k) => n + p.times[k]!.wall_s, 0) + p.times['prepare.write']!.wall_s + p.times['mask.count']!.wall_s;
      const phase = p.times.prepare!.wall_s;
      assert.ok(own <= phase + 0.01 && phase - own < 0.1 + 0.05 * phase, `stages, writes and counting ${own} s against the prepare phase ${phase} s`);
    }
    // The last stage of each source yields the prepared documents.
    assert.equal(['repos.fim', 'web', 'history', 'docs', 'trajectories'].reduce((n, s) => n + p.times[s]!.documents, 0), p.documents);
    return p;
  });
  const one = results[0]!;
  assert.ok(one.documents > 100, `${one.documents} documents`);
  assert.equal(one.docs.trim().split('\n').length, one.documents);
  for (const [i, other] of results.slice(1).entries()) {
    assert.equal(other.docs, one.docs, `documents on ${[2, 4][i]} workers`);
    assert.ok(other.counts.equals(one.counts), `counts on ${[2, 4][i]} workers`);
    assert.deepEqual(other.stages, one.stages);
  }
  // No part file is left behind.
  for (const w of [2, 4]) assert.equal(existsSync(join(dir, `w${w}`, '.run', 'tmp')), false);
});

test('run: a source that fails in a prepare worker fails the run with its message, and leaves no prepared documents', () => {
  const dir = tmp();
  const notARepo = join(dir, 'not-a-repo');
  mkdirSync(notARepo);
  const cfg = exampleConfig(dir, 'out', (c) => {
    c.sources.find((s) => s.type === 'edits')!.inputs = [notARepo];
  });
  const r = midpack(['run', cfg, '--workers', '3', '--no-progress', '--force-workers']);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`^midpack: error: ${notARepo}: a folder that is not a git repository`, 'm'));
  assert.equal(existsSync(join(dir, 'out', '.run', 'docs.jsonl')), false);
  assert.equal(existsSync(join(dir, 'out', '.run', 'prepared.json')), false);
});

test('run: a history prepared in pieces (pieceCommits) gives the documents and ledgers of the whole history, on 1 and 2 workers', () => {
  const dir = tmp();
  const histories = [join(repoRoot, 'data-samples', 'history', 'midpack-web.bundle'), join(repoRoot, 'data-samples', 'history', 'p-limit.bundle')];
  const config = (name: string, pieceCommits: number) =>
    exampleConfig(dir, name, (c) => {
      c.sources = c.sources.filter((s) => s.type === 'edits');
      Object.assign(c.sources[0]!, { inputs: histories, options: { ...(c.sources[0] as { options?: object }).options, pieceCommits } });
    });
  const runs = [
    ['whole', 1000, 1],
    ['pieces-1', 7, 1],
    ['pieces-2', 7, 2],
  ] as const;
  const results = runs.map(([name, pieceCommits, w]) => {
    const r = midpack(['run', config(name, pieceCommits), '--phase', 'prepare', '--workers', String(w), '--no-progress', '--force-workers']);
    assert.equal(r.status, 0, r.stderr);
    return prepared(join(dir, name));
  });
  const [whole, ...pieces] = results as [ReturnType<typeof prepared>, ...ReturnType<typeof prepared>[]];
  assert.ok(whole.documents > 40, `${whole.documents} documents`);
  const ledger = (p: ReturnType<typeof prepared>) => (p.stages as Record<string, { ledger: unknown }>).history!.ledger;
  for (const [i, p] of pieces.entries()) {
    assert.equal(p.docs, whole.docs, `${runs[i + 1]![0]}: the documents of the whole history`);
    assert.ok(p.counts.equals(whole.counts), `${runs[i + 1]![0]}: the counts`);
    assert.deepEqual(ledger(p), ledger(whole), `${runs[i + 1]![0]}: the commits' ledger`);
  }
  assert.deepEqual(pieces[1]!.stages, pieces[0]!.stages, 'the same figures on 1 and 2 workers');
  // midpack-web's 40 commits in 6 pieces of at most 7, p-limit's 12 in 2: the figures count every commit once.
  assert.equal((ledger(whole) as { records_in: number }).records_in, 52);
});
