/**
 * What the function-aware FIM graph knows about one file: its function and method
 * definitions, its call sites and its import bindings. Extracted from the lezer trees
 * (python.ts, javascript.ts); resolved across the repository in graph.ts.
 */

/** The language families calls resolve within (jsx counts as javascript, tsx as typescript). */
export type FunctionLanguage = 'python' | 'javascript' | 'typescript';

/** How the middle is parsed on its own: a statement, a class member, or an expression. */
export type ParseAlone = 'statement' | 'class_member' | 'object_member' | 'expression';

export interface LocalDef {
  name: string;
  /** Dotted name inside the file: `Class.method`, `outer.inner`. */
  qualname: string;
  kind: 'function' | 'method';
  /** The enclosing class's name for methods. */
  className?: string;
  /** The qualname of the enclosing function ('' at module level): the bare-name scope it is visible in. */
  scope: string;
  /** The whole function (signature and body), trailing whitespace trimmed. */
  from: number;
  to: number;
  /** The body only: Python from the first statement, JavaScript inside the braces (or the arrow's expression). */
  bodyFrom: number;
  bodyTo: number;
  alone: ParseAlone;
  statements: number;
  cyclomatic: number;
  docstring: boolean;
  annotated: boolean;
  /** The parser recovered from an error inside the function. */
  hasError: boolean;
}

export interface LocalClass {
  name: string;
  scope: string;
}

/** A callee as written: `f(...)`, or `obj.f(...)` with `obj` as dotted text when it is a plain name path. */
export type Callee = { kind: 'name'; name: string } | { kind: 'member'; object: string | undefined; property: string };

export interface CallSite {
  at: number;
  callee: Callee;
  /** Enclosing function qualnames, innermost first ('' last): where a bare name is looked up. */
  scopes: string[];
  /** The class whose method holds the call, for `self.f()` / `this.f()`. */
  inClass?: string;
}

/** A module as an import names it: Python dotted with its relative level, JavaScript a specifier. */
export interface ModuleRef {
  spec: string;
  level: number;
}

export type Binding = { kind: 'module'; module: ModuleRef } | { kind: 'symbol'; module: ModuleRef; name: string };

/** A JavaScript export: a local name, or a name re-exported from another module. */
export type ExportRef = { local: string } | { module: ModuleRef; name: string };

export interface FileFacts {
  path: string;
  language: FunctionLanguage;
  defs: LocalDef[];
  classes: LocalClass[];
  calls: CallSite[];
  /** Names bound by imports (Python also under the full dotted path of `import a.b`). */
  bindings: Map<string, Binding>;
  /** Modules whose names a star import brings in (`from m import *`, `export * from`). */
  stars: ModuleRef[];
  /** JavaScript exports by exported name (Python modules export their top-level names). */
  exports: Map<string, ExportRef>;
  /** The file has a syntax error the parser recovered from. */
  hasError: boolean;
}

export function emptyFacts(path: string, language: FunctionLanguage): FileFacts {
  return { path, language, defs: [], classes: [], calls: [], bindings: new Map(), stars: [], exports: new Map(), hasError: false };
}

/** Position past trailing whitespace removed, as unit spans do. */
export function trimEnd(text: string, from: number, to: number): number {
  while (to > from && /\s/.test(text[to - 1]!)) to--;
  return to;
}

const DOTTED = /^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$/u;

/** The text when it is a plain dotted name path (`a`, `a.b.c`), else undefined. */
export function dottedText(text: string): string | undefined {
  return DOTTED.test(text) ? text : undefined;
}

/** A frame of the walk over a tree: the function or class being inside. */
export interface ScopeFrame {
  kind: 'function' | 'class';
  qualname: string;
  def?: LocalDef;
}

/** The innermost function frame of a walk (classes and other scopes skipped). */
export function innermostFunction<F extends ScopeFrame>(stack: readonly F[]): F | undefined {
  for (let i = stack.length - 1; i >= 0; i--) if (stack[i]!.kind === 'function') return stack[i];
  return undefined;
}

/** A parse error marks the file and every function it falls inside (their spans are not trusted). */
export function markParseError(facts: FileFacts, stack: readonly ScopeFrame[]): void {
  facts.hasError = true;
  for (const f of stack) if (f.def) f.def.hasError = true;
}

/** Where a call made inside `stack` looks names up: the enclosing functions and the method's class. */
export function callContext(stack: readonly ScopeFrame[], at: number): Omit<CallSite, 'callee'> {
  const scopes: string[] = [];
  let inClass: string | undefined;
  for (let i = stack.length - 1; i >= 0; i--) {
    const f = stack[i]!;
    if (f.kind !== 'function') continue;
    scopes.push(f.qualname);
    if (inClass === undefined && f.def?.className !== undefined) inClass = f.def.className;
  }
  scopes.push('');
  return { at, scopes, ...(inClass !== undefined ? { inClass } : {}) };
}
