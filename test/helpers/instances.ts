import { execFileSync } from 'node:child_process';

/** A SWE-bench-style row, with the commit it was made from. */
export interface InstanceRow {
  instance_id: string;
  repo: string;
  base_commit: string;
  patch: string;
  test_patch: string;
  problem_statement: string;
  hints_text: string;
  commit: string;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
export const isTest = (p: string) => /(^|\/)tests?\//.test(p) || /\.test\.[jt]s$/.test(p);

/**
 * Pull-request instances made from a real history, oldest first (the newest `maxCount` non-merge
 * commits when given): base_commit = the commit's parent, patch = its non-test changes, test_patch
 * = its test changes, problem_statement = its message. Commits that change only tests are left out.
 * Shared by the instances tests and bench:edits.
 */
export function instancesFromHistory(dir: string, o: { repo: string; idPrefix: string; maxCount?: number }): InstanceRow[] {
  const rows: InstanceRow[] = [];
  const limit = o.maxCount === undefined ? [] : [`--max-count=${o.maxCount}`];
  for (const line of git(dir, 'rev-list', '--reverse', '--parents', '--no-merges', ...limit, 'HEAD').trim().split('\n')) {
    const [commit, parent] = line.split(' ') as [string, string | undefined];
    if (!parent) continue;
    const files = git(dir, 'diff', '--name-only', parent, commit).trim().split('\n').filter(Boolean);
    const code = files.filter((f) => !isTest(f));
    const tests = files.filter(isTest);
    if (!code.length) continue;
    rows.push({
      instance_id: `${o.idPrefix}-${commit.slice(0, 10)}`,
      repo: o.repo,
      base_commit: parent,
      patch: git(dir, 'diff', parent, commit, '--', ...code),
      test_patch: tests.length ? git(dir, 'diff', parent, commit, '--', ...tests) : '',
      problem_statement: git(dir, 'log', '-1', '--format=%B', commit),
      hints_text: `hint for ${commit.slice(0, 10)}`,
      commit,
    });
  }
  return rows;
}
