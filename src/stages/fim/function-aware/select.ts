import type { Rng } from '../../../core/random.js';
import type { Span } from '../../../doc/document.js';
import type { RepoFile } from '../../repos/format.js';
import { unitLanguage } from '../spans.js';
import { lineIndent, parsesAlone } from './alone.js';
import { judge, type Verdict } from './criterion.js';
import { buildRepoGraph, type RepoFunction, type RepoGraph } from './graph.js';
import type { FunctionAwareOptions } from './options.js';

/** The selection funnel, per language: functions seen, rejected by reason, candidates, selected. */
export interface FunctionAwareStats {
  /** Repositories (documents or groups of file rows) whose graph was built. */
  graphs: number;
  /** Documents for which a function was looked for, and those with no candidate (passed through). */
  documents: number;
  no_candidate: number;
  files_not_parsed: number;
  files_with_errors: number;
  /** Call sites by resolution, over the graphs built. */
  calls: Record<string, number>;
  languages: Record<string, { functions: number; rejected: Record<string, number>; candidates: number; selected: number }>;
  /** Groups of file rows cut short by `repoGroupChars` (their graph misses the rest of the repository). */
  repo_groups_split: number;
}

export function newFunctionAwareStats(): FunctionAwareStats {
  return { graphs: 0, documents: 0, no_candidate: 0, files_not_parsed: 0, files_with_errors: 0, calls: {}, languages: {}, repo_groups_split: 0 };
}

/** One repository's files, with its graph built at most once (file rows of a repository share it). */
export interface RepoContext {
  repo: string;
  files: RepoFile[];
  graph?: RepoGraph;
  /** Built with the graph: each file's functions, contents and size in the context. */
  byFile?: Map<string, RepoFunction[]>;
  contents?: Map<string, string>;
  fileChars?: Map<string, number>;
}

export interface FunctionChoice {
  target: RepoFile;
  /** The files placed before the target: caller files first, then the others, within the budget. */
  context: RepoFile[];
  span: Span;
  meta: Record<string, unknown>;
}

function graphOf(repo: RepoContext, maxFileChars: number, stats: FunctionAwareStats): RepoGraph {
  if (repo.graph) return repo.graph;
  const g = buildRepoGraph(repo.files, maxFileChars);
  repo.byFile = new Map();
  for (const fn of g.functions) repo.byFile.set(fn.file, [...(repo.byFile.get(fn.file) ?? []), fn]);
  repo.contents = new Map(repo.files.map((f) => [f.path, f.content]));
  repo.fileChars = new Map(repo.files.map((f) => [f.path, f.path.length + f.content.length + 2]));
  stats.graphs++;
  stats.files_not_parsed += g.notParsed;
  stats.files_with_errors += g.withErrors;
  for (const [k, n] of Object.entries(g.resolution)) stats.calls[k] = (stats.calls[k] ?? 0) + n;
  return (repo.graph = g);
}

function middleSpan(fn: RepoFunction, o: FunctionAwareOptions): Span {
  return o.middle === 'body' ? [fn.bodyFrom, fn.bodyTo] : [fn.from, fn.to];
}

/** The double criterion, then the middle parsed alone: a middle that does not parse alone is a parse_error. */
function verdictOf(fn: RepoFunction, graph: RepoGraph, source: string, fileChars: Map<string, number>, o: FunctionAwareOptions): Verdict {
  const v = judge(fn, graph, source, fileChars, o);
  if (!v.ok) return v;
  const [a, b] = middleSpan(fn, o);
  const lang = unitLanguage(fn.file)!;
  return parsesAlone(source.slice(a, b), lang === 'python' ? lineIndent(source, a) : '', lang, fn.alone, o.middle) ? v : { ok: false, reason: 'parse_error' };
}

/**
 * Picks the function to mask: every function (of `onlyFile`, for a file row) is judged, the
 * funnel counted, and one candidate drawn with `rng`. Undefined when there is none. Code files
 * over `maxFileChars` are not parsed (the stage's `unitMaxChars`, as for unit spans).
 */
export function chooseFunction(repo: RepoContext, onlyFile: string | undefined, rng: Rng, o: FunctionAwareOptions, maxFileChars: number, stats: FunctionAwareStats): FunctionChoice | undefined {
  const graph = graphOf(repo, maxFileChars, stats);
  const contents = repo.contents!;
  const fileChars = repo.fileChars!;
  stats.documents++;
  const passing: { fn: RepoFunction; v: Extract<Verdict, { ok: true }> }[] = [];
  for (const fn of onlyFile === undefined ? graph.functions : (repo.byFile!.get(onlyFile) ?? [])) {
    const lang = (stats.languages[fn.language] ??= { functions: 0, rejected: {}, candidates: 0, selected: 0 });
    lang.functions++;
    const v = verdictOf(fn, graph, contents.get(fn.file)!, fileChars, o);
    if (!v.ok) lang.rejected[v.reason] = (lang.rejected[v.reason] ?? 0) + 1;
    else {
      lang.candidates++;
      passing.push({ fn, v });
    }
  }
  if (passing.length === 0) {
    stats.no_candidate++;
    return undefined;
  }
  const { fn, v } = passing[rng.int(0, passing.length)]!;
  stats.languages[fn.language]!.selected++;
  const { context, dropped, callerFilesShown } = contextFiles(repo.files, fn.file, v.inferability.caller_files.map((f) => f.path), o.contextChars);
  const source = contents.get(fn.file)!;
  const firstLine = countLines(source, 0, fn.from);
  const meta = {
    name: fn.name,
    qualified_name: fn.qualifiedName,
    kind: fn.kind,
    ...(fn.className !== undefined ? { class: fn.className } : {}),
    file: fn.file,
    language: fn.language,
    lines: [firstLine, firstLine + v.complexity.lines - 1],
    middle: o.middle,
    complexity: v.complexity,
    inferability: v.inferability,
    thresholds: { min_statements: o.minStatements, min_cyclomatic: o.minCyclomatic, max_lines: o.maxLines, min_callers: o.minCallers, min_inferability: o.minInferability },
    context: { files: context.length, caller_files: callerFilesShown, dropped_files: dropped, budget_chars: o.contextChars },
  };
  return { target: { path: fn.file, content: source }, context, span: middleSpan(fn, o), meta };
}

function countLines(text: string, from: number, to: number): number {
  let n = 1;
  for (let at = text.indexOf('\n', from); at >= 0 && at < to; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/** Caller files (most calls first), then the other files in their order, while they fit the budget. */
function contextFiles(files: readonly RepoFile[], target: string, callerPaths: string[], budget: number): { context: RepoFile[]; dropped: number; callerFilesShown: number } {
  const byPath = new Map(files.map((f) => [f.path, f]));
  // A caller file that fits the budget alone goes first, so at least one call site is shown.
  const fits = (f: RepoFile) => f.path.length + f.content.length + 2 <= budget;
  const ranked = callerPaths.filter((p) => p !== target).map((p) => byPath.get(p)!);
  const callers = [...ranked.filter(fits), ...ranked.filter((f) => !fits(f))];
  const callerSet = new Set(callers.map((f) => f.path));
  const rest = files.filter((f) => f.path !== target && !callerSet.has(f.path));
  const context: RepoFile[] = [];
  let used = 0;
  let dropped = 0;
  let callerFilesShown = 0;
  for (const f of [...callers, ...rest]) {
    const size = f.path.length + f.content.length + 2;
    if (used + size > budget) {
      dropped++;
      continue;
    }
    used += size;
    context.push(f);
    if (callerSet.has(f.path)) callerFilesShown++;
  }
  return { context, dropped, callerFilesShown };
}
