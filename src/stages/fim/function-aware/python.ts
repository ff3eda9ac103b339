import type { SyntaxNode, Tree } from '@lezer/common';
import { callContext, dottedText, emptyFacts, innermostFunction, markParseError, trimEnd, type Binding, type FileFacts, type LocalDef } from './model.js';

/**
 * Definitions, calls and imports of one Python file, from its @lezer/python tree.
 * Imports are read wherever they are written (a function-local import binds file-wide).
 */
interface Frame {
  kind: 'function' | 'class';
  name: string;
  qualname: string;
  from: number;
  def?: LocalDef;
  /** Where the docstring statement starts (not counted as a statement). */
  docAt?: number;
}

/** Tokens that add a path through the function (McCabe): branches, loops, handlers, boolean operators. */
const DECISIONS = new Set(['if', 'elif', 'for', 'while', 'except', 'and', 'or', 'case']);

export function pythonFacts(path: string, text: string, tree: Tree): FileFacts {
  const facts = emptyFacts(path, 'python');
  const stack: Frame[] = [];
  tree.iterate({
    enter(ref) {
      if (ref.type.isError) return markParseError(facts, stack);
      const name = ref.name;
      const fn = innermostFunction(stack);
      if (fn?.def) countComplexity(fn, name, ref.from);
      if (name === 'ImportStatement') {
        readImport(text.slice(ref.from, ref.to), facts.bindings, facts.stars);
        return false;
      }
      if (name === 'FunctionDefinition' || name === 'ClassDefinition') {
        stack.push(openFrame(ref.node, name, text, stack, facts));
        return;
      }
      if (name === 'CallExpression') recordCall(ref.node, text, stack, facts);
      return;
    },
    leave(ref) {
      if (ref.name !== 'FunctionDefinition' && ref.name !== 'ClassDefinition') return;
      const done = stack.pop()!;
      const outer = innermostFunction(stack);
      // A nested function is part of its outer function's middle: its figures count there too.
      if (done.def && outer?.def) {
        outer.def.statements += done.def.statements;
        outer.def.cyclomatic += done.def.cyclomatic - 1;
        if (done.def.hasError) outer.def.hasError = true;
      }
    },
  });
  return facts;
}

function countComplexity(fn: Frame, name: string, from: number): void {
  const def = fn.def!;
  if ((name.endsWith('Statement') && name !== 'DecoratedStatement') || name === 'FunctionDefinition' || name === 'ClassDefinition') {
    if (from !== fn.docAt && from !== fn.from) def.statements++;
  } else if (DECISIONS.has(name)) def.cyclomatic++;
}

function openFrame(node: SyntaxNode, kind: string, text: string, stack: Frame[], facts: FileFacts): Frame {
  const nameNode = node.getChild('VariableName');
  const name = nameNode ? text.slice(nameNode.from, nameNode.to) : '';
  const parent = stack[stack.length - 1];
  const qualname = parent ? `${parent.qualname}.${name}` : name;
  let scope = '';
  for (let i = stack.length - 1; i >= 0; i--) if (stack[i]!.kind === 'function') (scope = stack[i]!.qualname), (i = -1);
  if (kind === 'ClassDefinition') {
    facts.classes.push({ name, scope });
    return { kind: 'class', name, qualname, from: node.from };
  }
  const frame: Frame = { kind: 'function', name, qualname, from: node.from };
  const body = node.getChild('Body');
  if (!body || !nameNode) return frame;
  let first = body.firstChild;
  while (first && (first.name === ':' || first.name === 'Comment')) first = first.nextSibling;
  if (first?.name === 'ExpressionStatement' && first.firstChild?.name === 'String' && first.firstChild.to === first.to) frame.docAt = first.from;
  const to = trimEnd(text, node.from, node.to);
  const params = node.getChild('ParamList');
  frame.def = {
    name,
    qualname,
    kind: parent?.kind === 'class' ? 'method' : 'function',
    ...(parent?.kind === 'class' ? { className: parent.name } : {}),
    scope,
    from: node.from,
    to,
    bodyFrom: first ? first.from : to,
    bodyTo: to,
    alone: 'statement',
    statements: 0,
    cyclomatic: 1,
    docstring: frame.docAt !== undefined,
    annotated: !!node.getChild('TypeDef') || !!params?.getChild('TypeDef'),
    hasError: false,
  };
  facts.defs.push(frame.def);
  return frame;
}

function recordCall(node: SyntaxNode, text: string, stack: Frame[], facts: FileFacts): void {
  const callee = node.firstChild;
  if (!callee) return;
  const site = callContext(stack, node.from);
  if (callee.name === 'VariableName') facts.calls.push({ ...site, callee: { kind: 'name', name: text.slice(callee.from, callee.to) } });
  else if (callee.name === 'MemberExpression') {
    const object = callee.firstChild;
    const property = callee.lastChild;
    if (!object || property?.name !== 'PropertyName') return;
    facts.calls.push({ ...site, callee: { kind: 'member', object: dottedText(text.slice(object.from, object.to)), property: text.slice(property.from, property.to) } });
  }
}

const IDENT = '[\\p{L}_][\\p{L}\\p{N}_]*';
const FROM_IMPORT = new RegExp(`^\\s*from\\s+(\\.*)\\s*((?:${IDENT})(?:\\s*\\.\\s*${IDENT})*)?\\s+import\\s+([\\s\\S]*)$`, 'u');
const NAME_AS = new RegExp(`^(${IDENT})(?:\\s+as\\s+(${IDENT}))?$`, 'u');
const DOTTED_AS = new RegExp(`^(${IDENT}(?:\\s*\\.\\s*${IDENT})*)(?:\\s+as\\s+(${IDENT}))?$`, 'u');

/** `from .a.b import f as g, *` and `import a.b as m, c.d` into bindings. */
export function readImport(statement: string, bindings: Map<string, Binding>, stars: FileFacts['stars']): void {
  const s = statement.replace(/#[^\n]*/g, '').replace(/[()\\]/g, ' ');
  const from = FROM_IMPORT.exec(s);
  if (from) {
    const module = { spec: (from[2] ?? '').replace(/\s+/g, ''), level: from[1]!.length };
    for (const part of from[3]!.split(',').map((p) => p.trim())) {
      if (part === '*') stars.push(module);
      const m = NAME_AS.exec(part);
      if (m) bindings.set(m[2] ?? m[1]!, { kind: 'symbol', module, name: m[1]! });
    }
    return;
  }
  const imp = /^\s*import\s+([\s\S]*)$/.exec(s);
  if (!imp) return;
  for (const part of imp[1]!.split(',').map((p) => p.trim())) {
    const m = DOTTED_AS.exec(part);
    if (!m) continue;
    const dotted = m[1]!.replace(/\s+/g, '');
    if (m[2]) {
      bindings.set(m[2], { kind: 'module', module: { spec: dotted, level: 0 } });
      continue;
    }
    // `import a.b.c` binds `a`; calls spell the path out (`a.b.c.f()`), so every prefix is a module.
    const segs = dotted.split('.');
    for (let i = 1; i <= segs.length; i++) {
      const prefix = segs.slice(0, i).join('.');
      if (!bindings.has(prefix) || i === segs.length) bindings.set(prefix, { kind: 'module', module: { spec: prefix, level: 0 } });
    }
  }
}
