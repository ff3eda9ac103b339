import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from '../../helpers/paths.js';
import { midpack } from '../../helpers/run-cli.js';
import { chatTurns } from '../../../src/stages/fim/text.js';
import type { Doc } from '../../../src/doc/document.js';
import { slow } from '../../helpers/tiers.js';

const g = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });
const put = (dir: string, path: string, text: string) => {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
};

test('edits: diffs of files whose names hold spaces pass verification and apply with real git apply', slow, () => {
  const root = mkdtempSync(join(tmpdir(), 'midpack-edit-paths-'));
  const dir = join(root, 'proj');
  mkdirSync(dir);
  g(dir, 'init', '-q', '-b', 'main');
  const option = readFileSync(join(repoRoot, 'node_modules/commander/lib/option.js'), 'utf8');
  const argument = readFileSync(join(repoRoot, 'node_modules/commander/lib/argument.js'), 'utf8');
  put(dir, 'sp ace.py', 'def a():\n    return 1\n\n\ndef b():\n    return 1\n');
  put(dir, 'lib dir/opt ion.js', option);
  put(dir, 'old name.js', argument);
  g(dir, 'add', '.');
  g(dir, 'commit', '-qm', 'Import');
  put(dir, 'sp ace.py', 'def a():\n    return 1\n\n\ndef b():\n    return 2\n');
  put(dir, 'lib dir/opt ion.js', option.replace('class Option {', 'class Option {\n  // edited'));
  g(dir, 'commit', '-qam', 'Edit files with spaces in their names');
  g(dir, 'mv', 'old name.js', 'new name.js');
  put(dir, 'new name.js', argument.replace('class Argument {', 'class Argument {\n  // renamed'));
  g(dir, 'add', '-A');
  g(dir, 'commit', '-qm', 'Rename a file with a space');
  const out = join(root, 'edits.jsonl');
  const r = midpack(['edits', dir, '--out', out, '--formats', 'diff', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'));
  assert.deepEqual(manifest.stats.edits.failed, {}, 'no diff failed verification');
  const docs = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Doc);
  assert.equal(docs.length, 3);
  for (const d of docs) {
    const commit = d.meta.commit as string;
    const [, , answer] = chatTurns(d);
    const reply = d.text.slice(answer!.start, answer!.end);
    const parent = g(dir, 'rev-list', '--parents', '-n', '1', commit).trim().split(' ')[1];
    const work = join(root, `w-${commit.slice(0, 8)}`);
    mkdirSync(work);
    if (parent) for (const p of g(dir, 'ls-tree', '-r', '--name-only', '-z', parent).split('\0').filter(Boolean)) put(work, p, g(dir, 'show', `${parent}:${p}`));
    writeFileSync(join(root, 'p.diff'), reply);
    const a = spawnSync('git', ['apply', join(root, 'p.diff')], { cwd: work, encoding: 'utf8', env: { ...process.env, GIT_CEILING_DIRECTORIES: root } });
    assert.equal(a.status, 0, `${commit}: ${a.stderr}\n${reply}`);
    for (const p of d.meta.files as string[]) {
      const want = spawnSync('git', ['show', `${commit}:${p}`], { cwd: dir, encoding: 'utf8' });
      if (want.status === 0) assert.equal(readFileSync(join(work, p), 'utf8'), want.stdout, `${commit}: ${p}`);
    }
  }
});
