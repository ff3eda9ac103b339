import { baseName, fileLanguage } from './languages.js';

/**
 * The import graph of one repository, for the `dependency` ordering.
 *
 * Extraction is regex-level, per language (see docs/repos.md for its limits: imports
 * written inside strings or comments count, conditional and macro-built imports are
 * invisible). Resolution is only against the repository's own files, so standard
 * library and third-party imports simply resolve to nothing.
 */
export interface SourceFile {
  path: string;
  content: string;
}

/** Lookup tables over the repository's paths, built once per repository. */
export class RepoIndex {
  readonly paths: Set<string>;
  /** Files directly inside each folder ('' is the root), sorted. */
  readonly filesInDir = new Map<string, string[]>();
  /** Every path by its base name, shortest first, for suffix matches (`a/b.py` in `src/a/b.py`). */
  private readonly byBase = new Map<string, string[]>();
  /** Go modules declared by go.mod files: [module path, folder], longest module path first. */
  readonly goModules: [string, string][] = [];
  /** Folders named include/ or inc/: where `#include <x.h>` of the project's own headers resolve. */
  private readonly includeDirSet = new Set<string>();

  constructor(files: readonly SourceFile[]) {
    this.paths = new Set(files.map((f) => f.path));
    const sorted = [...this.paths].sort(byLengthThenPath);
    for (const p of sorted) {
      const dir = dirName(p);
      push(this.filesInDir, dir, p);
      push(this.byBase, baseName(p), p);
      for (let d = dir; d !== ''; d = dirName(d)) if (/(^|\/)(include|inc)$/.test(d)) this.includeDirSet.add(d);
    }
    for (const list of this.filesInDir.values()) list.sort(comparePaths);
    for (const f of files) {
      if (baseName(f.path) !== 'go.mod') continue;
      const m = /^\s*module\s+(\S+)/m.exec(f.content);
      if (m) this.goModules.push([m[1]!.replace(/^"|"$/g, ''), dirName(f.path)]);
    }
    this.goModules.sort((a, b) => b[0].length - a[0].length || comparePaths(a[0], b[0]));
  }

  has(path: string | undefined): path is string {
    return path !== undefined && this.paths.has(path);
  }

  /** `dir/rel` for the first include folder `dir` (in path order) that has it. */
  inIncludeDir(rel: string): string | undefined {
    const clean = normalizePath(rel);
    if (!clean) return undefined;
    let best: string | undefined;
    for (const p of this.byBase.get(baseName(clean)) ?? []) {
      if (!p.endsWith('/' + clean)) continue;
      const dir = p.slice(0, p.length - clean.length - 1);
      if (this.includeDirSet.has(dir) && (best === undefined || comparePaths(dir, best) < 0)) best = dir;
    }
    return best === undefined ? undefined : `${best}/${clean}`;
  }

  /** The shortest path that is `rel` or ends with `/rel` (ties alphabetical). */
  bySuffix(rel: string): string | undefined {
    if (this.paths.has(rel)) return rel;
    for (const p of this.byBase.get(baseName(rel)) ?? []) if (p.endsWith('/' + rel)) return p;
    return undefined;
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Plain code-unit order: the same on every machine and locale. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byLengthThenPath(a: string, b: string): number {
  return a.length - b.length || comparePaths(a, b);
}

export function dirName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function joinPath(dir: string, rel: string): string {
  return dir === '' ? rel : rel === '' ? dir : `${dir}/${rel}`;
}

/** Resolves '.' and '..' segments; undefined when the path climbs above the root. */
export function normalizePath(path: string): string | undefined {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}

function firstExisting(index: RepoIndex, candidates: (string | undefined)[]): string | undefined {
  for (const c of candidates) if (index.has(c)) return c;
  return undefined;
}

// ---------------------------------------------------------------- Python

const PY_IMPORT = /^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)|import[ \t]+([^\n#;]+))/gm;

export function pythonModuleFile(index: RepoIndex, rel: string, anchored: boolean): string | undefined {
  const candidates = [`${rel}.py`, `${rel}/__init__.py`, `${rel}.pyi`, `${rel}/__init__.pyi`];
  for (const c of candidates) {
    const hit = anchored ? (index.has(c) ? c : undefined) : index.bySuffix(c);
    if (hit) return hit;
  }
  return undefined;
}

function splitNames(list: string): string[] {
  return list
    .replace(/[()\\]/g, ' ')
    .split(',')
    .map((s) => s.trim().split(/\s+/)[0] ?? '')
    .filter((s) => /^[\w.]+$/.test(s));
}

function pythonImports(path: string, content: string, index: RepoIndex): string[] {
  const out: string[] = [];
  const resolveModule = (dotted: string, anchorDir: string | undefined) => {
    if (dotted === '') return firstExisting(index, [anchorDir === undefined ? undefined : joinPath(anchorDir, '__init__.py')]);
    const rel = dotted.replace(/\./g, '/');
    if (anchorDir !== undefined) return pythonModuleFile(index, joinPath(anchorDir, rel), true);
    // Absolute import: the repository root first, then any source root (`src/pkg/mod.py`).
    const hit = pythonModuleFile(index, rel, true) ?? pythonModuleFile(index, rel, false);
    // Importing a.b.c runs the __init__.py of a and a.b first.
    if (hit) {
      let pkg = dirName(hit.endsWith('/__init__.py') || hit.endsWith('/__init__.pyi') ? dirName(hit) : hit);
      for (let up = dotted.split('.').length - 1; up > 0 && pkg !== ''; up--, pkg = dirName(pkg)) {
        const init = joinPath(pkg, '__init__.py');
        if (index.has(init)) out.push(init);
      }
    }
    return hit;
  };
  for (const m of content.matchAll(PY_IMPORT)) {
    if (m[3] !== undefined) {
      for (const mod of splitNames(m[3])) {
        const hit = resolveModule(mod, undefined);
        if (hit) out.push(hit);
      }
      continue;
    }
    const spec = m[1]!;
    const level = spec.length - spec.replace(/^\.+/, '').length;
    const mod = spec.slice(level);
    let anchor: string | undefined;
    if (level > 0) {
      anchor = dirName(path);
      for (let i = 1; i < level && anchor !== undefined; i++) anchor = anchor === '' ? undefined : dirName(anchor);
      if (anchor === undefined) continue;
    }
    const pkg = resolveModule(mod, anchor);
    if (pkg) out.push(pkg);
    // `from pkg import name`: name may itself be a submodule.
    for (const name of splitNames(m[2]!)) {
      const sub = resolveModule(mod === '' ? name : `${mod}.${name}`, anchor);
      if (sub) out.push(sub);
    }
  }
  return out;
}

// ---------------------------------------------------------------- JavaScript / TypeScript

const JS_IMPORT = /(?:\bfrom|\bimport|\brequire\s*\(|\bimport\s*\(|\bexport\s*\*\s*from)\s*(['"`])(\.{1,2}\/[^'"`\n]{0,300}|\.{1,2})\1/g;
const JS_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];

function jsImports(path: string, content: string, index: RepoIndex): string[] {
  const out: string[] = [];
  for (const m of content.matchAll(JS_IMPORT)) {
    const hit = jsModuleFile(index, path, m[2]!);
    if (hit) out.push(hit);
  }
  return out;
}

/** The repository file a relative JavaScript/TypeScript specifier names, from the file at `path`. */
export function jsModuleFile(index: RepoIndex, path: string, spec: string): string | undefined {
  const target = normalizePath(joinPath(dirName(path), spec));
  if (target === undefined) return undefined;
  const candidates = [target, ...JS_EXTENSIONS.map((e) => target + e), ...JS_EXTENSIONS.map((e) => `${target}/index${e}`)];
  // TypeScript's ESM style names the compiled file: './x.js' means './x.ts'.
  const js = /\.(m|c)?jsx?$/.exec(target);
  if (js) {
    const stem = target.slice(0, js.index);
    candidates.push(`${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`);
    if (js[1]) candidates.push(`${stem}.${js[1]}ts`);
  }
  return firstExisting(index, candidates);
}

// ---------------------------------------------------------------- Go

const GO_SINGLE = /^import[ \t]+(?:[\w.]+[ \t]+)?"([^"\n]+)"/gm;
const GO_BLOCK = /^import[ \t]*\(([^)]*)\)/gm;
const GO_QUOTED = /"([^"\n]+)"/g;

function goImports(_path: string, content: string, index: RepoIndex): string[] {
  if (index.goModules.length === 0) return [];
  const specs: string[] = [];
  for (const m of content.matchAll(GO_SINGLE)) specs.push(m[1]!);
  for (const m of content.matchAll(GO_BLOCK)) for (const q of m[1]!.matchAll(GO_QUOTED)) specs.push(q[1]!);
  const out: string[] = [];
  for (const spec of specs) {
    const mod = index.goModules.find(([name]) => spec === name || spec.startsWith(name + '/'));
    if (!mod) continue;
    const dir = joinPath(mod[1], spec.slice(mod[0].length + 1));
    for (const f of index.filesInDir.get(dir) ?? []) if (f.endsWith('.go') && !f.endsWith('_test.go')) out.push(f);
  }
  return out;
}

// ---------------------------------------------------------------- Rust

const RUST_MOD = /^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?mod[ \t]+(\w+)[ \t]*;/gm;
const RUST_USE = /\buse[ \t]+((?:crate|super|self)(?:::\w+)*)(?:::\{([^}]*)\})?/g;

/** The folder holding a Rust file's submodules: `src/a.rs` → `src/a`, `src/a/mod.rs` → `src/a`. */
function rustModuleDir(path: string): string {
  const name = baseName(path);
  if (name === 'lib.rs' || name === 'main.rs' || name === 'mod.rs') return dirName(path);
  return path.slice(0, -'.rs'.length);
}

function rustCrateRoot(path: string, index: RepoIndex): string {
  for (let dir = dirName(path); ; dir = dirName(dir)) {
    if (index.has(joinPath(dir, 'lib.rs')) || index.has(joinPath(dir, 'main.rs'))) return dir;
    if (dir === '') return dirName(path);
  }
}

function rustModuleFile(index: RepoIndex, base: string, segments: string[]): string | undefined {
  // The longest prefix that names a module file: `crate::a::b::Item` → src/a/b.rs.
  for (let k = segments.length; k >= 1; k--) {
    const rel = joinPath(base, segments.slice(0, k).join('/'));
    const hit = firstExisting(index, [`${rel}.rs`, `${rel}/mod.rs`]);
    if (hit) return hit;
  }
  return undefined;
}

function rustImports(path: string, content: string, index: RepoIndex): string[] {
  const out: string[] = [];
  const modDir = rustModuleDir(path);
  for (const m of content.matchAll(RUST_MOD)) {
    const hit = firstExisting(index, [joinPath(modDir, `${m[1]}.rs`), joinPath(modDir, `${m[1]}/mod.rs`)]);
    if (hit) out.push(hit);
  }
  for (const m of content.matchAll(RUST_USE)) {
    const [root, ...rest] = m[1]!.split('::');
    let base: string;
    if (root === 'crate') base = rustCrateRoot(path, index);
    else if (root === 'self') base = modDir;
    else base = dirName(modDir);
    const tails = m[2] === undefined ? [[]] : m[2].split(',').map((s) => s.trim().split(/\s|::\{/)[0]!.split('::'));
    for (const tail of tails) {
      const segments = [...rest, ...tail].filter((s) => /^\w+$/.test(s) && s !== 'self');
      const hit = rustModuleFile(index, base, segments);
      if (hit) out.push(hit);
    }
  }
  return out;
}

// ---------------------------------------------------------------- Java

const JAVA_IMPORT = /^[ \t]*import[ \t]+(static[ \t]+)?([\w.]+?)(\.\*)?[ \t]*;/gm;

function javaImports(_path: string, content: string, index: RepoIndex): string[] {
  const out: string[] = [];
  for (const m of content.matchAll(JAVA_IMPORT)) {
    const segments = m[2]!.split('.');
    if (m[3]) {
      // `import a.b.*;`: every class of the package (or the nested classes of a class).
      const pkgDir = segments.join('/');
      const anyFile = index.bySuffix(`${pkgDir}/package-info.java`) ?? findDirWithJava(index, pkgDir);
      if (anyFile) {
        for (const f of index.filesInDir.get(dirName(anyFile)) ?? []) if (f.endsWith('.java')) out.push(f);
      } else {
        const cls = index.bySuffix(`${pkgDir}.java`);
        if (cls) out.push(cls);
      }
      continue;
    }
    // A class, a nested class or a static member: drop trailing segments until a file matches.
    for (let k = segments.length; k >= 2; k--) {
      const hit = index.bySuffix(`${segments.slice(0, k).join('/')}.java`);
      if (hit) {
        out.push(hit);
        break;
      }
    }
  }
  return out;
}

function findDirWithJava(index: RepoIndex, pkgDir: string): string | undefined {
  let best: string | undefined;
  for (const [dir, files] of index.filesInDir) {
    if (dir !== pkgDir && !dir.endsWith('/' + pkgDir)) continue;
    const java = files.find((f) => f.endsWith('.java'));
    if (java && (best === undefined || byLengthThenPath(java, best) < 0)) best = java;
  }
  return best;
}

// ---------------------------------------------------------------- C / C++

const C_INCLUDE = /^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]/gm;

function cIncludes(path: string, content: string, index: RepoIndex): string[] {
  const out: string[] = [];
  for (const m of content.matchAll(C_INCLUDE)) {
    const rel = m[2]!.trim();
    const quoted = m[1] === '"';
    const local = firstExisting(index, [quoted ? normalizePath(joinPath(dirName(path), rel)) : undefined, normalizePath(rel)]);
    // Then an include/ folder (the first in path order); quoted includes also find the
    // header by its trailing path anywhere in the tree.
    const hit = local ?? index.inIncludeDir(rel) ?? (quoted ? index.bySuffix(rel) : undefined);
    if (hit) out.push(hit);
  }
  return out;
}

// ---------------------------------------------------------------- the graph

type Extractor = (path: string, content: string, index: RepoIndex) => string[];

/** By Linguist language name (languages.ts); a language without an extractor orders alphabetically. */
const EXTRACTORS: Record<string, Extractor> = {
  Python: pythonImports,
  JavaScript: jsImports,
  TypeScript: jsImports,
  TSX: jsImports,
  Vue: jsImports,
  Svelte: jsImports,
  Go: goImports,
  Rust: rustImports,
  Java: javaImports,
  C: cIncludes,
  'C++': cIncludes,
  'Objective-C': cIncludes,
  'Objective-C++': cIncludes,
};

/** For each file, the repository files it imports: deduplicated, sorted, never itself. */
export function buildImportGraph(files: readonly SourceFile[], index = new RepoIndex(files)): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const extract = EXTRACTORS[fileLanguage(f)];
    const deps = extract ? extract(f.path, f.content, index) : [];
    graph.set(f.path, [...new Set(deps)].filter((d) => d !== f.path).sort(comparePaths));
  }
  return graph;
}
