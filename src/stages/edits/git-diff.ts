import { structuredPatch } from 'diff';
import { splitLines } from '../fim/text.js';
import type { Region } from '../fim/search-replace.js';

/**
 * Unified diffs in git's format (`diff --git`, `new file mode`, `rename from` ...): git's own
 * patch of a file when history gave one (`FileChange.diff`, see git-patches.ts), otherwise made
 * in-process with jsdiff under a stated bound (DIFF_MAX_EDIT_LENGTH); and an in-process applier
 * that is the fast first check of every diff (samples are also checked by real
 * `git apply --check`, see git-apply.ts).
 */
export interface FileChange {
  /** null for an added file. */
  oldPath: string | null;
  /** null for a deleted file. */
  newPath: string | null;
  before: string | null;
  after: string | null;
  /** Git's patch of this file (header and hunks, paths under a/ and b/), when history gave one. */
  diff?: string;
  /** The before-file as a blob of a repository (history), for `git apply --check` against an index. */
  blob?: { repo: string; sha: string; mode: string };
}

export const CONTEXT_LINES = 3;

/**
 * The bound on jsdiff's work where git has no history to diff (before/after rows): at most this
 * many inserted plus deleted lines. Myers' algorithm costs O((N+M)·D), so a row past it would
 * take seconds to minutes; it is dropped by reason (`diff_over_bound`) instead.
 */
export const DIFF_MAX_EDIT_LENGTH = 2000;

export class DiffOverBoundError extends Error {
  readonly reason = 'diff_over_bound';
}

/** Git's C-style quoting for paths with characters a diff header cannot hold bare. */
export function quotePath(path: string): string {
  if (!/["\\\x00-\x1f\x7f]/.test(path)) return path;
  const esc: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r' };
  return '"' + path.replace(/["\\\x00-\x1f\x7f]/g, (c) => esc[c] ?? '\\' + c.charCodeAt(0).toString(8).padStart(3, '0')) + '"';
}

function unquotePath(s: string): string {
  if (!s.startsWith('"')) return s;
  return s.slice(1, -1).replace(/\\([0-7]{3}|.)/g, (_m, c: string) => {
    if (/^[0-7]{3}$/.test(c)) return String.fromCharCode(parseInt(c, 8));
    return ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[c] ?? c;
  });
}

const side = (prefix: string, p: string) => quotePath(prefix + p);

/** A `---`/`+++` name: git ends one holding a space with a TAB, so `git apply` reads it whole. */
const fileLine = (prefix: string, p: string) => {
  const name = side(prefix, p);
  return !name.startsWith('"') && name.includes(' ') ? `${name}\t` : name;
};

/**
 * The two names of a `diff --git` line. Git leaves a name with spaces unquoted
 * (`diff --git a/sp ace.py b/sp ace.py`): equal names split in the middle; for a rename the
 * `rename from`/`rename to` lines that follow give the names.
 */
function headerNames(line: string): [string, string] | undefined {
  const m = /^diff --git ("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)\n?$/.exec(line);
  if (m) return [m[1]!, m[2]!];
  const rest = line.replace(/\n$/, '').slice('diff --git '.length);
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === ' ' && rest.slice(0, half).slice(2) === rest.slice(half + 1).slice(2)) return [rest.slice(0, half), rest.slice(half + 1)];
  const cut = rest.lastIndexOf(' b/');
  return cut > 0 ? [rest.slice(0, cut), rest.slice(cut + 1)] : undefined;
}

const range = (start: number, count: number) => {
  const s = count === 0 ? start - 1 : start; // git names the line before an empty range
  return count === 1 ? `${s}` : `${s},${count}`;
};

/**
 * One file's diff in git's format. `pathPrefix` places the paths under a folder (for batch checks).
 * Git's own patch when the change has one; jsdiff's otherwise (DiffOverBoundError past the bound).
 */
export function fileDiff(c: FileChange, pathPrefix = ''): string {
  if (c.diff !== undefined) return pathPrefix ? withPathPrefix(c, pathPrefix) : c.diff;
  const oldP = c.oldPath ?? c.newPath!;
  const newP = c.newPath ?? c.oldPath!;
  const out = [`diff --git ${side('a/' + pathPrefix, oldP)} ${side('b/' + pathPrefix, newP)}\n`];
  if (c.oldPath === null) out.push('new file mode 100644\n');
  if (c.newPath === null) out.push('deleted file mode 100644\n');
  if (c.oldPath !== null && c.newPath !== null && c.oldPath !== c.newPath) {
    out.push(`rename from ${quotePath(pathPrefix + c.oldPath)}\n`, `rename to ${quotePath(pathPrefix + c.newPath)}\n`);
  }
  const before = c.before ?? '';
  const after = c.after ?? '';
  if (before === after) return out.join('');
  out.push(`--- ${c.oldPath === null ? '/dev/null' : fileLine('a/' + pathPrefix, oldP)}\n`);
  out.push(`+++ ${c.newPath === null ? '/dev/null' : fileLine('b/' + pathPrefix, newP)}\n`);
  const patch = structuredPatch(oldP, newP, before, after, '', '', { context: CONTEXT_LINES, maxEditLength: DIFF_MAX_EDIT_LENGTH });
  if (!patch) throw new DiffOverBoundError(`${newP}: the diff is over ${DIFF_MAX_EDIT_LENGTH} changed lines`);
  for (const h of patch.hunks) {
    out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@\n`);
    for (const l of h.lines) out.push(l + '\n');
  }
  return out.join('');
}

export function gitDiff(changes: readonly FileChange[], pathPrefix = ''): string {
  return changes.map((c) => fileDiff(c, pathPrefix)).join('');
}

/** Git's patch of a change with its header's paths placed under `pathPrefix`; hunks untouched. */
function withPathPrefix(c: FileChange, pathPrefix: string): string {
  const text = c.diff!;
  const oldP = c.oldPath ?? c.newPath!;
  const newP = c.newPath ?? c.oldPath!;
  const hunks = text.indexOf('\n@@ ');
  const head = (hunks < 0 ? text : text.slice(0, hunks + 1)).split('\n').map((l, i) => {
    if (i === 0) return `diff --git ${side('a/' + pathPrefix, oldP)} ${side('b/' + pathPrefix, newP)}`;
    if (l.startsWith('rename from ')) return `rename from ${quotePath(pathPrefix + oldP)}`;
    if (l.startsWith('rename to ')) return `rename to ${quotePath(pathPrefix + newP)}`;
    if (l.startsWith('--- ') && c.oldPath !== null) return `--- ${fileLine('a/' + pathPrefix, oldP)}`;
    if (l.startsWith('+++ ') && c.newPath !== null) return `+++ ${fileLine('b/' + pathPrefix, newP)}`;
    return l;
  });
  return head.join('\n') + (hunks < 0 ? '' : text.slice(hunks + 1));
}

/** The old and new paths a file's diff header names (`rename from`/`to` where given), or undefined. */
export function fileHeaderNames(headLines: readonly string[]): [string, string] | undefined {
  const names = headLines[0] === undefined ? undefined : headerNames(headLines[0]);
  if (!names) return undefined;
  const strip = (s: string) => unquotePath(s).replace(/^[ab]\//, '');
  let [oldP, newP] = [strip(names[0]), strip(names[1])];
  for (const l of headLines) {
    if (l.startsWith('rename from ')) oldP = unquotePath(l.slice(12));
    else if (l.startsWith('rename to ')) newP = unquotePath(l.slice(10));
  }
  return [oldP, newP];
}

/** The changed regions of a one-file diff: the runs of removed and added lines of its hunks. */
export function regionsOfDiff(diffText: string): Region[] {
  const file = parseGitDiff(diffText)[0];
  const regions: Region[] = [];
  for (const h of file?.hunks ?? []) {
    let o = h.oldLines === 0 ? h.oldStart : h.oldStart - 1;
    let n = h.newLines === 0 ? h.newStart : h.newStart - 1;
    let open: Region | undefined;
    for (const l of h.lines) {
      if (l[0] === ' ') {
        if (open) regions.push(open);
        open = undefined;
        o++;
        n++;
        continue;
      }
      open ??= { os: o, oe: o, ns: n, ne: n };
      if (l[0] === '-') open.oe = ++o;
      else open.ne = ++n;
    }
    if (open) regions.push(open);
  }
  return regions;
}

interface ParsedFile {
  oldPath: string | null;
  newPath: string | null;
  hunks: { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }[];
}

/** Parses a git-format diff (what gitDiff writes, and what git writes for text files). */
export function parseGitDiff(text: string): ParsedFile[] {
  const lines = splitLines(text);
  const files: ParsedFile[] = [];
  let cur: ParsedFile | undefined;
  let i = 0;
  const stripSide = (s: string) => {
    const p = unquotePath(s.replace(/\n$/, ''));
    return p === '/dev/null' ? null : p.replace(/^[ab]\//, '');
  };
  while (i < lines.length) {
    const l = lines[i++]!;
    if (l.startsWith('diff --git ')) {
      const names = headerNames(l);
      if (!names) throw new Error(`diff header not understood: ${l.trimEnd()}`);
      cur = { oldPath: stripSide(names[0]), newPath: stripSide(names[1]), hunks: [] };
      files.push(cur);
    } else if (!cur) {
      throw new Error('diff does not start with "diff --git"');
    } else if (l.startsWith('new file mode')) cur.oldPath = null;
    else if (l.startsWith('deleted file mode')) cur.newPath = null;
    else if (l.startsWith('rename from ')) cur.oldPath = unquotePath(l.slice(12).replace(/\n$/, ''));
    else if (l.startsWith('rename to ')) cur.newPath = unquotePath(l.slice(10).replace(/\n$/, ''));
    else if (l.startsWith('--- ') || l.startsWith('+++ ') || /^(similarity|dissimilarity|index|old mode|new mode)/.test(l)) continue;
    else if (l.startsWith('@@ ')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(l);
      if (!m) throw new Error(`hunk header not understood: ${l.trimEnd()}`);
      const oldLines = m[2] === undefined ? 1 : Number(m[2]);
      const newLines = m[4] === undefined ? 1 : Number(m[4]);
      const hunk = { oldStart: Number(m[1]), oldLines, newStart: Number(m[3]), newLines, lines: [] as string[] };
      let o = 0;
      let n = 0;
      while (i < lines.length && (o < oldLines || n < newLines || lines[i]!.startsWith('\\'))) {
        const h = lines[i++]!;
        if (h.startsWith('\\')) {
          // "\ No newline at end of file": the line before it has no '\n'.
          const prev = hunk.lines.length - 1;
          if (prev >= 0) hunk.lines[prev] = hunk.lines[prev]!.replace(/\n$/, '');
          continue;
        }
        if (h[0] === ' ' || h[0] === '-') o++;
        if (h[0] === ' ' || h[0] === '+') n++;
        if (h[0] !== ' ' && h[0] !== '-' && h[0] !== '+') throw new Error(`bad hunk line: ${h.trimEnd()}`);
        hunk.lines.push(h);
      }
      if (o !== oldLines || n !== newLines) throw new Error('hunk is shorter than its header says');
      cur.hunks.push(hunk);
    } else throw new Error(`unexpected diff line: ${l.trimEnd()}`);
  }
  return files;
}

/** Applies a git-format diff to files (path → text), strictly: every context and removed line must match. */
export function applyGitDiff(files: ReadonlyMap<string, string>, diffText: string): Map<string, string> | { error: string } {
  let parsed: ParsedFile[];
  try {
    parsed = parseGitDiff(diffText);
  } catch (e) {
    return { error: (e as Error).message };
  }
  const out = new Map(files);
  for (const f of parsed) {
    const name = f.oldPath ?? f.newPath!;
    const before = f.oldPath === null ? '' : out.get(f.oldPath);
    if (before === undefined) return { error: `${name}: no such file` };
    if (f.oldPath === null && out.has(f.newPath!)) return { error: `${name}: already exists` };
    const oldL = splitLines(before);
    const result: string[] = [];
    let at = 0;
    for (const h of f.hunks) {
      const start = h.oldLines === 0 ? h.oldStart : h.oldStart - 1;
      if (start < at || start > oldL.length) return { error: `${name}: hunk at line ${h.oldStart} is out of place` };
      result.push(...oldL.slice(at, start));
      at = start;
      for (const l of h.lines) {
        const body = l.slice(1);
        if (l[0] === '+') {
          result.push(body);
          continue;
        }
        if (oldL[at] !== body) return { error: `${name}: line ${at + 1} does not match the hunk` };
        if (l[0] === ' ') result.push(body);
        at++;
      }
    }
    result.push(...oldL.slice(at));
    if (f.oldPath !== null) out.delete(f.oldPath);
    if (f.newPath !== null) out.set(f.newPath, result.join(''));
  }
  return out;
}
