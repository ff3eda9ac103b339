import { basename, resolve } from 'node:path';
import { Ledger } from '../../core/ledger.js';
import { Rng } from '../../core/random.js';
import { readJsonl } from '../../io/jsonl.js';
import type { RepoFile } from '../repos/format.js';
import { ContextBuilder, DEFAULT_CONTEXT_OPTIONS } from './context.js';
import { CatFile, git, gitLines } from './git.js';
import type { FileChange } from './git-diff.js';
import { isSafeRelativePath } from './git-apply.js';
import { decodeText } from '../fim/text.js';

/**
 * Where edit samples come from: the commits of a git repository, or rows with `before`,
 * `after` and `description`. Each source record (a commit, a row) becomes one `EditUnit`:
 * the change sets it yields (one per commit, or one per changed file) or a drop reason.
 */
export interface ChangeSet {
  /** Provenance: `repo@commit` (`repo@commit:path` per file), or the row id. */
  sourceId: string;
  repo: string;
  commit?: string;
  description: string;
  changes: FileChange[];
  /** The code context: the changed files before the change, plus retrieved and related files (context.ts). */
  context: RepoFile[];
  /** Further fields for the sample's meta (an instance's id and base commit, why each context file is there). */
  meta?: Record<string, unknown>;
}

export type EditUnit = { label: string; changeSets: ChangeSet[] } | { label: string; drop: string; message: string };

export interface HistoryOptions {
  /** One rank of several: only the commits this rank owns (core/ranks.ts). */
  owns?: (key: string) => boolean;
  rev: string;
  maxCommits: number;
  maxFileBytes: number;
  maxCommitBytes: number;
  maxFiles: number;
  /** Unchanged files from the same repository added to the context as realistic noise. */
  related: number;
  granularity: 'commit' | 'file';
  repoName?: string;
}

export const DEFAULT_HISTORY_OPTIONS: HistoryOptions = {
  rev: 'HEAD',
  maxCommits: Number.POSITIVE_INFINITY,
  maxFileBytes: 256 * 1024,
  maxCommitBytes: 1024 * 1024,
  maxFiles: 32,
  related: 2,
  granularity: 'commit',
};

interface RawEntry {
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
  status: string;
  oldPath: string;
  newPath: string;
}

const ZERO = /^0+$/;

/** Parses `git diff-tree -r -z --raw` output. */
function parseRaw(out: Buffer): RawEntry[] {
  const f = out.toString('utf8').split('\0');
  const entries: RawEntry[] = [];
  for (let i = 0; i + 1 < f.length; ) {
    const meta = f[i++]!;
    if (!meta.startsWith(':')) continue;
    const [oldMode, newMode, oldSha, newSha, status] = meta.slice(1).split(' ') as [string, string, string, string, string];
    const oldPath = f[i++]!;
    const newPath = /^[RC]/.test(status) ? f[i++]! : oldPath;
    entries.push({ oldMode, newMode, oldSha, newSha, status, oldPath, newPath });
  }
  return entries;
}

/** The commit message: everything after the headers. */
function commitMessage(body: Buffer): string {
  const text = body.toString('utf8');
  const cut = text.indexOf('\n\n');
  return cut < 0 ? '' : text.slice(cut + 2).trim();
}

async function readText(cat: CatFile, sha: string, maxBytes: number): Promise<{ text: string } | { reason: string }> {
  const info = await cat.info(sha);
  if (!info) return { reason: 'missing_object' };
  if (info.size > maxBytes) return { reason: 'too_large' };
  const bytes = await cat.contents(sha);
  const text = bytes && decodeText(bytes);
  return text === undefined ? { reason: 'binary' } : { text };
}

/** The context without retrieval or a token budget: touched files and `related` random ones. */
const relatedOnly = (o: HistoryOptions) => new ContextBuilder({ ...DEFAULT_CONTEXT_OPTIONS, retrieve: 0, contextTokens: 0, related: o.related, maxFileBytes: o.maxFileBytes });

/**
 * Walks the commits of `rev` oldest first. Merges are dropped (their change is their
 * parents'), so are commits over the size limits and commits that change no text file.
 * `commits` counts each commit in (the caller counts it out or dropped); `files` counts every changed file: kept, or dropped by reason (binary, too_large, symlink...).
 */
export async function* historyUnits(dir: string, opts: HistoryOptions, seed: number, commits: Ledger, files: Ledger, context = relatedOnly(opts)): AsyncIterable<EditUnit> {
  const repo = opts.repoName ?? basename(resolve(dir));
  const cat = new CatFile(dir);
  try {
    let n = 0;
    for await (const line of gitLines(dir, ['rev-list', '--reverse', '--parents', opts.rev])) {
      if (n++ >= opts.maxCommits) break;
      const [commit, ...parents] = line.trim().split(' ') as [string, ...string[]];
      if (opts.owns && !opts.owns(`commit:${commit}`)) continue; // another rank's commit
      commits.input();
      const label = `${dir}: commit ${commit}`;
      if (parents.length > 1) {
        yield { label, drop: 'merge', message: `${label} is a merge` };
        continue;
      }
      const parent = parents[0];
      const raw = parseRaw(await git(dir, ['diff-tree', '-r', '-z', '-M', '--raw', '--no-commit-id', ...(parent ? [parent, commit] : ['--root', commit])]));
      files.input(raw.length);
      if (raw.length > opts.maxFiles) {
        files.drop('commit_dropped', `${label}: ${raw.length} files`, raw.length);
        yield { label, drop: 'too_large', message: `${label} changes ${raw.length} files (limit ${opts.maxFiles})` };
        continue;
      }
      const changes: FileChange[] = [];
      let bytes = 0;
      for (const e of raw) {
        const name = `${label}: ${e.newPath}`;
        if ([e.oldMode, e.newMode].includes('120000')) files.drop('symlink', name);
        else if ([e.oldMode, e.newMode].includes('160000')) files.drop('submodule', name);
        else {
          const before = ZERO.test(e.oldSha) ? null : await readText(cat, e.oldSha, opts.maxFileBytes);
          const after = ZERO.test(e.newSha) ? null : await readText(cat, e.newSha, opts.maxFileBytes);
          const bad = [before, after].find((s) => s && 'reason' in s) as { reason: string } | undefined;
          if (bad) files.drop(bad.reason, name);
          else {
            const b = before && 'text' in before ? before.text : null;
            const a = after && 'text' in after ? after.text : null;
            bytes += (b?.length ?? 0) + (a?.length ?? 0);
            changes.push({ oldPath: b === null ? null : e.oldPath, newPath: a === null ? null : e.newPath, before: b, after: a });
          }
        }
      }
      if (changes.length === 0) {
        yield { label, drop: 'no_text_changes', message: `${label} changes no text file` };
        continue;
      }
      if (bytes > opts.maxCommitBytes) {
        files.drop('commit_dropped', `${label}: over the size limit`, changes.length);
        yield { label, drop: 'too_large', message: `${label} changes ${bytes} characters of text (limit ${opts.maxCommitBytes})` };
        continue;
      }
      files.output(changes.length);
      const description = commitMessage((await cat.contents(commit)) ?? Buffer.alloc(0));
      const rng = new Rng(seed, 'edits', repo, commit);
      const beforeFiles = changes.filter((c) => c.oldPath !== null).map((c) => ({ path: c.oldPath!, content: c.before! }));
      // The commit message is the description retrieval matches; a root commit has no tree before it.
      const built = parent ? await context.build(dir, cat, parent, beforeFiles, description, rng) : { files: [], why: [], leftOut: 0 };
      const base = { repo, commit, description, context: built.files, meta: { context: built.why, context_left_out: built.leftOut } };
      const changeSets =
        opts.granularity === 'commit'
          ? [{ ...base, sourceId: `${repo}@${commit}`, changes }]
          : changes.map((c) => ({ ...base, sourceId: `${repo}@${commit}:${c.newPath ?? c.oldPath}`, changes: [c] }));
      yield { label, changeSets };
    }
  } finally {
    cat.close();
  }
}

/**
 * Rows with `before`, `after` and `description` (optional `path`, `repo`, `id`, and `context`:
 * a list of {path, content} shown as further files). Malformed rows are dropped by reason.
 */
export async function* rowUnits(file: string, ledger: Ledger, owns?: (key: string) => boolean): AsyncIterable<EditUnit> {
  for await (const rec of readJsonl(file, ledger, undefined, owns)) {
    const label = `${file}:${rec.lineNo}`;
    const r = rec.value as Record<string, unknown> | null;
    if (!r || typeof r !== 'object' || Array.isArray(r)) {
      yield { label, drop: 'not_an_object', message: `${label}: record is not a JSON object` };
      continue;
    }
    const missing = ['before', 'after', 'description'].filter((k) => typeof r[k] !== 'string');
    if (missing.length) {
      yield { label, drop: 'missing_field', message: `${label}: "${missing.join('", "')}" must be strings` };
      continue;
    }
    const path = typeof r.path === 'string' ? r.path : 'file.txt';
    if (!isSafeRelativePath(path)) {
      yield { label, drop: 'bad_path', message: `${label}: path "${path}" is absolute or leaves the repository` };
      continue;
    }
    const context = Array.isArray(r.context)
      ? r.context.filter((c): c is RepoFile => !!c && typeof c.path === 'string' && typeof c.content === 'string' && c.path !== path)
      : [];
    const before = r.before as string;
    yield {
      label,
      changeSets: [
        {
          sourceId: r.id === undefined ? label : String(r.id),
          repo: typeof r.repo === 'string' ? r.repo : basename(file),
          description: (r.description as string).trim(),
          changes: [{ oldPath: before === '' ? null : path, newPath: path, before: before === '' ? null : before, after: r.after as string }],
          context: [...(before === '' ? [] : [{ path, content: before }]), ...context],
        },
      ],
    };
  }
}
