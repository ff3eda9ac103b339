import type { CatFile } from './git.js';
import { ENTRY_BYTES, type ContentCache } from './content-cache.js';

/**
 * The regular files of a commit's tree, as `git ls-tree -r --long` lists them (the same order:
 * git's tree order, each folder's files where the folder sorts), read through the repository's
 * one `git cat-file --batch-command` instead of a process per commit.
 *
 * Tree objects and blob sizes never change for a given object name, so both are cached, in the
 * context builders' cache of the thread (content-cache.ts: one budget of bytes, the least
 * recently used out first): a commit re-reads only the folders it changed.
 */
export interface TreeFile {
  path: string;
  sha: string;
  size: number;
}

interface TreeEntry {
  mode: string;
  name: string;
  sha: string;
}

/** Parses a tree object: `<mode> <name>\0<binary object name>` entries. */
function parseTree(body: Buffer, hashBytes: number): TreeEntry[] {
  const out: TreeEntry[] = [];
  let at = 0;
  while (at < body.length) {
    const sp = body.indexOf(32, at);
    const nul = body.indexOf(0, sp);
    if (sp < 0 || nul < 0) break;
    out.push({ mode: body.subarray(at, sp).toString('latin1'), name: body.subarray(sp + 1, nul).toString('utf8'), sha: body.subarray(nul + 1, nul + 1 + hashBytes).toString('hex') });
    at = nul + 1 + hashBytes;
  }
  return out;
}

/** ls-tree shows a regular file's mode canonical: 100755 when executable, 100644 otherwise. */
function regularMode(mode: string): string | undefined {
  if (!/^100[0-7]{3}$/.test(mode)) return undefined;
  return parseInt(mode, 8) & 0o100 ? '100755' : '100644';
}

/** A tree's entries, about: each an object with three strings (the object name in hex). */
const treeBytes = (entries: readonly TreeEntry[]) => entries.reduce((a, e) => a + 4 * ENTRY_BYTES + e.name.length + e.sha.length, 0);

export class TreeFiles {
  constructor(
    private readonly cat: CatFile,
    private readonly cache: ContentCache,
  ) {}

  /**
   * The trees under `root`, read a level at a time: those not in the cache are asked in one
   * request per level of folders (a cold tree is a few round trips, not one per folder), and
   * kept here for this listing whatever the cache evicts meanwhile.
   */
  private async trees(root: string, hashBytes: number): Promise<Map<string, TreeEntry[]>> {
    const got = new Map<string, TreeEntry[]>();
    for (let level = [root]; level.length > 0; ) {
      const missing: string[] = [];
      for (const object of level) {
        // `commit^{tree}` names the commit's root tree: keyed by the commit, which never changes either.
        const hit = this.cache.get<TreeEntry[]>(`tree\0${object}`);
        if (hit) got.set(object, hit);
        else missing.push(object);
      }
      const bodies = await this.cat.contentsMany(missing);
      missing.forEach((object, i) => {
        const entries = bodies[i] ? parseTree(bodies[i], hashBytes) : [];
        got.set(object, entries);
        this.cache.set(`tree\0${object}`, entries, treeBytes(entries));
      });
      level = level.flatMap((object) => got.get(object)!.filter((e) => e.mode === '40000' && !got.has(e.sha)).map((e) => e.sha));
      level = [...new Set(level)];
    }
    return got;
  }

  /** Every regular file (mode 100644/100755) of `commit`'s tree, with its size. */
  async list(commit: string): Promise<TreeFile[]> {
    const hashBytes = commit.length / 2;
    const root = `${commit}^{tree}`;
    const trees = await this.trees(root, hashBytes);
    const files: { path: string; sha: string }[] = [];
    // In git's tree order, each folder's files where the folder sorts, as ls-tree -r lists them.
    const walk = (object: string, prefix: string): void => {
      for (const e of trees.get(object)!) {
        if (e.mode === '40000') walk(e.sha, `${prefix}${e.name}/`);
        else if (regularMode(e.mode)) files.push({ path: prefix + e.name, sha: e.sha });
      }
    };
    walk(root, '');
    const size = (sha: string) => this.cache.get<number>(`size\0${sha}`);
    const known = new Map(files.map((f) => [f.sha, size(f.sha)]));
    const unknown = [...known].filter(([, n]) => n === undefined).map(([s]) => s);
    const infos = await this.cat.infoMany(unknown);
    unknown.forEach((s, i) => {
      known.set(s, infos[i]?.size ?? Number.POSITIVE_INFINITY);
      this.cache.set(`size\0${s}`, known.get(s), 0);
    });
    return files.map((f) => ({ ...f, size: known.get(f.sha) ?? Number.POSITIVE_INFINITY }));
  }
}
