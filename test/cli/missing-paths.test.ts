import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requirePaths } from '../../src/io/paths.js';
import { isRemote } from '../../src/io/remote.js';
import { midpack } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

/**
 * A file or folder named in an option that does not exist is a usage error, like a missing input
 * file: one line naming the option and the path, a non-zero exit, before any work, nothing
 * written. The same check serves the CLI (from the working folder) and a run config (from its own
 * folder). Before, `edits ROWS --repos /no/such/folder` exited 0 with "wrote 0 documents".
 */
const CASES: { args: (dir: string) => string[]; line: string }[] = [
  { args: (d) => ['edits', join(d, 'rows.jsonl'), '--repos', '/no/such/folder', '--out', join(d, 'out.jsonl')], line: '--repos: no such file or folder, got "/no/such/folder"' },
  { args: (d) => ['edits', join(d, 'rows.jsonl'), '--repos', d, '--exclude-instances', `${join(d, 'rows.jsonl')},/no/eval.jsonl`, '--out', join(d, 'out.jsonl')], line: '--exclude-instances: no such file or folder, got "/no/eval.jsonl"' },
  { args: (d) => ['trajectories', join(d, 'rows.jsonl'), '--outcomes', '/no/report.json', '--out', join(d, 'out.jsonl')], line: '--outcomes: no such file or folder, got "/no/report.json"' },
  { args: (d) => ['decontaminate', join(d, 'rows.jsonl'), '--benchmark', '/no/humaneval.jsonl:prompt', '--out', join(d, 'out.jsonl')], line: '--benchmark: no such file or folder, got "/no/humaneval.jsonl"' },
];

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-missing-'));
  writeFileSync(join(dir, 'rows.jsonl'), '{"instance_id": "a__b-1", "repo": "a/b", "base_commit": "0", "patch": "", "problem_statement": "x"}\n');
  return dir;
}

test('a missing folder or file named in an option: one line naming the option, exit 1, nothing written', slow, () => {
  for (const c of CASES) {
    const dir = folder();
    const r = midpack(c.args(dir));
    assert.equal(r.status, 1, c.line);
    assert.equal(r.stderr, `midpack: error: ${c.line}\n`);
    assert.deepEqual(readdirSync(dir), ['rows.jsonl'], `${c.line}: nothing written`);
  }
});

test('a run config: an option path missing from the config folder is named by its place in the config, before any work', slow, () => {
  const dir = folder();
  const cfg = join(dir, 'c.yaml');
  writeFileSync(cfg, 'out: out\nsources:\n  - type: edits\n    inputs: [rows.jsonl]\n    options: {repos: clones}\n');
  const r = midpack(['run', cfg]);
  assert.equal(r.status, 1);
  assert.equal(r.stderr, `midpack: error: ${cfg}: sources[0].options.repos: no such file or folder, got "clones"\n`);
  writeFileSync(join(dir, 'd.yaml'), 'out: out\nsources:\n  - type: documents\n    inputs: [rows.jsonl]\n    then: [{type: decontaminate, options: {benchmarks: [gone.jsonl]}}]\n');
  const d = midpack(['run', join(dir, 'd.yaml')]);
  assert.equal(d.status, 1);
  assert.match(d.stderr, /^midpack: error: .*d\.yaml: sources\[0\]\.then\[0\]\.options\.benchmarks: no such file or folder, got "gone\.jsonl"\n$/);
  assert.deepEqual(readdirSync(dir).sort(), ['c.yaml', 'd.yaml', 'rows.jsonl'], 'nothing written');
});

test('requirePaths: relative paths from the base folder; s3:// URLs left to their readers', () => {
  const dir = folder();
  requirePaths({ repos: ['rows.jsonl'] }, dir);
  assert.throws(() => requirePaths({ repos: ['rows.jsonl'] }, join(dir, 'sub')), /repos: no such file or folder, got "rows.jsonl"/);
  requirePaths({ benchmarks: ['s3://bucket/eval.jsonl'] });
  assert.equal(isRemote('s3://b/k'), true);
  assert.equal(isRemote('/s3:/b'), false);
});
