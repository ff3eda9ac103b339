import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc } from '../../doc/document.js';
import { stableId, Rng } from '../../core/random.js';
import type { Stage, StageContext } from '../../core/stage.js';
import { expandInputs, isJsonl, isParquet } from '../../io/inputs.js';
import { DEFAULT_FILTERS, type FilterOptions } from './filters.js';
import { formatRepoDocument } from './format.js';
import { fileLanguage, OTHER_LANGUAGE } from './languages.js';
import { chooseOrdering, orderFiles, type Ordering, type OrderWeights } from './order.js';
import { groupRows, readFileRows, type FileRow } from './rows.js';
import { dropped, isGitCheckout, judgeText, readFolderRepo, readGitRepoOrFailure, type FileVerdict, type RepoCandidate } from './sources.js';
import { directoryTree } from './tree.js';
import { DEFAULT_MAX_DOC_CHARS, planParts } from './parts.js';

/**
 * The repository serialization stage: a source of `repo` documents (its inputs are
 * folders and file rows, not documents).
 *
 * Ledger unit: the file. Every file seen (on disk, at HEAD, or as a row) is either in a
 * document (`records_out`) or dropped under a reason; a repository with too few kept files
 * drops those files as `too_few_files`. `produced.repos` counts the documents.
 */
export interface SerializeOptions extends FilterOptions {
  order: OrderWeights;
  /** Repositories with fewer kept files are dropped (their files counted as `too_few_files`). */
  minFiles: number;
  /** `auto`: a git checkout or a folder with files at its top is one repository; a folder of folders holds repositories. */
  layout: 'auto' | 'repo' | 'collection';
  /** Memory for grouping file rows by repository before spilling to disk (bytes). */
  groupMemoryBytes: number;
  /** Share of repositories whose header also lists the directory tree (seeded per repository). */
  treeRate: number;
  /** Where row grouping may spill (default: the context's workDir, else the system temp folder). */
  workDir?: string;
  /** Counts tokens per ordering and language in the stats (loads the tokenizer). */
  countTokens?: (doc: Doc) => number;
  /**
   * A repository whose document would be longer than this many characters is written as
   * several documents (parts), cut at file boundaries in the chosen order (see parts.ts).
   */
  maxDocChars: number;
}

export const DEFAULT_SERIALIZE: SerializeOptions = {
  ...DEFAULT_FILTERS,
  order: { alpha: 0.3, dependency: 0.5, random: 0.2 },
  minFiles: 1,
  layout: 'auto',
  groupMemoryBytes: 512 << 20,
  treeRate: 0,
  maxDocChars: DEFAULT_MAX_DOC_CHARS,
};

/** Folders that hold one repository each, from one input folder. */
export function repositoryFolders(dir: string, layout: SerializeOptions['layout']): string[] {
  if (layout === 'repo' || (layout === 'auto' && isGitCheckout(dir))) return [dir];
  const entries = readdirSync(dir, { withFileTypes: true }).filter((e) => !e.name.startsWith('.'));
  const hasFiles = entries.some((e) => !e.isDirectory());
  if (layout === 'auto' && (hasFiles || entries.length === 0)) return [dir];
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => join(dir, name));
}

interface RepoStats {
  repos: number;
  repos_too_few_files: number;
  by_ordering: Record<string, { documents: number; files: number; chars: number; tokens?: number }>;
  by_language: Record<string, { documents: number; files: number; bytes: number; tokens?: number }>;
}

export async function* serializeRepos(inputs: string[], options: Partial<SerializeOptions>, ctx: StageContext): AsyncIterable<Doc> {
  const opts: SerializeOptions = { ...DEFAULT_SERIALIZE, ...options };
  const stats: RepoStats = { repos: 0, repos_too_few_files: 0, by_ordering: {}, by_language: {} };
  ctx.stats.serialize_repos = stats;
  const rowFiles: string[] = [];
  for (const input of inputs) {
    const st = statSync(input, { throwIfNoEntry: false });
    if (!st) throw new Error(`input not found: ${input}`);
    if (!st.isDirectory()) {
      if (!isJsonl(input) && !isParquet(input)) throw new Error(`${input}: not a folder, a .jsonl(.gz/.zst) or a .parquet file of file rows`);
      // Ranks split row files by file: rows of one repository may sit anywhere in a file.
      if (!ctx.owns || ctx.owns(`rows:${input}`)) rowFiles.push(input);
      continue;
    }
    const folders = repositoryFolders(input, opts.layout);
    if (folders.length !== 1 || folders[0] !== input) countLooseFiles(input, ctx);
    for (const dir of folders) {
      if (ctx.owns && !ctx.owns(`repo:${dir}`)) continue; // another rank's repository
      const candidate = isGitCheckout(dir) ? await readGitRepoOrFailure(dir, opts) : readFolderRepo(dir, opts);
      yield* repoDocuments(candidate, opts, ctx, stats);
    }
  }
  if (rowFiles.length === 0) return;
  const files = expandInputs(rowFiles, () => true);
  async function* allRows(): AsyncIterable<FileRow> {
    for (const f of files) yield* readFileRows(f, ctx.ledger, isParquet(f));
  }
  for await (const group of groupRows(allRows(), { memoryBytes: opts.groupMemoryBytes, workDir: opts.workDir ?? ctx.workDir, log: ctx.log })) {
    yield* repoDocuments(rowsToCandidate(group.repo, group.rows, opts), opts, ctx, stats);
  }
}

/** Files directly inside a folder of repositories belong to none of them: counted, not lost. */
function countLooseFiles(dir: string, ctx: StageContext): void {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.isDirectory() || e.name.startsWith('.')) continue;
    if (ctx.owns && !ctx.owns(`file:${join(dir, e.name)}`)) continue;
    ctx.ledger.input();
    ctx.ledger.drop('not_in_a_repository', `${join(dir, e.name)}: a file beside the repositories of ${dir}, in none of them`);
  }
}

/** A repository's rows as file verdicts; a path seen twice keeps its first row. */
export function rowsToCandidate(repo: string, rows: FileRow[], opts: FilterOptions): RepoCandidate {
  const seen = new Set<string>();
  const files: FileVerdict[] = rows.map((r) => {
    if (seen.has(r.path)) return dropped(r.path, 'duplicate_path', `${r.where}: ${r.path}: a second row for the same path of ${repo}`);
    seen.add(r.path);
    if (r.content === null) return dropped(r.path, 'invalid_utf8', `${r.where}: ${r.path}: content is not valid UTF-8`);
    return judgeText(r.path, r.content, opts, r.where);
  });
  return { repo, source: repo, files };
}

/**
 * One repository's documents, with the accounting of every file: one document, or, when it
 * would pass `maxDocChars`, its parts in order. Each part is built only when the consumer asks
 * for it, so a stage downstream never holds more than one part. Nothing when it is dropped.
 */
export function* repoDocuments(candidate: RepoCandidate, opts: SerializeOptions, ctx: StageContext, stats: RepoStats): Generator<Doc> {
  const { ledger } = ctx;
  const repo = candidate.repo.replace(/[\n\r]/g, ' ');
  ledger.input(candidate.files.length);
  const kept: { path: string; content: string; bytes: number }[] = [];
  for (const f of candidate.files) {
    if (f.reason === undefined) kept.push(f);
    else ledger.drop(f.reason, f.message);
  }
  if (kept.length === 0 && candidate.files.length === 0) {
    ledger.input();
    ledger.drop('no_files', `${candidate.source}: no files (nothing tracked or readable in the repository)`);
    return;
  }
  if (kept.length < opts.minFiles) {
    stats.repos_too_few_files++;
    if (kept.length) ledger.drop('too_few_files', `${candidate.source}: ${kept.length} kept files, fewer than --min-files ${opts.minFiles}`, kept.length);
    return;
  }
  const { ordering, ordered, withTree, format, parts } = drawLayout(repo, kept, opts, ctx);
  const languages = languageMix(kept);
  const language = mainLanguage(languages);
  ledger.output(kept.length);
  ledger.produce('repos');
  stats.repos++;
  if (parts.length > 1) ledger.produce('repo_parts', parts.length);
  for (let p = 0; p < parts.length; p++) {
    const files = ordered.slice(parts[p]!.from, parts[p]!.to);
    const formatted = formatRepoDocument(repo, files, format);
    const mix = parts.length > 1 ? languageMix(files) : languages;
    const doc: Doc = {
      // A single part keeps the repository's own id; parts are told apart by their number.
      id: parts.length > 1 ? stableId(ctx.seed, 'repo', repo, `part-${p + 1}`) : stableId(ctx.seed, 'repo', repo),
      kind: 'repo',
      source: repo,
      text: formatted.text,
      meta: {
        repo,
        ordering,
        files: files.length,
        bytes: files.reduce((s, f) => s + f.bytes, 0),
        language,
        languages: Object.fromEntries(Object.entries(mix).map(([k, v]) => [k, v.files])),
        ...(withTree ? { tree: true } : {}),
        ...(parts.length > 1 ? { part: p + 1, parts: parts.length } : {}),
        boundaries: formatted.boundaries,
      },
      special_spans: formatted.special_spans,
    };
    recordStats(stats, doc, ordering, mix, language, opts.countTokens?.(doc));
    yield doc;
  }
}

/**
 * The seeded choices of a repository's document: file ordering, directory tree, and the parts
 * they give. Repeat N of a mixture (`ctx.repeat`) draws them afresh from the seed and N, unless
 * that changes the number of parts: part ids name the mixture's units, so those stay the first use's.
 */
function drawLayout<F extends { path: string; content: string }>(repo: string, kept: readonly F[], opts: SerializeOptions, ctx: StageContext) {
  const draw = (key: string) => {
    const ordering = chooseOrdering(opts.order, ctx.seed, key);
    const ordered = orderFiles(ordering, kept, ctx.seed, key);
    const withTree = opts.treeRate > 0 && new Rng(ctx.seed, 'repo-tree', key).next() < opts.treeRate;
    const format = withTree ? { tree: directoryTree(ordered.map((f) => f.path)) } : {};
    return { ordering, ordered, withTree, format, parts: planParts(repo, ordered, opts.maxDocChars, format.tree) };
  };
  const first = draw(repo);
  if (!ctx.repeat) return first;
  const again = draw(`${repo}#r${ctx.repeat}`);
  return again.parts.length === first.parts.length ? again : first;
}

type LanguageMix = Record<string, { files: number; bytes: number }>;

/** Files and bytes by Linguist language (the content resolves shebangs and shared extensions). */
export function languageMix(files: readonly { path: string; bytes: number; content?: string }[]): LanguageMix {
  const mix: LanguageMix = {};
  for (const f of files) {
    const m = (mix[fileLanguage(f)] ??= { files: 0, bytes: 0 });
    m.files++;
    m.bytes += f.bytes;
  }
  return Object.fromEntries(Object.entries(mix).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The language with the most bytes (ties alphabetical): how the report files a repository. */
export function mainLanguage(mix: LanguageMix): string {
  let best = OTHER_LANGUAGE;
  let most = -1;
  for (const [lang, { bytes }] of Object.entries(mix)) if (bytes > most) [best, most] = [lang, bytes];
  return best;
}

/** Figures of one document (a repository, or one part of it, filed under the repository's main language). */
function recordStats(stats: RepoStats, doc: Doc, ordering: Ordering, mix: LanguageMix, main: string, tokens: number | undefined): void {
  const o = (stats.by_ordering[ordering] ??= { documents: 0, files: 0, chars: 0 });
  o.documents++;
  o.files += doc.meta.files as number;
  o.chars += doc.text.length;
  if (tokens !== undefined) o.tokens = (o.tokens ?? 0) + tokens;
  for (const [lang, m] of Object.entries(mix)) {
    const l = (stats.by_language[lang] ??= { documents: 0, files: 0, bytes: 0 });
    l.files += m.files;
    l.bytes += m.bytes;
    if (lang === main) {
      l.documents++;
      if (tokens !== undefined) l.tokens = (l.tokens ?? 0) + tokens;
    }
  }
}

/**
 * The stage inside a pipeline (`midpack run`): documents from upstream pass through
 * unchanged, then the repositories of `inputs` follow.
 */
export function serializeReposStage(inputs: string[], options: Partial<SerializeOptions> = {}): Stage {
  return async function* (docs, ctx) {
    yield* docs;
    yield* serializeRepos(inputs, options, ctx);
  };
}
