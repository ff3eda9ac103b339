import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeGitIndex, type IndexEntry } from '../../../src/stages/edits/git-index.js';
import { g, initRepo, write } from './helpers.js';

test('writeGitIndex writes the bytes git update-index --index-info writes for the same entries', () => {
  const root = mkdtempSync(join(tmpdir(), 'midpack-git-index-'));
  try {
    const dir = initRepo(root);
    write(dir, 'a.txt', 'a\n');
    write(dir, 'sp ace/ünï códe.py', 'def a():\n    return 1\n');
    write(dir, 'run.sh', '#!/bin/sh\n');
    write(dir, `deep/${'x'.repeat(190)}`, 'a long path\n');
    g(dir, 'add', '.');
    g(dir, 'update-index', '--chmod=+x', 'run.sh');
    g(dir, 'commit', '-qm', 'Initial');
    const files = g(dir, 'ls-tree', '-r', '-z', 'HEAD').split('\0').filter(Boolean);
    const blobs = files.map((line) => {
      const tab = line.indexOf('\t');
      const [mode, , sha] = line.slice(0, tab).split(' ');
      return { mode: mode!, sha: sha!, path: line.slice(tab + 1) };
    });
    // Numbered folders as gitApplyCheck places samples (10 sorts before 2), out of order, one path twice (the last kept).
    const entries: IndexEntry[] = [...blobs.map((b) => ({ ...b, path: `2/${b.path}` })), ...blobs.map((b) => ({ ...b, path: `10/${b.path}` })).reverse(), { ...blobs[0]!, path: '2/a.txt' }];
    writeGitIndex(join(root, 'mine'), entries, 20);
    const info = entries.map((e) => `${e.mode} ${e.sha}\t${e.path}\0`).join('');
    execFileSync('git', ['-C', dir, 'update-index', '-z', '--index-info'], { input: info, env: { ...process.env, GIT_INDEX_FILE: join(root, 'git') } });
    assert.deepEqual(readFileSync(join(root, 'mine')), readFileSync(join(root, 'git')));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
