import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Ledger } from '../../core/ledger.js';
import { Rng } from '../../core/random.js';
import { readJsonl } from '../../io/jsonl.js';
import { decodeText } from '../fim/text.js';
import type { InstanceExclusions } from '../hygiene/instances-decontam.js';
import type { ContextBuilder } from './context.js';
import { isSafeRelativePath } from './git-apply.js';
import { applyGitDiff, parseGitDiff, type FileChange } from './git-diff.js';
import { CatFile } from './git.js';
import type { EditUnit } from './history.js';

/**
 * Pull-request task instances (SWE-bench, SWE-Gym, SWE-smith rows: `instance_id, repo,
 * base_commit, patch, test_patch, problem_statement, hints_text`) as edit units. The repository
 * is a local clone at `REPOS/NAME` or `REPOS/OWNER__NAME`, read at `base_commit` through git's
 * object store (no checkout, the clone's work tree and index are never touched). The edit is the
 * `patch` alone: the `test_patch` never reaches a sample. The files it touches are read at the
 * base commit and the patch is applied to them in-process (strictly, as `git apply` would), which
 * gives the after-files the blocks and the diff are built and verified against; the diff is then
 * checked by real `git apply --check` on the base files like every edit sample.
 */
export interface InstanceOptions {
  /** The folder holding the clones. */
  repos: string;
  withHints: boolean;
  maxFileBytes: number;
  exclusions?: InstanceExclusions;
}

/** The clone of `OWNER/NAME` under the repositories folder, or undefined. */
export function instanceRepoDir(repos: string, repo: string): string | undefined {
  const [owner, name] = repo.includes('/') ? (repo.split('/', 2) as [string, string]) : ['', repo];
  const candidates = [name, ...(owner ? [`${owner}__${name}`] : [])].filter((c) => c && c !== '.' && c !== '..').map((c) => join(repos, c));
  return candidates.find((d) => existsSync(join(d, '.git')) || existsSync(join(d, 'HEAD')));
}

type Drop = { drop: string; message: string };

/** The changes a patch makes to the base files; or why it cannot be used. */
async function patchChanges(cat: CatFile, base: string, patch: string, maxBytes: number, label: string): Promise<FileChange[] | Drop> {
  let parsed: ReturnType<typeof parseGitDiff>;
  try {
    parsed = parseGitDiff(patch);
  } catch (e) {
    if (/^(Binary files .* differ|GIT binary patch)$/m.test(patch)) return { drop: 'binary', message: `${label}: the patch changes a binary file` };
    return { drop: 'patch_unparsable', message: `${label}: ${(e as Error).message}` };
  }
  if (parsed.length === 0) return { drop: 'patch_unparsable', message: `${label}: the patch changes no file` };
  const before = new Map<string, string>();
  for (const f of parsed) {
    for (const p of [f.oldPath, f.newPath]) if (p !== null && !isSafeRelativePath(p)) return { drop: 'bad_path', message: `${label}: path "${p}" leaves the repository` };
    if (f.oldPath === null || before.has(f.oldPath)) continue;
    const info = await cat.info(`${base}:${f.oldPath}`);
    if (!info) return { drop: 'patch_does_not_apply', message: `${label}: ${f.oldPath} is not in ${base}` };
    if (info.size > maxBytes) return { drop: 'too_large', message: `${label}: ${f.oldPath} is ${info.size} bytes (limit ${maxBytes})` };
    const text = decodeText((await cat.contents(`${base}:${f.oldPath}`)) ?? Buffer.alloc(0));
    if (text === undefined) return { drop: 'binary', message: `${label}: ${f.oldPath} is not UTF-8 text` };
    before.set(f.oldPath, text);
  }
  const after = applyGitDiff(before, patch);
  if ('error' in after) return { drop: 'patch_does_not_apply', message: `${label}: ${after.error}` };
  return parsed.map((f) => ({
    oldPath: f.oldPath,
    newPath: f.newPath,
    before: f.oldPath === null ? null : before.get(f.oldPath)!,
    after: f.newPath === null ? null : after.get(f.newPath)!,
  }));
}

const MISSING = (r: Record<string, unknown>) => ['instance_id', 'repo', 'base_commit', 'patch'].filter((k) => typeof r[k] !== 'string' || r[k] === '');

/** Open `cat-file` processes, one per repository (closed at the end of the file). */
class Repos {
  private readonly open = new Map<string, CatFile>();
  cat(dir: string): CatFile {
    let c = this.open.get(dir);
    if (!c) this.open.set(dir, (c = new CatFile(dir)));
    return c;
  }
  close(): void {
    for (const c of this.open.values()) c.close();
  }
}

/** One row to an edit unit (a change set or a drop). */
async function instanceUnit(r: Record<string, unknown>, label: string, opts: InstanceOptions, repos: Repos, context: ContextBuilder, seed: number): Promise<EditUnit> {
  const missing = MISSING(r);
  if (missing.length) return { label, drop: 'missing_field', message: `${label}: "${missing.join('", "')}" must be non-empty strings` };
  if (typeof r.problem_statement !== 'string' || !r.problem_statement.trim()) return { label, drop: 'missing_problem_statement', message: `${label}: no problem_statement` };
  const [id, repo, base, patch] = [r.instance_id, r.repo, r.base_commit, r.patch] as string[];
  const name = `${label} (${id})`;
  const dir = instanceRepoDir(opts.repos, repo);
  if (!dir) return { label, drop: 'repo_not_found', message: `${name}: no clone of ${repo} in ${opts.repos} (as NAME or OWNER__NAME)` };
  const cat = repos.cat(dir);
  if ((await cat.info(`${base}^{commit}`))?.type !== 'commit') return { label, drop: 'missing_base_commit', message: `${name}: ${base} is not a commit of ${dir}` };
  const changes = await patchChanges(cat, base, patch, opts.maxFileBytes, name);
  if (!Array.isArray(changes)) return { label, ...changes };
  const files = [...new Set(changes.flatMap((c) => [c.oldPath, c.newPath]).filter((p): p is string => p !== null))];
  const excluded = opts.exclusions?.check({ instance_id: id, repo, base_commit: base, problem_statement: r.problem_statement, files });
  if (excluded) return { label, drop: excluded.reason, message: `${name}: overlaps evaluation instance ${excluded.evalId}` };
  const hints = opts.withHints && typeof r.hints_text === 'string' && r.hints_text.trim() ? `\n\nHints:\n${r.hints_text.trim()}` : '';
  const description = r.problem_statement.trim() + hints;
  const touched = changes.filter((c) => c.oldPath !== null).map((c) => ({ path: c.oldPath!, content: c.before! }));
  // The retrieved files that fit go in before the noise: a large best match does not leave the sample to localize against noise alone.
  const ctx = await context.build(dir, cat, base, touched, r.problem_statement, new Rng(seed, 'edits-instance', id), { fitRetrieved: true });
  const meta = { instance_id: id, base_commit: base, context: ctx.why, context_left_out: ctx.leftOut };
  return { label, changeSets: [{ sourceId: id, repo, description, changes, context: ctx.files, meta }] };
}

/**
 * The instances of a JSONL file (plain, .gz, .zst). The ledger counts rows: a row is kept, or
 * dropped by reason (`missing_problem_statement`, `missing_field`, `repo_not_found`,
 * `missing_base_commit`, `patch_unparsable`, `patch_does_not_apply`, `binary`, `too_large`,
 * `bad_path`, and the exclusion reasons of instances-decontam.ts). `owns`: this rank's records of
 * the file (core/ranks.ts `inputOwns`).
 */
export async function* instanceUnits(file: string, opts: InstanceOptions, context: ContextBuilder, ledger: Ledger, seed: number, owns?: (key: string) => boolean): AsyncIterable<EditUnit> {
  const repos = new Repos();
  try {
    for await (const rec of readJsonl(file, ledger, undefined, owns)) {
      const label = `${file}:${rec.lineNo}`;
      const r = rec.value as Record<string, unknown> | null;
      if (!r || typeof r !== 'object' || Array.isArray(r)) yield { label, drop: 'not_an_object', message: `${label}: record is not a JSON object` };
      else yield await instanceUnit(r, label, opts, repos, context, seed);
    }
  } finally {
    repos.close();
  }
}
