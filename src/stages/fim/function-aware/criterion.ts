import type { CallerRef, RepoFunction, RepoGraph } from './graph.js';
import type { FunctionAwareOptions } from './options.js';

/**
 * The complexity-inferability double criterion. A function is a candidate when
 * - complexity: it is not trivial (at least `minStatements` statements, or cyclomatic
 *   complexity at least `minCyclomatic`) and not unbounded (at most `maxLines` lines);
 * - inferability: at least `minCallers` call sites outside its own body resolve to it, and
 *   its inferability score (call sites + one point each for a docstring, type annotations,
 *   and a caller in a test file) is at least `minInferability`;
 * - its callers can be shown: a caller in its own file, or a caller file within `contextChars`.
 * A function failing one of them is counted under the first reason that applies, in this order.
 */
export const REJECT_REASONS = ['parse_error', 'too_simple', 'too_complex', 'no_callers', 'unresolved', 'weak_evidence', 'context_budget'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

export interface Complexity {
  statements: number;
  cyclomatic: number;
  lines: number;
}

export interface Inferability {
  call_sites: number;
  caller_files: { path: string; calls: number }[];
  docstring: boolean;
  annotated: boolean;
  tested: boolean;
  score: number;
  resolution: Record<string, number>;
}

export type Verdict = { ok: true; complexity: Complexity; inferability: Inferability } | { ok: false; reason: RejectReason };

const TEST_FILE = /(^|\/)(tests?|__tests__|spec)\/|(^|\/)(test_[^/]*|[^/]*_test\.py|[^/]*\.(test|spec)\.[cm]?[jt]sx?|conftest\.py)$/;

export function isTestFile(path: string): boolean {
  return TEST_FILE.test(path);
}

export function complexityOf(fn: RepoFunction, source: string): Complexity {
  let lines = 1;
  for (let at = source.indexOf('\n', fn.from); at >= 0 && at < fn.to; at = source.indexOf('\n', at + 1)) lines++;
  return { statements: fn.statements, cyclomatic: fn.cyclomatic, lines };
}

function inferabilityOf(fn: RepoFunction, callers: readonly CallerRef[]): Inferability {
  const byFile = new Map<string, number>();
  const resolution: Record<string, number> = {};
  for (const c of callers) {
    byFile.set(c.file, (byFile.get(c.file) ?? 0) + 1);
    resolution[c.resolution] = (resolution[c.resolution] ?? 0) + 1;
  }
  const caller_files = [...byFile].map(([path, calls]) => ({ path, calls })).sort((a, b) => b.calls - a.calls || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const tested = caller_files.some((f) => isTestFile(f.path));
  const score = callers.length + Number(fn.docstring) + Number(fn.annotated) + Number(tested);
  return { call_sites: callers.length, caller_files, docstring: fn.docstring, annotated: fn.annotated, tested, score, resolution };
}

/** The verdict on one function; `fileChars` gives each file's size as it would sit in the context. */
export function judge(fn: RepoFunction, graph: RepoGraph, source: string, fileChars: ReadonlyMap<string, number>, o: FunctionAwareOptions): Verdict {
  if (fn.hasError) return { ok: false, reason: 'parse_error' };
  const complexity = complexityOf(fn, source);
  if (complexity.statements < o.minStatements && complexity.cyclomatic < o.minCyclomatic) return { ok: false, reason: 'too_simple' };
  if (complexity.lines > o.maxLines) return { ok: false, reason: 'too_complex' };
  const callers = graph.callers[fn.id]!;
  if (callers.length < o.minCallers || callers.length === 0) {
    return { ok: false, reason: graph.unresolvedNames.has(fn.name) ? 'unresolved' : 'no_callers' };
  }
  const inferability = inferabilityOf(fn, callers);
  if (inferability.score < o.minInferability) return { ok: false, reason: 'weak_evidence' };
  const shown = inferability.caller_files.some((f) => f.path === fn.file || (fileChars.get(f.path) ?? Infinity) <= o.contextChars);
  if (!shown) return { ok: false, reason: 'context_budget' };
  return { ok: true, complexity, inferability };
}
