import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRunConfig } from '../../../src/job/run-config.js';
import { mergeReports } from '../../../src/job/merge-report.js';
import { repoRoot } from '../../helpers/paths.js';
import { midpack } from '../../helpers/run-cli.js';
import { tmp } from './helpers.js';

const samples = join(repoRoot, 'data-samples', 'trajectories');

test('midpack run: a trajectories source goes through the same resolver and into the packed report', () => {
  const dir = tmp();
  const config = (options: string) => {
    const p = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(p, `out: ${join(dir, 'out')}\nsources:\n  - type: trajectories\n    inputs: [${samples}]\n    options: ${options}\npack: {seqLen: 2048, overlong: boundary}\n`);
    return p;
  };
  assert.throws(() => loadRunConfig(config('{lossOn: user}')), /sources\[0\]\.options: trajectories: lossOn must be one of assistant, all, last-assistant/);
  assert.throws(() => loadRunConfig(config('{templtes: hermes}')), /sources\[0\]\.options: trajectories: unknown option "templtes" \(allowed: templates, allTemplates, lossOn, maxTrajectoryBytes, requireTermination, requireValidCalls, outcomes, require, chatTemplates, bosToken, eosToken, templateKwargs, jsonArguments, tokenizer, templateMaxSteps, templateStepsRatio, templateMaxChars, templateCharsRatio, templateMaxDepth, templateTimeoutMs, turns, templateDate\)/);
  const r = midpack(['run', config('{allTemplates: true}'), '--no-progress', '--workers', '1']);
  assert.equal(r.status, 0, r.stderr);
  const manifest = JSON.parse(readFileSync(join(dir, 'out', 'manifest.json'), 'utf8'));
  const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
  assert.equal(manifest.balanced, true);
  const stage = manifest.stages.trajectories;
  assert.deepEqual(stage.ledger.dropped, {});
  assert.equal(stage.ledger.records_out, 4);
  assert.deepEqual(stage.stats.trajectories.by_format, { 'swe-agent': 2, openai: 1, sharegpt: 1 });
  assert.equal(report.by_kind.trajectory.documents, 12);
  for (const name of ['qwen3-coder', 'hermes', 'text-action']) {
    assert.equal(report.by_template[name].documents, 4);
    assert.ok(report.by_template[name].masked_fraction > 0.5);
  }
  assert.ok(report.turn_cuts.between_turns > 0, JSON.stringify(report.turn_cuts));
  // merged ranks sum the trajectory figures
  const two = mergeReports([report, report]);
  assert.equal(two.by_template!.hermes!.tokens, 2 * report.by_template.hermes.tokens);
  assert.equal(two.turn_cuts!.between_turns, 2 * report.turn_cuts.between_turns);
});
