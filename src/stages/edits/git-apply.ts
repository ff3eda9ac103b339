import { spawnProcess } from '../../io/spawn-process.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { gitDiff, type FileChange } from './git-diff.js';
import { writeGitIndex, type IndexEntry } from './git-index.js';

/**
 * Real `git apply --check`, batched: the before-files of many samples, each under its own
 * numbered folder, and one git process checks all their diffs (the same diffs with each
 * sample's paths placed under its folder). Only a batch that fails is checked again sample by
 * sample, to name the ones git rejects.
 *
 * Where the before-files are blobs of a repository (history: `FileChange.blob`), they go into
 * one temporary index of that repository, written here (git-index.ts: no blob is written out) and
 * git checks with `apply --check --cached`: one process a batch. Other samples (rows) have their
 * before-files written to a temporary folder, checked there.
 */
export interface ApplyCheckItem {
  changes: readonly FileChange[];
}

interface Place {
  cwd: string;
  env: NodeJS.ProcessEnv;
  args: string[];
}

function runGit(place: Place, args: string[], input: string): Promise<{ ok: boolean; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawnProcess('git', [...place.args, ...args], { cwd: place.cwd, env: place.env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ ok: code === 0, stderr }));
    p.stdin.on('error', () => {}); // git may exit before reading everything; its exit code tells
    p.stdin.end(input);
  });
}

const runGitApply = (place: Place, patch: string) => runGit(place, ['apply', '--check', ...(place.env.GIT_INDEX_FILE ? ['--cached'] : []), '-'], patch);

/** A path git would write inside the repository: relative, no '..' or empty segments. */
export function isSafeRelativePath(path: string): boolean {
  return path !== '' && !path.startsWith('/') && path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/** The repository whose blobs every before-file of the item is ('' when some is not); null when it has no before-file. */
function blobRepo(item: ApplyCheckItem): string | null {
  const olds = item.changes.filter((c) => c.oldPath !== null);
  if (olds.length === 0) return null;
  const repo = olds[0]!.blob?.repo;
  return repo !== undefined && olds.every((c) => c.blob?.repo === repo) ? repo : '';
}

/** The length of the group's object names in bytes: 32 in a SHA-256 repository, else 20. */
function blobHashBytes(items: readonly ApplyCheckItem[]): number {
  const sha = items.flatMap((item) => item.changes).find((c) => c.blob)?.blob!.sha;
  return sha?.length === 64 ? 32 : 20;
}

/** Checks every item's diff with git; returns null for accepted ones, git's message otherwise. */
export async function gitApplyCheck(items: readonly ApplyCheckItem[], workDir = tmpdir()): Promise<(string | null)[]> {
  if (items.length === 0) return [];
  mkdirSync(workDir, { recursive: true });
  // Absolute: git runs in another folder (its cwd, then -C the repository), where a relative
  // GIT_INDEX_FILE or repository path would name another place than the one written here.
  const root = mkdtempSync(join(resolve(workDir), 'midpack-git-apply-'));
  try {
    const keys = items.map(blobRepo);
    // An item that only adds files needs no before-file: it joins any group.
    const anyKey = keys.find((k) => k !== null) ?? '';
    const groups = new Map<string, number[]>();
    keys.forEach((key, k) => groups.set(key ?? anyKey, [...(groups.get(key ?? anyKey) ?? []), k]));
    const out: (string | null)[] = items.map(() => null);
    for (const [repo, ks] of groups) {
      const verdicts = await checkGroup(ks.map((k) => items[k]!), repo || undefined, join(root, String(groups.size > 1 ? [...groups.keys()].indexOf(repo) : 0)));
      ks.forEach((k, i) => (out[k] = verdicts[i]!));
    }
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** One batch: the before-files in a temporary index of `repo`, or written under `dir`. */
async function checkGroup(items: readonly ApplyCheckItem[], repo: string | undefined, dir: string): Promise<(string | null)[]> {
  mkdirSync(dir, { recursive: true });
  const unsafe = items.map((item) => item.changes.find((c) => [c.oldPath, c.newPath].some((p) => p !== null && !isSafeRelativePath(p))));
  const entries: IndexEntry[] = [];
  const patches = items.map((item, k) => {
    if (unsafe[k]) return '';
    for (const c of item.changes) {
      if (c.oldPath === null || c.before === null) continue;
      if (repo) {
        entries.push({ mode: c.blob!.mode, sha: c.blob!.sha, path: `${k}/${c.oldPath}` });
        continue;
      }
      const file = join(dir, String(k), c.oldPath);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, c.before);
    }
    return gitDiff(item.changes, `${k}/`);
  });
  // The ceiling keeps git from taking a repository above the temporary folder for its own.
  const place: Place = repo
    ? { cwd: dir, env: { ...process.env, GIT_INDEX_FILE: join(dir, 'index') }, args: ['-C', resolve(repo)] }
    : { cwd: dir, env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(dir) }, args: [] };
  if (repo) writeGitIndex(place.env.GIT_INDEX_FILE!, entries, blobHashBytes(items));
  const all = await runGitApply(place, patches.join(''));
  if (all.ok && !unsafe.some(Boolean)) return items.map(() => null);
  // git stopped before any patch (`fatal:`, a patch it rejects says `error:`): the repository cannot be read, the files are written out.
  if (repo && /^fatal:/m.test(all.stderr) && !/^error:/m.test(all.stderr)) return checkGroup(items, undefined, join(dir, 'files'));
  const out: (string | null)[] = [];
  for (const [k, p] of patches.entries()) {
    if (unsafe[k]) {
      out.push('a path is absolute or leaves the repository');
      continue;
    }
    const r = await runGitApply(place, p);
    out.push(r.ok ? null : r.stderr.trim().split('\n')[0] || 'git apply --check failed');
  }
  return out;
}
