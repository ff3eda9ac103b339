import { spawnProcess } from '../../io/spawn-process.js';
import { readdirSync, readFileSync, realpathSync, statSync, existsSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { contentFilter, pathFilter, sizeFilter, textFilter, type FilterOptions } from './filters.js';
import { comparePaths, dirName, joinPath, normalizePath } from './imports.js';

/**
 * Where repositories come from: a plain folder, a git checkout (the files of HEAD, read
 * through git), or file-level rows (see rows.ts). Each source yields one repository at a
 * time as a list of verdicts: every file it saw, kept with its text or dropped by reason.
 */
export type FileVerdict =
  | { path: string; content: string; bytes: number; reason?: undefined }
  | { path: string; reason: string; message: string; content?: undefined };

export interface RepoCandidate {
  repo: string;
  /** Where it came from: the folder, or the rows file(s). */
  source: string;
  files: FileVerdict[];
}

const VCS_DIRS = new Set(['.git', '.hg', '.svn']);

export function dropped(path: string, reason: string, message: string): FileVerdict {
  return { path, reason, message };
}

/** Runs the path, size and content filters over one file, reading it only when it must. */
export function judgeFile(path: string, size: number, read: () => Uint8Array, opts: FilterOptions, where: string): FileVerdict {
  const reason = pathFilter(path) ?? sizeFilter(size, opts);
  if (reason) return dropped(path, reason, `${where}: ${path}: ${describe(reason, size, opts)}`);
  const bytes = read();
  const verdict = contentFilter(bytes);
  if (verdict.reason !== undefined) return dropped(path, verdict.reason, `${where}: ${path}: ${describe(verdict.reason, size, opts)}`);
  return { path, content: verdict.text, bytes: bytes.length };
}

/** The same for a file row whose content is already a string. */
export function judgeText(path: string, text: string, opts: FilterOptions, where: string): FileVerdict {
  const size = Buffer.byteLength(text);
  const reason = pathFilter(path) ?? sizeFilter(size, opts) ?? textFilter(text);
  if (reason) return dropped(path, reason, `${where}: ${path}: ${describe(reason, size, opts)}`);
  return { path, content: text, bytes: size };
}

export function describe(reason: string, size: number, opts: FilterOptions): string {
  switch (reason) {
    case 'oversize':
      return `${size} bytes is over the limit of ${opts.maxFileBytes} (--max-file-bytes)`;
    case 'binary':
      return 'binary content';
    case 'invalid_utf8':
      return 'content is not valid UTF-8';
    case 'invalid_unicode':
      return 'content holds an unpaired UTF-16 surrogate (not encodable as UTF-8)';
    case 'empty':
      return 'empty file';
    case 'vendored':
      return 'vendored (third-party folder)';
    case 'lock_file':
      return 'lock file';
    case 'generated':
      return 'generated file';
    case 'minified':
      return 'minified (very long lines)';
    default:
      return reason.replace(/_/g, ' ');
  }
}

export function isGitCheckout(dir: string): boolean {
  return existsSync(join(dir, '.git'));
}

/**
 * A plain folder, walked in sorted order. Symbolic links: a link to a file inside the
 * repository is read as that file (at the link's path); a link that leads outside, a
 * dangling link, a loop and a link to a folder are dropped by reason, never followed,
 * so a walk cannot escape the root or run forever. FIFOs and devices are never opened.
 */
export function readFolderRepo(root: string, opts: FilterOptions, repo = basename(resolve(root))): RepoCandidate {
  const realRoot = realpathSync(root);
  const files: FileVerdict[] = [];
  const where = root;
  const readReal = (p: string) => () => readFileSync(p);
  const walk = (dir: string, rel: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      files.push(dropped(rel || '.', 'unreadable', `${where}: ${rel || '.'}: ${(e as Error).message}`));
      return;
    }
    entries.sort((a, b) => comparePaths(a.name, b.name));
    for (const e of entries) {
      const abs = join(dir, e.name);
      const path = joinPath(rel, e.name);
      if (/[\n\r]/.test(e.name)) {
        files.push(dropped(path, 'bad_path', `${where}: ${JSON.stringify(path)}: a path with a line break cannot be written in the format`));
      } else if (e.isDirectory()) {
        if (!VCS_DIRS.has(e.name)) walk(abs, path);
      } else if (e.isFile()) {
        files.push(safeJudge(path, abs, () => statSync(abs).size, readReal(abs), opts, where));
      } else if (e.isSymbolicLink()) {
        files.push(followLink(path, abs, realRoot, opts, where));
      } else {
        files.push(dropped(path, 'not_regular_file', `${where}: ${path}: not a regular file (FIFO, socket or device)`));
      }
    }
  };
  walk(root, '');
  return { repo, source: root, files };
}

function safeJudge(path: string, abs: string, size: () => number, read: () => Uint8Array, opts: FilterOptions, where: string): FileVerdict {
  try {
    return judgeFile(path, size(), read, opts, where);
  } catch (e) {
    return dropped(path, 'unreadable', `${where}: ${path}: ${(e as Error).message} (${abs})`);
  }
}

function followLink(path: string, abs: string, realRoot: string, opts: FilterOptions, where: string): FileVerdict {
  let target: string;
  try {
    target = realpathSync(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return dropped(path, 'symlink_loop', `${where}: ${path}: symbolic link loop`);
    return dropped(path, 'symlink_broken', `${where}: ${path}: dangling symbolic link`);
  }
  if (target !== realRoot && !target.startsWith(realRoot + sep)) {
    return dropped(path, 'symlink_outside', `${where}: ${path}: symbolic link leads outside the repository (${target})`);
  }
  const st = statSync(target);
  if (st.isDirectory()) return dropped(path, 'symlink_dir', `${where}: ${path}: link to a folder inside the repository (not followed; the folder is read at its own path)`);
  if (!st.isFile()) return dropped(path, 'not_regular_file', `${where}: ${path}: link to a FIFO, socket or device`);
  return safeJudge(path, target, () => st.size, () => readFileSync(target), opts, where);
}

// ---------------------------------------------------------------- git

interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  size: number;
  path: string;
}

function git(dir: string, args: string[], input?: string): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const child = spawnProcess('git', ['-c', 'safe.directory=*', '-C', dir, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => reject(new Error(`${dir}: cannot run git: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolvePromise(Buffer.concat(out));
      else reject(new Error(`${dir}: git ${args[0]} failed: ${Buffer.concat(err).toString().trim()}`));
    });
    child.stdin.on('error', () => {}); // git may exit before reading everything; the exit code tells
    child.stdin.end(input ?? '');
  });
}

/** `git cat-file --batch`: many blobs through one process. */
async function readBlobs(dir: string, oids: string[]): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  if (oids.length === 0) return blobs;
  const out = await git(dir, ['cat-file', '--batch'], oids.join('\n') + '\n');
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(10, at);
    const header = out.subarray(at, nl).toString().split(' ');
    at = nl + 1;
    if (header[1] === 'missing') continue;
    const size = Number(header[2]);
    blobs.set(header[0]!, out.subarray(at, at + size));
    at += size + 1;
  }
  return blobs;
}

async function headTree(dir: string): Promise<TreeEntry[]> {
  let out: Buffer;
  // Fails (and the caller counts the repository's files) when `.git` is broken or points nowhere.
  await git(dir, ['rev-parse', '--git-dir']);
  try {
    await git(dir, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
  } catch {
    return []; // a repository with no commit yet tracks nothing at HEAD
  }
  out = await git(dir, ['ls-tree', '-r', '-l', '-z', '--full-tree', 'HEAD']);
  const entries: TreeEntry[] = [];
  for (const rec of out.toString('utf8').split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, type, oid, size] = rec.slice(0, tab).split(/ +/);
    entries.push({ mode: mode!, type: type!, oid: oid!, size: size === '-' ? 0 : Number(size), path: rec.slice(tab + 1) });
  }
  return entries;
}

/**
 * A git checkout: exactly the files tracked at HEAD, with their committed content (so
 * untracked and ignored files never appear, and neither do uncommitted edits). Symbolic
 * links are resolved inside the tree of HEAD; one that leaves it is dropped.
 */
export async function readGitRepo(dir: string, opts: FilterOptions, repo = basename(resolve(dir))): Promise<RepoCandidate> {
  const entries = await headTree(dir);
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const dirs = new Set<string>();
  for (const e of entries) for (let d = dirName(e.path); d !== ''; d = dirName(d)) dirs.add(d);
  const links = entries.filter((e) => e.mode === '120000');
  const linkTargets = await readBlobs(dir, links.map((e) => e.oid));
  const resolved = new Map<string, TreeEntry | FileVerdict>();
  for (const link of links) resolved.set(link.path, resolveGitLink(link, byPath, dirs, linkTargets, dir, resolve(dir)));
  const wanted = new Set<string>();
  const plan: { entry: TreeEntry; as: string; verdict?: FileVerdict }[] = [];
  for (const e of entries) {
    let target: TreeEntry | FileVerdict = e;
    if (/[\n\r]/.test(e.path)) target = dropped(e.path, 'bad_path', `${dir}: ${JSON.stringify(e.path)}: a path with a line break cannot be written in the format`);
    else if (e.type === 'commit') target = dropped(e.path, 'submodule', `${dir}: ${e.path}: git submodule (not read)`);
    else if (e.mode === '120000') target = resolved.get(e.path)!;
    if (!('oid' in target)) {
      plan.push({ entry: e, as: e.path, verdict: target });
      continue;
    }
    const early = pathFilter(e.path) ?? sizeFilter(target.size, opts);
    if (early) {
      plan.push({ entry: e, as: e.path, verdict: dropped(e.path, early, `${dir}: ${e.path}: ${describe(early, target.size, opts)}`) });
      continue;
    }
    wanted.add(target.oid);
    plan.push({ entry: target, as: e.path });
  }
  const blobs = await readBlobs(dir, [...wanted]);
  const files = plan.map(({ entry, as, verdict }) => {
    if (verdict) return verdict;
    const blob = blobs.get(entry.oid);
    if (!blob) return dropped(as, 'unreadable', `${dir}: ${as}: object ${entry.oid} is missing`);
    return judgeFile(as, entry.size, () => blob, opts, dir);
  });
  files.sort((a, b) => comparePaths(a.path, b.path));
  return { repo, source: dir, files };
}

/**
 * A repository git cannot read (a corrupt object, a `.git` that points nowhere) fails alone:
 * every file on disk is counted as `git_error` with git's message, so none vanishes silently,
 * and one record stands for a repository with no file to count.
 */
export async function readGitRepoOrFailure(dir: string, opts: FilterOptions): Promise<RepoCandidate> {
  try {
    return await readGitRepo(dir, opts);
  } catch (e) {
    const why = (e as Error).message.replace(/\s+/g, ' ');
    const onDisk = readFolderRepo(dir, opts);
    const files = onDisk.files.filter((f) => f.path !== '.git').map((f) => dropped(f.path, 'git_error', `${dir}: ${f.path}: not read, the repository cannot be read by git (${why})`));
    if (files.length === 0) files.push(dropped('.', 'git_error', `${dir}: the repository cannot be read by git (${why})`));
    return { ...onDisk, files };
  }
}

const MAX_LINK_HOPS = 40;

function resolveGitLink(
  link: TreeEntry,
  byPath: Map<string, TreeEntry>,
  dirs: Set<string>,
  targets: Map<string, Buffer>,
  where: string,
  absRoot: string,
): TreeEntry | FileVerdict {
  let current = link;
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    const raw = targets.get(current.oid)?.toString('utf8') ?? '';
    let rel: string | undefined;
    if (raw.startsWith('/')) {
      const r = relative(absRoot, raw);
      rel = r.startsWith('..') ? undefined : normalizePath(r.split(sep).join('/'));
    } else rel = normalizePath(joinPath(dirName(current.path), raw));
    if (rel === undefined) return dropped(link.path, 'symlink_outside', `${where}: ${link.path}: symbolic link leads outside the repository (${raw})`);
    const next = byPath.get(rel);
    if (!next) {
      if (dirs.has(rel) || rel === '') return dropped(link.path, 'symlink_dir', `${where}: ${link.path}: link to a folder inside the repository (not followed)`);
      return dropped(link.path, 'symlink_broken', `${where}: ${link.path}: dangling symbolic link (${raw})`);
    }
    if (next.mode !== '120000') return next;
    if (!targets.has(next.oid)) return dropped(link.path, 'symlink_broken', `${where}: ${link.path}: unresolved link chain`);
    current = next;
  }
  return dropped(link.path, 'symlink_loop', `${where}: ${link.path}: symbolic link loop`);
}
