import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cliPath, midpack } from '../helpers/run-cli.js';
import { repoRoot } from '../helpers/paths.js';
import { slow } from '../helpers/tiers.js';

/** Stack-v2 style rows of real source: every .js file of a few installed packages. */
function rowsFile(dir: string): string {
  const rows: string[] = [];
  for (const pkg of ['typescript', 'apache-arrow', 'yaml', 'commander']) {
    const root = join(repoRoot, 'node_modules', pkg);
    for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (!e.isFile() || !e.name.endsWith('.js')) continue;
      const abs = join(e.parentPath, e.name);
      rows.push(JSON.stringify({ repo_name: pkg, path: abs.slice(root.length + 1), content: readFileSync(abs, 'utf8') }));
    }
  }
  const file = join(dir, 'rows.jsonl');
  writeFileSync(file, rows.join('\n') + '\n');
  return file;
}

test('after a kill, a rerun removes the OUT.tmp-PID files and marked spill folders of the dead run, and nothing else', slow, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-stale-'));
  const rows = rowsFile(dir);
  const work = join(dir, 'work');
  const outDir = join(dir, 'out');
  mkdirSync(work);
  mkdirSync(outDir);
  const out = join(outDir, 'repos.jsonl');
  const args = ['serialize-repos', rows, '--out', out, '--group-memory-bytes', '100000', '--work-dir', work, '--quiet'];
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: 'ignore' });
  const spills = () => readdirSync(work).filter((n) => n.startsWith('midpack-repos-'));
  const temps = () => readdirSync(outDir).filter((n) => n.startsWith('repos.jsonl.tmp-'));
  // Killed once its spill folder carries its whole marker: a kill between creating the folder and
  // marking it leaves a folder no run can prove its own, which stays (the unmarked case below).
  const marked = () =>
    spills().some((n) => {
      try {
        return JSON.parse(readFileSync(join(work, n, '.midpack-spill'), 'utf8')).pid > 0;
      } catch {
        return false;
      }
    });
  for (let t = 0; t < 600 && (!marked() || temps().length === 0); t++) await sleep(25);
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  const deadPid = child.pid!;
  assert.deepEqual(temps(), [`repos.jsonl.tmp-${deadPid}`], 'the kill left its temporary output');
  assert.equal(spills().length, 1, 'and its spill folder');
  assert.ok(spills()[0]!.startsWith(`midpack-repos-${deadPid}-`));
  // Files that look alike but that midpack cannot prove its own (or whose writer is alive).
  const keep = [
    join(outDir, `repos.jsonl.tmp-${process.pid}`), // a live process
    join(outDir, 'repos.jsonl.tmp-notes'),
    join(outDir, `other.jsonl.tmp-${deadPid}`), // not this run's output
  ];
  for (const f of keep) writeFileSync(f, 'user data\n');
  mkdirSync(join(work, `midpack-repos-${deadPid}-abcdef`)); // no marker
  writeFileSync(join(work, `midpack-repos-${deadPid}-abcdef`, 'x'), 'user data\n');

  const r = midpack(args);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(out) && readFileSync(out, 'utf8').split('\n').filter(Boolean).length === 4);
  assert.deepEqual(temps().sort(), [`repos.jsonl.tmp-${process.pid}`, 'repos.jsonl.tmp-notes']);
  for (const f of keep) assert.equal(readFileSync(f, 'utf8'), 'user data\n');
  assert.deepEqual(spills(), [`midpack-repos-${deadPid}-abcdef`], 'the marked spill folder is gone, the unmarked one stays');
});
