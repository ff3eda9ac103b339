import type { CatFile } from './git.js';

/**
 * The regular files of a commit's tree, as `git ls-tree -r --long` lists them (the same order:
 * git's tree order, each folder's files where the folder sorts), read through the repository's
 * one `git cat-file --batch-command` instead of a process per commit.
 *
 * Tree objects and blob sizes never change for a given object name, so both are cached, each
 * bounded by a count (the oldest dropped first): a commit re-reads only the folders it changed.
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

const MAX_TREES = 4096;
const MAX_SIZES = 200_000;

/** A Map used as a bounded cache: a hit moves to the back, the front is dropped past `max`. */
class BoundedCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
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

export class TreeFiles {
  private readonly trees = new BoundedCache<TreeEntry[]>(MAX_TREES);
  private readonly sizes = new BoundedCache<number>(MAX_SIZES);

  constructor(private readonly cat: CatFile) {}

  private async tree(object: string, hashBytes: number): Promise<TreeEntry[]> {
    const hit = this.trees.get(object);
    if (hit) return hit;
    const body = await this.cat.contents(object);
    const entries = body ? parseTree(body, hashBytes) : [];
    this.trees.set(object, entries);
    return entries;
  }

  /** Every regular file (mode 100644/100755) of `commit`'s tree, with its size. */
  async list(commit: string): Promise<TreeFile[]> {
    const hashBytes = commit.length / 2;
    const files: { path: string; sha: string }[] = [];
    const walk = async (object: string, prefix: string): Promise<void> => {
      for (const e of await this.tree(object, hashBytes)) {
        if (e.mode === '40000') await walk(e.sha, `${prefix}${e.name}/`);
        else if (regularMode(e.mode)) files.push({ path: prefix + e.name, sha: e.sha });
      }
    };
    await walk(`${commit}^{tree}`, '');
    const unknown = [...new Set(files.map((f) => f.sha).filter((s) => this.sizes.get(s) === undefined))];
    const infos = await this.cat.infoMany(unknown);
    const fresh = new Map(unknown.map((s, i) => [s, infos[i]?.size ?? Number.POSITIVE_INFINITY]));
    for (const [s, n] of fresh) this.sizes.set(s, n);
    return files.map((f) => ({ ...f, size: fresh.get(f.sha) ?? this.sizes.get(f.sha) ?? Number.POSITIVE_INFINITY }));
  }
}
