import { basename, resolve } from 'node:path';
import { Ledger } from '../../core/ledger.js';
import { Rng } from '../../core/random.js';
import { readJsonl } from '../../io/jsonl.js';
import type { RepoFile } from '../repos/format.js';
import { ContextBuilder, DEFAULT_CONTEXT_OPTIONS } from './context.js';
import { CatFile, git, gitLines } from './git.js';
import { DiffTreeStream, patchKey, type RawEntry } from './git-patches.js';
import type { FileChange } from './git-diff.js';
import { isSafeRelativePath } from './git-apply.js';
import { readTexts } from './blob-texts.js';
import type { ContentCache } from './content-cache.js';

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
  /** Only the commits at these places [from, to) of rev-list's order (a piece of the history: editsPieces). */
  range?: readonly [number, number];
  /**
   * rev-list's lines (`--reverse --parents`) from its first, when the planner listed them
   * (editsPieces): the walk starts no rev-list process of its own.
   */
  revList?: readonly string[];
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

/**
 * Commits a piece of a history holds at most by default (editsPieces): several seconds of work,
 * so a long history spreads over a run's workers, while one of a few hundred commits stays on
 * one thread. Each thread a history's pieces run on starts cold (it loads the tokenizer, indexes
 * the tree for BM25, counts the touched fixtures' tokens, starts its git processes): at 100, the
 * shared go-readability bundle (187 commits) took two threads and 3.7-4.0 s of the history
 * stage's CPU in bench:run --history-heavy, against 1.9-2.4 s on one.
 */
export const PIECE_COMMITS = 250;

const ZERO = /^0+$/;

/** Parses `git diff-tree -r -z --raw` output (a commit whose listing was over the listing stream's cap is listed this way). */
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

/** The context without retrieval or a token budget: touched files and `related` random ones. */
const relatedOnly = (o: HistoryOptions) => new ContextBuilder({ ...DEFAULT_CONTEXT_OPTIONS, retrieve: 0, contextTokens: 0, related: o.related, maxFileBytes: o.maxFileBytes });

/** The long-running git processes of one repository's walk. */
interface RepoGit {
  dir: string;
  cat: CatFile;
  patches: DiffTreeStream;
  /** The context builder's cache, which also keeps the changed files' texts (readTexts). */
  texts: ContentCache;
}

/** A commit of at most `maxFiles` changed files is made into samples; the others are dropped, unwritten by git. */
function withinFileLimit(files: number, opts: HistoryOptions): boolean {
  return files <= opts.maxFiles;
}

/**
 * A commit's changed text files, each with git's patch of it when the patch fits the texts; the
 * others are counted dropped by reason into `files`. Undefined (and counted) when the commit
 * changes more than `maxFiles` files.
 */
async function commitChanges(g: RepoGit, commit: string, label: string, opts: HistoryOptions, files: Ledger): Promise<{ changes: FileChange[]; bytes: number } | { files: number }> {
  const out = await g.patches.commit(commit);
  // A listing over its cap (a commit of a million files): listed by one plain diff-tree. A file
  // without git's patch (its commit's patch was over the cap) gets jsdiff's diff (bounded).
  const raw = out.raw ?? parseRaw(await git(g.dir, ['diff-tree', '-r', '-z', '-M', '--raw', '--no-commit-id', '--root', commit]));
  files.input(raw.length);
  if (!withinFileLimit(raw.length, opts)) {
    files.drop('commit_dropped', `${label}: ${raw.length} files`, raw.length);
    return { files: raw.length };
  }
  const changes: FileChange[] = [];
  let bytes = 0;
  const special = (e: RawEntry) => [e.oldMode, e.newMode].some((m) => m === '120000' || m === '160000');
  const texts = await readTexts(g.cat, raw.filter((e) => !special(e)).flatMap((e) => [e.oldSha, e.newSha].filter((s) => !ZERO.test(s))), opts.maxFileBytes, g.texts);
  for (const e of raw) {
    const name = `${label}: ${e.newPath}`;
    if ([e.oldMode, e.newMode].includes('120000')) files.drop('symlink', name);
    else if ([e.oldMode, e.newMode].includes('160000')) files.drop('submodule', name);
    else {
      const before = ZERO.test(e.oldSha) ? null : texts.get(e.oldSha)!;
      const after = ZERO.test(e.newSha) ? null : texts.get(e.newSha)!;
      const bad = [before, after].find((s) => s && 'reason' in s) as { reason: string } | undefined;
      if (bad) files.drop(bad.reason, name);
      else {
        const b = before && 'text' in before ? before : null;
        const a = after && 'text' in after ? after : null;
        bytes += (b?.text.length ?? 0) + (a?.text.length ?? 0);
        const change: FileChange = { oldPath: b === null ? null : e.oldPath, newPath: a === null ? null : e.newPath, before: b?.text ?? null, after: a?.text ?? null };
        const patch = out.patches.get(patchKey(e.oldPath, e.newPath));
        if (patch !== undefined && b?.asBytes !== false && a?.asBytes !== false) change.diff = patch;
        if (b !== null && b.asBytes) change.blob = { repo: resolve(g.dir), sha: e.oldSha, mode: e.oldMode };
        changes.push(change);
      }
    }
  }
  return { changes, bytes };
}

/**
 * Walks the commits of `rev` oldest first. Merges are dropped (their change is their
 * parents'), so are commits over the size limits and commits that change no text file.
 * `commits` counts each commit in (the caller counts it out or dropped); `files` counts every changed file: kept, or dropped by reason (binary, too_large, symlink...).
 * Five git processes per repository whatever its length: rev-list (none for a piece the planner listed), two diff-tree --stdin (the
 * listings, and the patches of commits within the file limit), one cat-file for contents and trees (git.ts), and git apply batches (git-apply.ts).
 * The next READ_AHEAD_COMMITS commits are read from git (readCommit) while one becomes samples:
 * git answers on the other core instead of a round trip at a time on this commit's path.
 */
export async function* historyUnits(dir: string, opts: HistoryOptions, seed: number, commits: Ledger, files: Ledger, context = relatedOnly(opts)): AsyncIterable<EditUnit> {
  const repo = opts.repoName ?? basename(resolve(dir));
  const cat = new CatFile(dir);
  // A commit over the file limit is dropped whatever its patch: git is not asked to write it.
  const g: RepoGit = { dir, cat, patches: new DiffTreeStream(dir, patchCap(opts), (raw) => withinFileLimit(raw.length, opts)), texts: context.cache };
  const ahead: CommitAhead[] = [];
  let reads: Promise<unknown> = Promise.resolve();
  const turn = async (a: CommitAhead): Promise<EditUnit> => {
    commits.input();
    return a.read ? commitUnit(g, a, repo, seed, opts, files, context) : { label: a.label, drop: 'merge', message: `${a.label} is a merge` };
  };
  try {
    const [first, limit] = commitWindow(opts);
    let n = 0;
    for await (const line of prefetched(opts.revList ? listed(opts.revList) : gitLines(dir, ['rev-list', '--reverse', '--parents', opts.rev]), g.patches, opts)) {
      const at = n++;
      if (at >= limit) break;
      if (at < first) continue; // another piece's commit
      const [commit, ...parents] = line.trim().split(' ') as [string, ...string[]];
      if (opts.owns && !opts.owns(`commit:${commit}`)) continue; // another rank's commit
      const label = `${dir}: commit ${commit}`;
      const a: CommitAhead = { commit, parent: parents[0], label };
      if (parents.length <= 1) {
        // One read after another (the diff stream is read in order); a failure is thrown in its commit's turn.
        a.read = reads.then(() => readCommit(g, a, opts, context));
        reads = a.read.catch(() => undefined); // also marks a.read's failure handled until its turn awaits it
      }
      ahead.push(a);
      if (ahead.length > READ_AHEAD_COMMITS) yield await turn(ahead.shift()!);
    }
    while (ahead.length > 0) yield await turn(ahead.shift()!);
  } finally {
    g.patches.close();
    cat.close();
  }
}

async function* listed(lines: readonly string[]): AsyncIterable<string> {
  yield* lines;
}

/** Commits read from git ahead of the one becoming samples. */
const READ_AHEAD_COMMITS = 2;

/** A commit of the walk, with its read from git under way (none for a merge). */
interface CommitAhead {
  commit: string;
  parent: string | undefined;
  label: string;
  read?: Promise<CommitRead>;
}

/** What git gives for a commit before its turn: its changes, its files' ledger calls (replayed in its turn, so the ledger keeps the walk's order), its message when it is kept. */
interface CommitRead {
  got: Awaited<ReturnType<typeof commitChanges>>;
  files: Ledger;
  description?: string;
}

/** A commit's changes and, when it is kept, its message; its parent's tree is warmed for its context meanwhile. */
async function readCommit(g: RepoGit, a: CommitAhead, opts: HistoryOptions, context: ContextBuilder): Promise<CommitRead> {
  const files = new Ledger();
  const got = await commitChanges(g, a.commit, a.label, opts, files);
  if ('files' in got || got.changes.length === 0 || got.bytes > opts.maxCommitBytes) return { got, files };
  const touched = new Set(got.changes.flatMap((c) => (c.oldPath === null ? [] : [c.oldPath])));
  const [body] = await Promise.all([g.cat.contents(a.commit), a.parent ? context.warm(g.dir, g.cat, a.parent, touched) : undefined]);
  return { got, files, description: commitMessage(body ?? Buffer.alloc(0)) };
}

/** A commit's unit in its turn: dropped by reason, or its change set(s) with their context. */
async function commitUnit(g: RepoGit, a: CommitAhead, repo: string, seed: number, opts: HistoryOptions, files: Ledger, context: ContextBuilder): Promise<EditUnit> {
  const { label, commit, parent } = a;
  const read = await a.read!;
  files.merge(read.files.toJSON());
  const got = read.got;
  if ('files' in got) return { label, drop: 'too_large', message: `${label} changes ${got.files} files (limit ${opts.maxFiles})` };
  const { changes, bytes } = got;
  if (changes.length === 0) return { label, drop: 'no_text_changes', message: `${label} changes no text file` };
  if (bytes > opts.maxCommitBytes) {
    files.drop('commit_dropped', `${label}: over the size limit`, changes.length);
    return { label, drop: 'too_large', message: `${label} changes ${bytes} characters of text (limit ${opts.maxCommitBytes})` };
  }
  files.output(changes.length);
  const description = read.description!;
  const rng = new Rng(seed, 'edits', repo, commit);
  // With its blob id, a changed file's token count is cached like any file of a tree's.
  const beforeFiles = changes.filter((c) => c.oldPath !== null).map((c) => ({ path: c.oldPath!, content: c.before!, sha: c.blob?.sha }));
  // The commit message is the description retrieval matches; a root commit has no tree before it.
  const built = parent ? await context.build(g.dir, g.cat, parent, beforeFiles, description, rng) : { files: [], why: [], leftOut: 0 };
  const base = { repo, commit, description, context: built.files, meta: { context: built.why, context_left_out: built.leftOut } };
  const changeSets =
    opts.granularity === 'commit'
      ? [{ ...base, sourceId: `${repo}@${commit}`, changes }]
      : changes.map((c) => ({ ...base, sourceId: `${repo}@${commit}:${c.newPath ?? c.oldPath}`, changes: [c] }));
  return { label, changeSets };
}

/** Commits asked of diff-tree ahead of their turn, so git diffs them while earlier ones become samples. */
const PREFETCH_COMMITS = 16;

/** The rev-list lines, each yielded once the diffs of up to PREFETCH_COMMITS later commits (this rank's, not merges, within maxCommits) are asked. */
async function* prefetched(lines: AsyncIterable<string>, patches: DiffTreeStream, opts: HistoryOptions): AsyncIterable<string> {
  const [first, limit] = commitWindow(opts);
  const ahead: string[] = [];
  let seen = 0;
  const ask = (line: string) => {
    const [commit, ...parents] = line.trim().split(' ');
    const at = seen++;
    if (at >= first && at < limit && parents.length <= 1 && (!opts.owns || opts.owns(`commit:${commit}`))) patches.prefetch(commit!);
  };
  for await (const line of lines) {
    ask(line);
    ahead.push(line);
    if (ahead.length > PREFETCH_COMMITS) yield ahead.shift()!;
    if (seen > limit + PREFETCH_COMMITS) break;
  }
  yield* ahead;
}

/** The places in rev-list's order of the commits a walk takes: [first, limit). */
function commitWindow(opts: HistoryOptions): [number, number] {
  const [from, to] = opts.range ?? [0, Number.POSITIVE_INFINITY];
  return [from, Math.min(to, opts.maxCommits)];
}

/** A commit's patch text held at most: its kept text is at most maxCommitBytes, twice that with context and headers, plus room for dropped files' headers. */
const patchCap = (opts: HistoryOptions) => Math.min(2 * opts.maxCommitBytes + (1 << 20), 1 << 30);

/**
 * Rows with `before`, `after` and `description` (optional `path`, `repo`, `id`, and `context`:
 * a list of {path, content} shown as further files). Malformed rows are dropped by reason.
 * `owns`: this rank's records of the file (core/ranks.ts `inputOwns`).
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
