/**
 * Builds data-samples/history/p-limit.bundle: a real development history as a git bundle.
 * Each commit is one published release of the MIT-licensed npm package p-limit (fetched with
 * `npm pack` from the registry), committed in release order with the version as the message,
 * so `midpack edits` sees real renames, additions, deletions and code changes.
 *
 *   node dist/scripts/build-history-sample.js
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, rmSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../test/helpers/paths.js';

const PACKAGE = 'p-limit';
const VERSIONS = ['2.3.0', '3.0.0', '3.1.0', '4.0.0', '5.0.0', '6.0.0', '6.1.0', '6.2.0', '7.0.0', '7.1.0', '7.2.0', '7.3.0'];

const work = mkdtempSync(join(tmpdir(), 'midpack-history-'));
const repo = join(work, 'repo');
mkdirSync(repo);
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z' } });
git('init', '-q', '-b', 'main');
git('config', 'user.name', 'midpack');
git('config', 'user.email', 'midpack@example.invalid');
for (const v of VERSIONS) {
  const dl = join(work, `dl-${v}`);
  mkdirSync(dl);
  execFileSync('npm', ['pack', `${PACKAGE}@${v}`, '--silent'], { cwd: dl, encoding: 'utf8' });
  const tgz = readdirSync(dl).find((f) => f.endsWith('.tgz'))!;
  execFileSync('tar', ['xzf', tgz], { cwd: dl });
  for (const f of readdirSync(repo)) if (f !== '.git') rmSync(join(repo, f), { recursive: true, force: true });
  cpSync(join(dl, 'package'), repo, { recursive: true });
  git('add', '-A');
  git('commit', '-q', '-m', `${PACKAGE} ${v}`, '--allow-empty');
}
const out = join(repoRoot, 'data-samples', 'history');
mkdirSync(out, { recursive: true });
git('bundle', 'create', join(out, `${PACKAGE}.bundle`), 'HEAD', 'main');
rmSync(work, { recursive: true, force: true });
process.stderr.write(`wrote ${join(out, `${PACKAGE}.bundle`)} (${VERSIONS.length} releases)\n`);
