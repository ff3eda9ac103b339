import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gitDiff, type FileChange } from './git-diff.js';

/**
 * Real `git apply --check`, batched: one temporary folder holds the before-files of many
 * samples, each under its own numbered folder, and one git process checks all their diffs
 * (the same diffs with each sample's paths placed under its folder). Only a batch that
 * fails is checked again sample by sample, to name the ones git rejects.
 */
export interface ApplyCheckItem {
  changes: readonly FileChange[];
}

function runGitApply(cwd: string, patch: string): Promise<{ ok: boolean; stderr: string }> {
  return new Promise((resolve, reject) => {
    // The ceiling keeps git from taking a repository above the temporary folder for its own.
    const env = { ...process.env, GIT_CEILING_DIRECTORIES: dirname(cwd) };
    const p = spawn('git', ['apply', '--check', '-'], { cwd, env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ ok: code === 0, stderr }));
    p.stdin.on('error', () => {}); // git may exit before reading everything; its exit code tells
    p.stdin.end(patch);
  });
}

/** A path git would write inside the repository: relative, no '..' or empty segments. */
export function isSafeRelativePath(path: string): boolean {
  return path !== '' && !path.startsWith('/') && path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/** Checks every item's diff with git; returns null for accepted ones, git's message otherwise. */
export async function gitApplyCheck(items: readonly ApplyCheckItem[], workDir = tmpdir()): Promise<(string | null)[]> {
  if (items.length === 0) return [];
  mkdirSync(workDir, { recursive: true });
  const root = mkdtempSync(join(workDir, 'midpack-git-apply-'));
  try {
    const unsafe = items.map((item) => item.changes.find((c) => [c.oldPath, c.newPath].some((p) => p !== null && !isSafeRelativePath(p))));
    const patches = items.map((item, k) => {
      if (unsafe[k]) return '';
      for (const c of item.changes) {
        if (c.oldPath === null || c.before === null) continue;
        const file = join(root, String(k), c.oldPath);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, c.before);
      }
      return gitDiff(item.changes, `${k}/`);
    });
    const all = await runGitApply(root, patches.join(''));
    if (all.ok && !unsafe.some(Boolean)) return items.map(() => null);
    const out: (string | null)[] = [];
    for (const [k, p] of patches.entries()) {
      if (unsafe[k]) {
        out.push('a path is absolute or leaves the repository');
        continue;
      }
      const r = await runGitApply(root, p);
      out.push(r.ok ? null : r.stderr.trim().split('\n')[0] || 'git apply --check failed');
    }
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
