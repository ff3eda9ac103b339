import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import type { Rng } from '../../core/random.js';
import type { RepoFile } from '../repos/format.js';
import { decodeText } from '../fim/text.js';
import { CatFile, git } from './git.js';
import { rankBm25, type Bm25Doc } from './retrieve.js';
import { termCounts, type TermCounts } from './bm25-terms.js';
import { DEFAULT_CONTEXT_CACHE_MB, ENTRY_BYTES, threadContentCache, type ContentCache } from './content-cache.js';
import { readTexts } from './blob-texts.js';
import { TreeFiles } from './tree-files.js';
import { countWithin } from './token-count.js';

/** Blobs read at once when a tree is indexed for retrieval (their texts are held until indexed). */
const INDEX_BATCH = 256;
/** Ranked files read at once while looking for retrieved files that fit the budget. */
const FIT_BATCH = 8;
/** Chunks this long or longer have their token counts cached by their text's hash. */
const CACHED_CHUNK_CHARS = 4096;

/**
 * The code context of an edit sample, as the Qwen3-Coder report builds it: the files the change
 * touches (at the base commit), then the `retrieve` files whose text best matches the description
 * (BM25, retrieve.ts), then `related` random files of the same tree as noise (same folders
 * first). Touched files always go in; the others go in, best first, while the context stays
 * within `contextTokens` tokens of the packing tokenizer (0: no limit), and the ones that do not
 * fit are counted. The files kept are shuffled by the seed. One builder serves a whole run: its
 * caches are keyed by blob id, so many commits of one repository share them.
 */
export type ContextWhy = 'touched' | 'retrieved' | 'related';

export interface ContextOptions {
  retrieve: number;
  related: number;
  /** Budget of the context in tokens of the packing tokenizer; 0 for none. */
  contextTokens: number;
  maxFileBytes: number;
  /**
   * Retrieved and related files are drawn from the tree's files up to this size: a larger one
   * costs its indexing and counting on every commit that changes it, and seldom fits the budget.
   */
  contextFileBytes: number;
  /** The memory of a run's context caches (term counts, token counts, trees), in MB, split over its threads (content-cache.ts). */
  cacheMb: number;
}

export const DEFAULT_CONTEXT_OPTIONS: ContextOptions = { retrieve: 3, related: 2, contextTokens: 32768, maxFileBytes: 256 * 1024, contextFileBytes: 64 * 1024, cacheMb: DEFAULT_CONTEXT_CACHE_MB };

export interface ContextStats {
  /** Files put in a context, by why. */
  files: Record<ContextWhy, number>;
  /** Files chosen but left out because the token budget was spent, by why. */
  left_out: Record<ContextWhy, number>;
  /** Contexts whose touched files alone are over the budget (kept whole: the edit needs them). */
  touched_over_budget: number;
  /** Contexts where BM25 found no file sharing a term with the description. */
  no_retrieval_hit: number;
  /** Instance contexts where BM25 found files but none fits the budget the touched files leave. */
  no_retrieved_fit: number;
  /** Blobs read and indexed for BM25 (the rest came from the cache). */
  /** Tree files scored for retrieval, over all commits (each commit scores its tree; the index of a blob comes from a cache when it can). */
  files_ranked: number;
}

/** The heap a term count holds, about: an entry and the characters of each term. */
function termBytes(terms: TermCounts | null): number {
  let bytes = ENTRY_BYTES;
  if (terms) for (const t of terms.counts.keys()) bytes += ENTRY_BYTES + t.length;
  return bytes;
}

/** How one context is chosen. */
export interface BuildMode {
  /**
   * Retrieved files that fit (pull-request instances): BM25's files are taken best first among
   * those that fit the budget the touched files leave, passing over the ones that do not, up to
   * `retrieve`; the related files get what is left. Without it the top `retrieve` files are taken
   * and the budget is spent in order (history).
   */
  fitRetrieved?: boolean;
}

export interface BuiltContext {
  files: RepoFile[];
  why: { path: string; why: ContextWhy }[];
  leftOut: number;
}

interface TreeEntry {
  path: string;
  sha: string;
}

/** Files' BM25 term counts by blob id (null: not text). */
type TermsOf = Map<string, TermCounts | null>;

/** Trees `warm` keeps what it found for, at most (a history reads 2 commits ahead). */
const WARMED_TREES = 4;

export class ContextBuilder {
  readonly stats: ContextStats = { files: { touched: 0, retrieved: 0, related: 0 }, left_out: { touched: 0, retrieved: 0, related: 0 }, touched_over_budget: 0, no_retrieval_hit: 0, no_retrieved_fit: 0, files_ranked: 0 };
  /**
   * This thread's share of the run's cache budget: blobs' term counts (`t`), paths' term counts
   * (`p`: a path recurs in every commit's tree, its terms need not be split again), files' token
   * counts per counter (`k`), retrieved and related files' texts (`x`), changed files' texts (`b`, readTexts), and TreeFiles' trees and sizes.
   */
  readonly cache: ContentCache;
  private readonly trees = new WeakMap<CatFile, TreeFiles>();
  /** What `warm` found for the trees read ahead, for their `build`: its files less the touched ones, their term counts. */
  private readonly warmed = new Map<string, { touched: string; entries: TreeEntry[]; terms?: TermsOf }>();

  /** `counter` names the token counter (its tokenizer): token counts are cached per counter. */
  constructor(
    readonly options: ContextOptions,
    private readonly countTokens?: (text: string) => number,
    private readonly counter = '',
  ) {
    this.cache = threadContentCache(options.cacheMb);
  }

  /** The context of a change at `tree` (a commit or tree id of the repository at `dir`). */
  async build(dir: string, cat: CatFile, tree: string, touched: readonly (RepoFile & { sha?: string })[], description: string, rng: Rng, mode: BuildMode = {}): Promise<BuiltContext> {
    const o = this.options;
    const touchedPaths = new Set(touched.map((f) => f.path));
    const { entries, terms } = o.retrieve > 0 || o.related > 0 ? await this.candidates(dir, cat, tree, touchedPaths) : { entries: [] };
    const fit = mode.fitRetrieved && o.contextTokens > 0 && this.countTokens !== undefined;
    const { files: retrieved, leftOut } = fit
      ? await this.retrieveFitting(cat, entries, description, o.contextTokens - touched.reduce((s, f) => s + this.tokensOf(f, f.sha, o.contextTokens), 0), terms)
      : { files: await this.retrieve(cat, entries, description, terms), leftOut: 0 };
    const taken = new Set([...touchedPaths, ...retrieved.map((f) => f.path)]);
    const related = await this.related(cat, entries.filter((e) => !taken.has(e.path)), touchedPaths, rng);
    const chosen: { file: RepoFile; why: ContextWhy; sha?: string }[] = [
      ...touched.map((file) => ({ file, why: 'touched' as const, sha: file.sha })),
      ...retrieved.map((f) => ({ file: f, why: 'retrieved' as const, sha: f.sha })),
      ...related.map((f) => ({ file: f, why: 'related' as const, sha: f.sha })),
    ];
    const kept = this.withinBudget(chosen);
    const shuffled = rng.shuffle(kept);
    for (const c of shuffled) this.stats.files[c.why]++;
    return { files: shuffled.map((c) => ({ path: c.file.path, content: c.file.content })), why: shuffled.map((c) => ({ path: c.file.path, why: c.why })), leftOut: chosen.length - kept.length + leftOut };
  }

  /**
   * The tree's regular files within the size limits, in ls-tree's order: through the repository's
   * own cat-file process (TreeFiles caches trees, so a commit re-reads only the folders it changed),
   * or one `ls-tree` when `tree` is not a full object name (TreeFiles walks binary tree entries).
   */
  private async listTree(dir: string, cat: CatFile, tree: string): Promise<TreeEntry[]> {
    const maxBytes = Math.min(this.options.maxFileBytes, this.options.contextFileBytes);
    if (/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(tree)) {
      let trees = this.trees.get(cat);
      if (!trees) this.trees.set(cat, (trees = new TreeFiles(cat, this.cache)));
      return (await trees.list(tree)).filter((f) => f.size <= maxBytes).map((f) => ({ path: f.path, sha: f.sha }));
    }
    const out = (await git(dir, ['ls-tree', '-r', '-z', '--long', tree])).toString('utf8').split('\0');
    const entries: TreeEntry[] = [];
    for (const line of out) {
      const m = /^100(?:644|755) blob ([0-9a-f]+) +(\d+)\t(.*)$/s.exec(line);
      if (m && Number(m[2]) <= maxBytes) entries.push({ path: m[3]!, sha: m[1]! });
    }
    return entries;
  }

  private pathTerms(path: string): TermCounts {
    let terms = this.cache.get<TermCounts>(`p\0${path}`);
    if (!terms) this.cache.set(`p\0${path}`, (terms = termCounts(path)), termBytes(terms));
    return terms;
  }

  /** The BM25 best `retrieve` files for the description, read from the tree. */
  private async retrieve(cat: CatFile, entries: readonly TreeEntry[], description: string, terms?: TermsOf): Promise<(RepoFile & { sha: string })[]> {
    return this.readFiles(cat, await this.rank(cat, entries, description, this.options.retrieve, terms));
  }

  /**
   * The best `retrieve` files by BM25 among those that fit in `room` tokens together, best first:
   * a file that does not fit in what is left is passed over, so a large best match does not leave
   * the context to the noise. Files are read in rank order, a batch at a time; one whose token
   * count is cached and too large is passed over unread. `leftOut` counts the top `retrieve`
   * files not taken, as the budget in order would count them.
   */
  private async retrieveFitting(cat: CatFile, entries: readonly TreeEntry[], description: string, room: number, terms?: TermsOf): Promise<{ files: (RepoFile & { sha: string })[]; leftOut: number }> {
    const n = this.options.retrieve;
    const ranked = await this.rank(cat, entries, description, Number.POSITIVE_INFINITY, terms);
    const files: (RepoFile & { sha: string })[] = [];
    // A file costs at least its path line and separators (3 tokens): with less room none fits.
    for (let at = room >= 3 ? 0 : ranked.length; files.length < n && at < ranked.length; ) {
      const batch = ranked.slice(at, (at += FIT_BATCH)).filter((e) => Math.abs(this.cache.get<number>(this.tokensKey(e.sha, e.path)) ?? 0) <= room);
      for (const f of await this.readFiles(cat, batch)) {
        const cost = this.tokensOf(f, f.sha, room);
        if (files.length === n || cost > room) continue;
        files.push(f);
        room -= cost;
      }
    }
    const taken = new Set(files.map((f) => f.path));
    const leftOut = ranked.slice(0, n).filter((e) => !taken.has(e.path)).length;
    this.stats.left_out.retrieved += leftOut;
    if (ranked.length > 0 && files.length === 0) this.stats.no_retrieved_fit++;
    return { files, leftOut };
  }

  /**
   * Reads a change's tree ahead of its turn (history reads the next commits while this one
   * becomes samples): its listing and, for retrieval, the term counts of its files go into the
   * cache, so `build` finds them there. The same files `build` lists and indexes; no figure changes.
   */
  async warm(dir: string, cat: CatFile, tree: string, touchedPaths: ReadonlySet<string>): Promise<void> {
    const o = this.options;
    if (o.retrieve <= 0 && o.related <= 0) return;
    const entries = (await this.listTree(dir, cat, tree)).filter((e) => !touchedPaths.has(e.path));
    const terms = o.retrieve > 0 && entries.length > 0 ? await this.termCountsOf(cat, entries) : undefined;
    this.warmed.set(tree, { touched: [...touchedPaths].join('\0'), entries, terms });
    for (const key of this.warmed.keys()) if (this.warmed.size > WARMED_TREES) this.warmed.delete(key);
  }

  /** The tree's candidate files (less the touched ones), and their term counts when `warm` found them already. */
  private async candidates(dir: string, cat: CatFile, tree: string, touchedPaths: ReadonlySet<string>): Promise<{ entries: TreeEntry[]; terms?: TermsOf }> {
    const w = this.warmed.get(tree);
    this.warmed.delete(tree);
    if (w && w.touched === [...touchedPaths].join('\0')) return w;
    return { entries: (await this.listTree(dir, cat, tree)).filter((e) => !touchedPaths.has(e.path)) };
  }

  /** The tree's entries with the `n` highest BM25 scores for the description (score > 0), best first. */
  private async rank(cat: CatFile, entries: readonly TreeEntry[], description: string, n: number, terms?: TermsOf): Promise<TreeEntry[]> {
    if (n <= 0 || entries.length === 0) return [];
    const known = terms ?? (await this.termCountsOf(cat, entries));
    const docs: Bm25Doc<TreeEntry>[] = [];
    for (const e of entries) {
      const terms = known.get(e.sha)!;
      this.stats.files_ranked++;
      // The path is part of the document (SWE-bench's retrieval indexes it with the content).
      if (terms) docs.push({ item: e, terms, pathTerms: this.pathTerms(e.path) });
    }
    const best = rankBm25(description, docs, n);
    if (best.length === 0) this.stats.no_retrieval_hit++;
    return best.map((b) => b.item);
  }

  /** The entries' term counts by blob id (null: not text). */
  private async termCountsOf(cat: CatFile, entries: readonly TreeEntry[]): Promise<TermsOf> {
    // The tree's term counts from the cache first (indexing the others may evict some), then the
    // blobs not indexed yet, read in batches: a round trip per batch, not per blob (a cold cache indexes a whole tree).
    const known = new Map<string, TermCounts | null>();
    const missing: string[] = [];
    for (const e of entries) {
      if (known.has(e.sha)) continue;
      const terms = this.cache.get<TermCounts | null>(`t\0${e.sha}`);
      if (terms === undefined) missing.push(e.sha);
      known.set(e.sha, terms ?? null);
    }
    for (let i = 0; i < missing.length; i += INDEX_BATCH) {
      for (const [sha, t] of await readTexts(cat, missing.slice(i, i + INDEX_BATCH), Number.POSITIVE_INFINITY)) {
        const terms = 'text' in t ? termCounts(t.text) : null;
        known.set(sha, terms);
        this.cache.set(`t\0${sha}`, terms, termBytes(terms));
      }
    }
    return known;
  }

  /**
   * The entries that are text, with their contents: from the cache, the others read in one
   * request. A history's commits retrieve the same few files again and again (go-readability:
   * 732 reads of 204 blobs, 13.5 MB read for 3.1 MB of texts), so their texts are cached like
   * their term counts (`x`: the text, or null when the blob is not text).
   */
  private async readFiles(cat: CatFile, entries: readonly TreeEntry[]): Promise<(RepoFile & { sha: string })[]> {
    const texts = new Map<string, string | null>();
    const missing: string[] = [];
    for (const e of entries) {
      const text = this.cache.get<string | null>(`x\0${e.sha}`);
      // Paths with the same content (an empty __init__.py, a copied fixture) share a blob: read once.
      if (text === undefined) {
        if (!texts.has(e.sha)) missing.push(e.sha);
        texts.set(e.sha, null);
      } else texts.set(e.sha, text);
    }
    const bodies = await cat.contentsMany(missing);
    missing.forEach((sha, i) => {
      const text = (bodies[i] && decodeText(bodies[i])) ?? null;
      texts.set(sha, text);
      this.cache.set(`x\0${sha}`, text, 2 * (text?.length ?? 0));
    });
    const out: (RepoFile & { sha: string })[] = [];
    for (const e of entries) {
      const text = texts.get(e.sha)!;
      if (text !== null) out.push({ path: e.path, content: text, sha: e.sha });
    }
    return out;
  }

  /** `related` text files drawn by the seed, those in a touched file's folder first. */
  private async related(cat: CatFile, entries: readonly TreeEntry[], touched: ReadonlySet<string>, rng: Rng): Promise<(RepoFile & { sha: string })[]> {
    const n = this.options.related;
    if (n <= 0) return [];
    const folders = new Set([...touched].map((p) => dirname(p)));
    const near = entries.filter((e) => folders.has(dirname(e.path)));
    const far = entries.filter((e) => !folders.has(dirname(e.path)));
    const picked: (RepoFile & { sha: string })[] = [];
    // In draw order, as many at a time as are still wanted (a binary one is passed over).
    const pool = [...rng.shuffle(near), ...rng.shuffle(far)];
    for (let at = 0; picked.length < n && at < pool.length; ) {
      const batch = pool.slice(at, (at += n - picked.length));
      picked.push(...(await this.readFiles(cat, batch)));
    }
    return picked;
  }

  /**
   * Touched files always; then the others in order while the token budget lasts. A file is
   * counted only as far as the budget left needs (countWithin): past it, the exact count changes
   * nothing (touched files go in anyway, another file is left out).
   */
  private withinBudget<T extends { file: RepoFile; why: ContextWhy; sha?: string }>(chosen: readonly T[]): T[] {
    const budget = this.options.contextTokens;
    if (budget <= 0 || !this.countTokens) return [...chosen];
    let used = 0;
    const kept: T[] = [];
    for (const [i, c] of chosen.entries()) {
      const cost = this.tokensOf(c.file, c.sha, Math.max(0, budget - used));
      if (c.why === 'touched' || used + cost <= budget) {
        used += cost;
        kept.push(c);
      } else this.stats.left_out[c.why]++;
      // Touched files come first and all go in: after the last of them, `used` is over the budget iff their total is.
      if (c.why === 'touched' && chosen[i + 1]?.why !== 'touched' && used > budget) this.stats.touched_over_budget++;
    }
    return kept;
  }

  /**
   * A chunk's token count, cached by a hash of its text: a large file changed again and again
   * (a test fixture) is mostly the same chunks each time, and its chunks are cut at the same
   * places once a cut falls where it fell before (countChunks).
   */
  private readonly countChunk = (text: string): number => {
    if (text.length < CACHED_CHUNK_CHARS) return this.countTokens!(text);
    const key = `c\0${this.counter}\0${createHash('sha1').update(text).digest('base64')}`;
    let n = this.cache.get<number>(key);
    if (n === undefined) this.cache.set(key, (n = this.countTokens!(text)), 0);
    return n;
  };

  /** The cache key of a file's token count: by blob, path (it is part of the text) and counter. */
  private tokensKey(sha: string, path: string): string {
    return `k\0${this.counter}\0${sha}\0${path}`;
  }

  /**
   * A file's tokens in the repository format (its path line and its content) when at most
   * `limit`, else some count over it. Cached by blob: a whole count as it is; a count cut past a
   * budget negated, as a lower bound (the chunks counted so far), so the same large file met
   * again with no more room is passed over without counting it again.
   */
  private tokensOf(file: RepoFile, sha: string | undefined, limit: number): number {
    const key = sha && this.tokensKey(sha, file.path);
    const cached = key ? this.cache.get<number>(key) : undefined;
    if (cached !== undefined && (cached >= 0 || -cached > limit)) return Math.abs(cached);
    const n = countWithin(this.countChunk, `${file.path}\n${file.content}`, limit - 2) + 2;
    if (key) this.cache.set(key, n <= limit ? n : -n, 0);
    return n;
  }

}
