import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { parseRepoDocument } from '../../../src/stages/repos/index.js';
import { serialize, tempDir } from './helpers.js';
import { slow } from '../../helpers/tiers.js';

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', '-C', dir, ...args], { encoding: 'utf8' });

/** A git checkout of a real package (its files committed at HEAD). */
function realRepo(dir: string, pkg: string): void {
  cpSync(join('node_modules', pkg), dir, { recursive: true });
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'import');
}

const filesOnDisk = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile() && !join(e.parentPath, e.name).includes(`${dir}/.git`)).length;

test('a corrupt tree object and a .git file pointing nowhere fail their repository alone, every file counted by reason', slow, async () => {
  const root = tempDir();
  realRepo(join(root, 'a-good'), 'p-limit');
  realRepo(join(root, 'b-corrupt'), 'yaml');
  // Corrupt the loose tree object of dist/ (git writes objects read-only).
  const tree = git(join(root, 'b-corrupt'), 'rev-parse', 'HEAD:dist').trim();
  const obj = join(root, 'b-corrupt', '.git', 'objects', tree.slice(0, 2), tree.slice(2));
  chmodSync(obj, 0o644);
  writeFileSync(obj, Buffer.from('this is not a zlib stream'));
  cpSync('node_modules/fzstd', join(root, 'c-nowhere'), { recursive: true });
  writeFileSync(join(root, 'c-nowhere', '.git'), 'gitdir: /nonexistent/midpack-test/.git/worktrees/x\n');
  realRepo(join(root, 'd-good'), 'commander');

  const { docs, ctx } = await serialize([root], { layout: 'collection' });
  assert.deepEqual(docs.map((d) => d.meta.repo), ['a-good', 'd-good'], 'the good repositories are serialized');
  for (const d of docs) assert.ok(parseRepoDocument(d).files.length > 1);
  const ledger = ctx.ledger.toJSON();
  const expected = filesOnDisk(join(root, 'b-corrupt')) + filesOnDisk(join(root, 'c-nowhere')); // the .git file of c-nowhere is not a repository file
  assert.equal(ledger.dropped.git_error, expected, JSON.stringify(ledger.dropped));
  const messages = ledger.examples.git_error!.join('\n');
  assert.match(messages, /b-corrupt/);
  assert.ok(ctx.ledger.balanced());
  // The folder pointing nowhere is named too, not reported as "no files".
  const { ctx: alone } = await serialize([join(root, 'c-nowhere')]);
  assert.equal(alone.ledger.toJSON().dropped.git_error, filesOnDisk(join(root, 'c-nowhere')));
  assert.match(alone.ledger.toJSON().examples.git_error![0]!, /c-nowhere.*not a git repository/);
});
