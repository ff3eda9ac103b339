import type { RepoFile } from '../../repos/format.js';
import { RepoIndex, dirName, joinPath, jsModuleFile, pythonModuleFile } from '../../repos/imports.js';
import { parseCode, unitLanguage, type UnitLanguage } from '../spans.js';
import { javascriptFacts } from './javascript.js';
import type { Binding, CallSite, FileFacts, FunctionLanguage, LocalDef, ModuleRef } from './model.js';
import { pythonFacts } from './python.js';

/**
 * The repository-level dependency graph of function-aware FIM: every function and method
 * definition with its qualified name, every call site, and each call resolved to a definition
 * through the repository's imports. How a call was resolved is recorded:
 * - `local`: a function in scope in the same file (or a class's constructor);
 * - `import`: through `import`/`from … import`/`require`/`export … from`, following re-exports;
 * - `self`: `self.f()`, `cls.f()`, `this.f()` inside a method of the class that defines `f`;
 * - `name`: the lower-confidence fallback: the one function (or method) of that name in the
 *   repository, when nothing else resolves the call. Two or more of that name: unresolved.
 */
export type Resolution = 'local' | 'import' | 'self' | 'name';
export const RESOLUTIONS: readonly Resolution[] = ['local', 'import', 'self', 'name'];

export interface RepoFunction extends LocalDef {
  id: number;
  file: string;
  language: FunctionLanguage;
  qualifiedName: string;
}

export interface CallerRef {
  file: string;
  at: number;
  resolution: Resolution;
}

export interface RepoGraph {
  functions: RepoFunction[];
  /** Call sites of each function (by id), outside the function's own body. */
  callers: CallerRef[][];
  /** Callee names of the calls that resolved to nothing or to more than one function. */
  unresolvedNames: Map<string, number>;
  /** Call sites by how they resolved (`unresolved` for the rest). */
  resolution: Record<Resolution | 'unresolved', number>;
  /** Code files over the size limit, not parsed. */
  notParsed: number;
  /** Files with a syntax error the parser recovered from. */
  withErrors: number;
}

const LANGUAGE: Record<UnitLanguage, FunctionLanguage> = { python: 'python', javascript: 'javascript', jsx: 'javascript', typescript: 'typescript', tsx: 'typescript' };
const family = (l: FunctionLanguage) => (l === 'python' ? 'py' : 'js');

/** The facts of one file, or undefined when it is not Python/JavaScript/TypeScript. */
export function fileFacts(path: string, content: string): FileFacts | undefined {
  const lang = unitLanguage(path);
  if (!lang) return undefined;
  const tree = parseCode(content, lang);
  return lang === 'python' ? pythonFacts(path, content, tree) : javascriptFacts(path, content, tree, LANGUAGE[lang]);
}

/** Python's module name for a path: `pkg/mod.py` is `pkg.mod`, `pkg/__init__.py` is `pkg`. */
export function pythonModuleName(path: string): string {
  return path.replace(/\.pyi?$/, '').replace(/(^|\/)__init__$/, '').replace(/\//g, '.');
}

export function buildRepoGraph(files: readonly RepoFile[], maxFileChars: number): RepoGraph {
  const facts = new Map<string, FileFacts>();
  let notParsed = 0;
  let withErrors = 0;
  for (const f of files) {
    if (!unitLanguage(f.path)) continue;
    if (f.content.length > maxFileChars) {
      notParsed++;
      continue;
    }
    const ff = fileFacts(f.path, f.content)!;
    if (ff.hasError) withErrors++;
    facts.set(f.path, ff);
  }
  const resolver = new Resolver(facts, new RepoIndex(files));
  const graph: RepoGraph = { functions: resolver.functions, callers: resolver.functions.map(() => []), unresolvedNames: new Map(), resolution: { local: 0, import: 0, self: 0, name: 0, unresolved: 0 }, notParsed, withErrors };
  for (const ff of facts.values()) {
    for (const call of ff.calls) {
      const r = resolver.resolveCall(ff, call);
      if (!r) {
        const name = call.callee.kind === 'name' ? call.callee.name : call.callee.property;
        graph.unresolvedNames.set(name, (graph.unresolvedNames.get(name) ?? 0) + 1);
        graph.resolution.unresolved++;
        continue;
      }
      const fn = resolver.functions[r.fn]!;
      // Recursion and calls from inside the function's own body are not callers: they sit in the middle.
      if (fn.file === ff.path && call.at >= fn.from && call.at < fn.to) continue;
      graph.resolution[r.resolution]++;
      graph.callers[r.fn]!.push({ file: ff.path, at: call.at, resolution: r.resolution });
    }
  }
  return graph;
}

type Target = { fn: number } | { module: string } | { cls: { file: string; name: string } } | undefined;

/** Name lookups over the repository's files (each lookup guards against import cycles). */
class Resolver {
  readonly functions: RepoFunction[] = [];
  private readonly topByName = new Map<string, number[]>();
  private readonly methodsByName = new Map<string, number[]>();
  private readonly byFile = new Map<string, number[]>();

  constructor(
    private readonly facts: Map<string, FileFacts>,
    private readonly index: RepoIndex,
  ) {
    for (const ff of facts.values()) {
      const ids: number[] = [];
      for (const d of ff.defs) {
        const id = this.functions.length;
        const qualifiedName = ff.language === 'python' ? [pythonModuleName(ff.path), d.qualname].filter(Boolean).join('.') : `${ff.path}:${d.qualname}`;
        this.functions.push({ ...d, id, file: ff.path, language: ff.language, qualifiedName });
        ids.push(id);
        const key = `${family(ff.language)}:${d.name}`;
        const table = d.kind === 'method' ? this.methodsByName : d.scope === '' ? this.topByName : undefined;
        if (table) table.set(key, [...(table.get(key) ?? []), id]);
      }
      this.byFile.set(ff.path, ids);
    }
  }

  private fileDefs(path: string): RepoFunction[] {
    return (this.byFile.get(path) ?? []).map((id) => this.functions[id]!);
  }

  private topFunction(path: string, name: string): number | undefined {
    return this.fileDefs(path).find((d) => d.kind === 'function' && d.scope === '' && d.name === name)?.id;
  }

  private method(path: string, cls: string, name: string): number | undefined {
    return this.fileDefs(path).find((d) => d.kind === 'method' && d.className === cls && d.name === name)?.id;
  }

  resolveModule(from: FileFacts, ref: ModuleRef): string | undefined {
    if (from.language !== 'python') return ref.spec.startsWith('.') ? jsModuleFile(this.index, from.path, ref.spec) : undefined;
    const rel = ref.spec.replace(/\./g, '/');
    if (ref.level === 0) return pythonModuleFile(this.index, rel, true) ?? pythonModuleFile(this.index, rel, false);
    let anchor = dirName(from.path);
    for (let i = 1; i < ref.level; i++) {
      if (anchor === '') return undefined;
      anchor = dirName(anchor);
    }
    if (rel === '') return this.index.has(joinPath(anchor, '__init__.py')) ? joinPath(anchor, '__init__.py') : undefined;
    return pythonModuleFile(this.index, joinPath(anchor, rel), true);
  }

  /** What `name` means as an attribute of the module in `path`: what importers of that module get. */
  lookupName(path: string, name: string, seen: Set<string>): Target {
    const key = `${path}\u0000${name}`;
    const ff = this.facts.get(path);
    if (!ff || seen.has(key) || seen.size > 32) return undefined;
    seen.add(key);
    if (ff.language !== 'python') {
      const e = ff.exports.get(name);
      const hit = e === undefined ? undefined : 'local' in e ? this.localTarget(ff, e.local, seen) : this.viaModule(ff, e.module, e.name, seen);
      return hit ?? this.viaStars(ff, name, seen);
    }
    const hit = this.localTarget(ff, name, seen) ?? this.viaStars(ff, name, seen);
    if (hit || !/(^|\/)__init__\.pyi?$/.test(path)) return hit;
    const sub = pythonModuleFile(this.index, joinPath(dirName(path), name), true);
    return sub ? { module: sub } : undefined;
  }

  private viaModule(ff: FileFacts, ref: ModuleRef, name: string, seen: Set<string>): Target {
    const m = this.resolveModule(ff, ref);
    return m ? this.lookupName(m, name, seen) : undefined;
  }

  private viaStars(ff: FileFacts, name: string, seen: Set<string>): Target {
    for (const star of ff.stars) {
      const hit = this.viaModule(ff, star, name, seen);
      if (hit) return hit;
    }
    return undefined;
  }

  /** A module-level name of the file: its function, its class, or what an import bound it to. */
  private localTarget(ff: FileFacts, name: string, seen: Set<string>): Target {
    const fn = this.topFunction(ff.path, name);
    if (fn !== undefined) return { fn };
    if (ff.classes.some((c) => c.scope === '' && c.name === name)) return { cls: { file: ff.path, name } };
    const b = ff.bindings.get(name);
    return b ? this.followBinding(ff, b, seen) : undefined;
  }

  followBinding(ff: FileFacts, b: Binding, seen: Set<string>): Target {
    const m = this.resolveModule(ff, b.module);
    if (b.kind === 'module') return m ? { module: m } : undefined;
    const hit = m ? this.lookupName(m, b.name, seen) : undefined;
    if (hit || ff.language !== 'python') return hit;
    // `from pkg import sub` names a submodule even when pkg has no __init__.py.
    const sub = this.resolveModule(ff, { spec: b.module.spec ? `${b.module.spec}.${b.name}` : b.name, level: b.module.level });
    return sub ? { module: sub } : undefined;
  }

  private attribute(t: Target, name: string): Target {
    if (!t) return undefined;
    if ('module' in t) return this.lookupName(t.module, name, new Set());
    if ('cls' in t) {
      const fn = this.method(t.cls.file, t.cls.name, name);
      return fn === undefined ? undefined : { fn };
    }
    return undefined;
  }

  /** What a dotted name (`m`, `a.b`, `mod.Class`) means in the file: the longest bound prefix, then attributes. */
  private dotted(ff: FileFacts, dotted: string): Target {
    const segs = dotted.split('.');
    for (let n = segs.length; n >= 1; n--) {
      const head = segs.slice(0, n).join('.');
      const b = ff.bindings.get(head);
      let t: Target = b ? this.followBinding(ff, b, new Set()) : undefined;
      if (!t && n === 1 && ff.classes.some((c) => c.name === head)) t = { cls: { file: ff.path, name: head } };
      if (!t) continue;
      for (const seg of segs.slice(n)) t = this.attribute(t, seg);
      return t;
    }
    return undefined;
  }

  private unique(table: Map<string, number[]>, ff: FileFacts, name: string): number | undefined {
    const ids = table.get(`${family(ff.language)}:${name}`);
    return ids?.length === 1 ? ids[0] : undefined;
  }

  resolveCall(ff: FileFacts, call: CallSite): { fn: number; resolution: Resolution } | undefined {
    const c = call.callee;
    if (c.kind === 'name') return this.resolveNameCall(ff, call, c.name);
    const self = ff.language === 'python' ? c.object === 'self' || c.object === 'cls' : c.object === 'this';
    if (self && call.inClass !== undefined) {
      const fn = this.method(ff.path, call.inClass, c.property);
      if (fn !== undefined) return { fn, resolution: 'self' };
    }
    if (c.object !== undefined && !self) {
      const t = this.attribute(this.dotted(ff, c.object), c.property);
      if (t && 'fn' in t) return { fn: t.fn, resolution: ff.bindings.has(c.object.split('.')[0]!) || c.object.includes('.') ? 'import' : 'local' };
      if (ff.bindings.has(c.object.split('.')[0]!)) return undefined; // a module or name from outside the repository
    }
    const fn = this.unique(this.methodsByName, ff, c.property) ?? this.unique(this.topByName, ff, c.property);
    return fn === undefined ? undefined : { fn, resolution: 'name' };
  }

  private resolveNameCall(ff: FileFacts, call: CallSite, name: string): { fn: number; resolution: Resolution } | undefined {
    let best: RepoFunction | undefined;
    for (const d of this.fileDefs(ff.path)) {
      if (d.kind !== 'function' || d.name !== name) continue;
      const depth = call.scopes.indexOf(d.scope);
      if (depth >= 0 && (!best || depth < call.scopes.indexOf(best.scope))) best = d;
    }
    if (best) return { fn: best.id, resolution: 'local' };
    const ctor = ff.language === 'python' && ff.classes.some((k) => k.name === name && call.scopes.includes(k.scope)) ? this.method(ff.path, name, '__init__') : undefined;
    if (ctor !== undefined) return { fn: ctor, resolution: 'local' };
    const b = ff.bindings.get(name);
    if (b) {
      let t = this.followBinding(ff, b, new Set());
      if (t && 'module' in t && ff.language !== 'python') t = this.lookupName(t.module, 'default', new Set());
      if (t && 'cls' in t && ff.language === 'python') t = this.attribute(t, '__init__');
      return t && 'fn' in t ? { fn: t.fn, resolution: 'import' } : undefined;
    }
    const star = this.viaStars(ff, name, new Set());
    if (star && 'fn' in star) return { fn: star.fn, resolution: 'import' };
    const fn = this.unique(this.topByName, ff, name);
    return fn === undefined ? undefined : { fn, resolution: 'name' };
  }
}
