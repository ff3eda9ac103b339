/**
 * Builds data-samples/history/midpack-web.bundle: a real development history with real commit
 * messages and tests, for the pull-request instance tests. It is midpack's own history of its web
 * extractor (Apache-2.0, this repository): the last COMMITS commits that touch src/stages/web or
 * test/stages/web, replayed oldest first onto a new root, each commit's tree cut down to those two
 * folders and its message kept as written. Most commits change code and its test together, so
 * an instance made from one has a real `patch` and a real `test_patch`.
 *
 *   node dist/scripts/build-instance-history.js
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../test/helpers/paths.js';

const PATHS = ['src/stages/web', 'test/stages/web'];
const COMMITS = 40;

const work = mkdtempSync(join(tmpdir(), 'midpack-instance-history-'));
const clone = join(work, 'clone');
execFileSync('git', ['clone', '-q', '--no-checkout', '--no-hardlinks', repoRoot, clone]);
const env = { ...process.env, GIT_AUTHOR_DATE: '2025-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2025-01-01T00:00:00Z', GIT_AUTHOR_NAME: 'midpack', GIT_AUTHOR_EMAIL: 'midpack@example.invalid', GIT_COMMITTER_NAME: 'midpack', GIT_COMMITTER_EMAIL: 'midpack@example.invalid', GIT_INDEX_FILE: join(work, 'index') };
const git = (args: string[], input?: string) => execFileSync('git', ['-C', clone, ...args], { encoding: 'utf8', env, input, maxBuffer: 1 << 28 }).trim();

const commits = git(['rev-list', '--no-merges', '--reverse', `--max-count=${COMMITS}`, 'HEAD', '--', ...PATHS]).split('\n');
// rev-list --reverse with --max-count takes the newest COMMITS and reverses them.
let parent: string | undefined;
for (const c of commits) {
  git(['read-tree', '--empty']);
  git(['update-index', '-z', '--index-info'], git(['ls-tree', '-r', '-z', c, '--', ...PATHS]));
  const tree = git(['write-tree']);
  const message = git(['log', '-1', '--format=%B', c]);
  parent = git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message]);
}
git(['update-ref', 'refs/heads/main', parent!]);
git(['symbolic-ref', 'HEAD', 'refs/heads/main']);
const out = join(repoRoot, 'data-samples', 'history');
mkdirSync(out, { recursive: true });
git(['bundle', 'create', join(out, 'midpack-web.bundle'), 'HEAD', 'main']);
rmSync(work, { recursive: true, force: true });
process.stderr.write(`wrote ${join(out, 'midpack-web.bundle')} (${commits.length} commits)\n`);
