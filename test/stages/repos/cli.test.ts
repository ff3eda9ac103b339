import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { register } from '../../../src/cli/commands/serialize-repos.js';
import { tempDir } from './helpers.js';

async function cli(...args: string[]): Promise<number> {
  const program = new Command().exitOverride();
  register(program);
  const before = process.exitCode;
  process.exitCode = undefined;
  await program.parseAsync(['node', 'midpack', 'serialize-repos', ...args]);
  const code = Number(process.exitCode ?? 0);
  process.exitCode = before;
  return code;
}

test('midpack serialize-repos writes JSONL documents and OUT.manifest.json with the balanced ledger and stats', async () => {
  const out = join(tempDir(), 'repos.jsonl');
  const code = await cli('node_modules/p-limit', 'test/fixtures/repos/rows-zstd.parquet', '--out', out, '--order', 'dependency=1', '--seed', '3', '--quiet');
  assert.equal(code, 0);
  const docs = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(docs.map((d) => d.meta.repo), ['p-limit', 'octo/alpha', 'octo/beta']);
  assert.ok(docs.every((d) => d.kind === 'repo' && d.meta.ordering === 'dependency' && d.special_spans.length === d.meta.files + 1));
  const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'));
  assert.equal(manifest.stage, 'serialize-repos');
  const { ledger } = manifest;
  assert.equal(ledger.records_in, ledger.records_out + Object.values(ledger.dropped as Record<string, number>).reduce((s, n) => s + n, 0));
  assert.equal(ledger.dropped.invalid_utf8, 1);
  assert.equal(ledger.produced.repos, 3);
  assert.equal(manifest.stats.serialize_repos.by_ordering.dependency.documents, 3);
});

test('bad options and inputs give one clear error and exit code 1', async () => {
  const out = join(tempDir(), 'x.jsonl');
  const write = process.stderr.write;
  const errors: string[] = [];
  process.stderr.write = ((s: string) => (errors.push(String(s)), true)) as typeof process.stderr.write;
  try {
    assert.equal(await cli('node_modules/p-limit', '--out', out, '--order', 'size=1'), 1);
    assert.equal(await cli('no/such/folder', '--out', out), 1);
    assert.equal(await cli('package.json', '--out', out), 1);
  } finally {
    process.stderr.write = write;
  }
  assert.match(errors.join(''), /--order: "size" is not one of alpha, dependency, random, got "size=1"/);
  assert.match(errors.join(''), /input not found: no\/such\/folder/);
  assert.match(errors.join(''), /package\.json: not a folder, a \.jsonl/);
});
