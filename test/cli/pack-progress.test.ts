import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { midpack } from '../helpers/run-cli.js';
import { repoRoot } from '../helpers/paths.js';

// Real files as documents in plain JSONL, whose bytes are counted line by line as they are read.
test('pack, not on a terminal: one progress line per phase, each at 100% of a known total (input bytes, passes, bins)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-progress-'));
  const files = ['commander/lib/command.js', 'commander/Readme.md', 'yaml/dist/parse/lexer.js', 'p-limit/index.js'];
  const input = join(dir, 'docs.jsonl');
  writeFileSync(input, files.map((f, i) => JSON.stringify({ id: `d${i}`, text: readFileSync(join(repoRoot, 'node_modules', f), 'utf8') })).join('\n') + '\n');
  const r = midpack(['pack', input, '--out', join(dir, 'out'), '--seq-len', '2048', '--workers', '1', '--pass-units', '4']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('midpack: pack: '));
  const size = statSync(input).size;
  const kb = (size / 1000).toFixed(1);
  const tokenize = lines.filter((l) => l.includes('read + tokenize'));
  assert.equal(tokenize.length, 1, r.stderr);
  assert.match(tokenize[0]!, new RegExp(`read \\+ tokenize 100% ${kb}k/${kb}k bytes, .* done$`));
  const plan = lines.filter((l) => l.includes(': plan '));
  assert.equal(plan.length, 1, r.stderr);
  const [, done, total] = /plan 100% (\d+)\/(\d+) passes/.exec(plan[0]!) ?? [];
  assert.ok(Number(total) > 2 && done === total, `several planning passes, all done: ${plan[0]}`);
  const write = lines.filter((l) => l.includes(': write '));
  assert.equal(write.length, 1, r.stderr);
  assert.match(write[0]!, /write 100% (\d+)\/\1 bins, .* done$/);
});
