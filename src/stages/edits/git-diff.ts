import { structuredPatch } from 'diff';
import { splitLines } from '../fim/text.js';

/**
 * Unified diffs in git's format (`diff --git`, `new file mode`, `rename from` ...), made
 * in-process with jsdiff, and an in-process applier that is the fast first check of every
 * diff (the history samples are also checked by real `git apply --check`, see git-apply.ts).
 */
export interface FileChange {
  /** null for an added file. */
  oldPath: string | null;
  /** null for a deleted file. */
  newPath: string | null;
  before: string | null;
  after: string | null;
}

export const CONTEXT_LINES = 3;

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

/** One file's diff in git's format. `pathPrefix` places the paths under a folder (for batch checks). */
export function fileDiff(c: FileChange, pathPrefix = ''): string {
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
  for (const h of structuredPatch(oldP, newP, before, after, '', '', { context: CONTEXT_LINES }).hunks) {
    out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@\n`);
    for (const l of h.lines) out.push(l + '\n');
  }
  return out.join('');
}

export function gitDiff(changes: readonly FileChange[], pathPrefix = ''): string {
  return changes.map((c) => fileDiff(c, pathPrefix)).join('');
}

interface ParsedFile {
  oldPath: string | null;
  newPath: string | null;
  hunks: { oldStart: number; oldLines: number; lines: string[] }[];
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
    else if (l.startsWith('--- ') || l.startsWith('+++ ') || /^(similarity|index|old mode|new mode)/.test(l)) continue;
    else if (l.startsWith('@@ ')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(l);
      if (!m) throw new Error(`hunk header not understood: ${l.trimEnd()}`);
      const oldLines = m[2] === undefined ? 1 : Number(m[2]);
      const newLines = m[4] === undefined ? 1 : Number(m[4]);
      const hunk = { oldStart: Number(m[1]), oldLines, lines: [] as string[] };
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
