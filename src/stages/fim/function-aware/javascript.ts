import type { SyntaxNode, Tree } from '@lezer/common';
import { callContext, dottedText, emptyFacts, innermostFunction, markParseError, trimEnd, type FileFacts, type FunctionLanguage, type LocalDef, type ModuleRef, type ParseAlone } from './model.js';

/**
 * Definitions, calls, imports (ES `import`, CommonJS `require`) and exports (`export`,
 * `module.exports`, `exports.x`) of one JavaScript or TypeScript file, from its @lezer/javascript tree.
 */
interface Frame {
  kind: 'function' | 'class';
  name: string;
  qualname: string;
  node: SyntaxNode;
  def?: LocalDef;
}

const FUNCTION_NODES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunction', 'MethodDeclaration', 'Property']);
const CLASS_NODES = new Set(['ClassDeclaration', 'ClassExpression']);
const DECISION_NODES = new Set(['IfStatement', 'ForStatement', 'WhileStatement', 'DoStatement', 'CatchClause', 'ConditionalExpression', 'CaseLabel']);
const BOOLEAN_OPS = new Set(['&&', '||', '??']);

const nodeText = (text: string, n: SyntaxNode | null | undefined) => (n ? text.slice(n.from, n.to) : '');
const moduleRef = (text: string, str: SyntaxNode | null): ModuleRef | undefined => (str ? { spec: nodeText(text, str).slice(1, -1), level: 0 } : undefined);

export function javascriptFacts(path: string, text: string, tree: Tree, language: FunctionLanguage): FileFacts {
  const facts = emptyFacts(path, language);
  const stack: Frame[] = [];
  tree.iterate({
    enter(ref) {
      if (ref.type.isError) return markParseError(facts, stack);
      const name = ref.name;
      const fn = innermostFunction(stack);
      if (fn?.def) countComplexity(fn.def, name, ref.node, text);
      if (name === 'ImportDeclaration') return readImport(ref.node, text, facts);
      if (name === 'ExportDeclaration') readExport(ref.node, text, facts);
      else if (name === 'AssignmentExpression') readCommonJsExport(ref.node, text, facts);
      else if (name === 'CallExpression') recordCall(ref.node, text, stack, facts);
      const frame = FUNCTION_NODES.has(name) ? functionFrame(ref.node, text, stack, facts) : CLASS_NODES.has(name) ? classFrame(ref.node, text, stack, facts) : undefined;
      if (frame) stack.push(frame);
      return;
    },
    leave(ref) {
      const top = stack[stack.length - 1];
      if (!top || top.node.from !== ref.from || top.node.to !== ref.to || top.node.name !== ref.name) return;
      stack.pop();
      const outer = innermostFunction(stack);
      if (top.def && outer?.def) {
        outer.def.statements += top.def.statements;
        outer.def.cyclomatic += top.def.cyclomatic - 1;
        if (top.def.hasError) outer.def.hasError = true;
      }
    },
  });
  return facts;
}

function countComplexity(def: LocalDef, name: string, node: SyntaxNode, text: string): void {
  if ((name.endsWith('Statement') || name.endsWith('Declaration')) && name !== 'ExportDeclaration' && name !== 'ImportDeclaration') def.statements++;
  if (DECISION_NODES.has(name) || (name === 'LogicOp' && BOOLEAN_OPS.has(nodeText(text, node)))) def.cyclomatic++;
}

function scopeOf(stack: Frame[]): string {
  for (let i = stack.length - 1; i >= 0; i--) if (stack[i]!.kind === 'function') return stack[i]!.qualname;
  return '';
}

function classFrame(node: SyntaxNode, text: string, stack: Frame[], facts: FileFacts): Frame {
  let name = nodeText(text, node.getChild('VariableDefinition'));
  if (!name && node.parent?.name === 'VariableDeclaration') name = nodeText(text, node.prevSibling?.prevSibling);
  const parent = stack[stack.length - 1];
  facts.classes.push({ name, scope: scopeOf(stack) });
  return { kind: 'class', name, qualname: parent ? `${parent.qualname}.${name}` : name, node };
}

interface Naming {
  name: string;
  kind: LocalDef['kind'];
  className?: string;
  alone: ParseAlone;
  /** The exported name, for `exports.x = function` and `module.exports = { x() {} }`. */
  exportAs?: string;
}

/** The name a function node defines, or undefined for anonymous functions (callbacks). */
function nameFunction(node: SyntaxNode, text: string, stack: Frame[]): Naming | undefined {
  const parent = node.parent;
  const cls = stack[stack.length - 1]?.kind === 'class' ? stack[stack.length - 1]!.name : undefined;
  switch (node.name) {
    case 'FunctionDeclaration': {
      const name = nodeText(text, node.getChild('VariableDefinition'));
      return name ? { name, kind: 'function', alone: 'statement' } : undefined;
    }
    case 'MethodDeclaration': {
      const name = nodeText(text, node.getChild('PropertyDefinition') ?? node.getChild('PrivatePropertyDefinition'));
      return name ? { name, kind: 'method', ...(cls !== undefined ? { className: cls } : {}), alone: 'class_member' } : undefined;
    }
    case 'Property': {
      if (!node.getChild('ParamList')) return undefined;
      const name = nodeText(text, node.getChild('PropertyDefinition'));
      const exported = isModuleExportsObject(node.parent, text);
      return name ? { name, kind: exported ? 'function' : 'method', alone: 'object_member', ...(exported ? { exportAs: name } : {}) } : undefined;
    }
  }
  if (!parent) return undefined;
  if (parent.name === 'VariableDeclaration' && node.prevSibling?.name === 'Equals' && node.prevSibling.prevSibling?.name === 'VariableDefinition') {
    return { name: nodeText(text, node.prevSibling.prevSibling), kind: 'function', alone: 'expression' };
  }
  if (parent.name === 'Property' && parent.getChild('PropertyDefinition')) {
    const exported = isModuleExportsObject(parent.parent, text);
    const name = nodeText(text, parent.getChild('PropertyDefinition'));
    return { name, kind: exported ? 'function' : 'method', alone: 'expression', ...(exported ? { exportAs: name } : {}) };
  }
  if (parent.name === 'AssignmentExpression' && parent.firstChild?.name === 'MemberExpression') {
    const left = parent.firstChild;
    const object = nodeText(text, left.firstChild);
    const name = nodeText(text, left.lastChild);
    if (left.lastChild?.name !== 'PropertyName') return undefined;
    if (object === 'exports' || object === 'module.exports') return { name, kind: 'function', alone: 'expression', exportAs: name };
    const proto = /^([\p{L}_$][\p{L}\p{N}_$]*)\.prototype$/u.exec(object);
    return { name, kind: 'method', ...(proto ? { className: proto[1]! } : {}), alone: 'expression' };
  }
  return undefined;
}

function isModuleExportsObject(obj: SyntaxNode | null, text: string): boolean {
  const assign = obj?.parent;
  return obj?.name === 'ObjectExpression' && assign?.name === 'AssignmentExpression' && nodeText(text, assign.firstChild) === 'module.exports';
}

function functionFrame(node: SyntaxNode, text: string, stack: Frame[], facts: FileFacts): Frame | undefined {
  const naming = nameFunction(node, text, stack);
  if (!naming) return undefined;
  const parent = stack[stack.length - 1];
  const qualname = naming.className !== undefined && parent?.kind !== 'class' ? `${naming.className}.${naming.name}` : parent ? `${parent.qualname}.${naming.name}` : naming.name;
  const frame: Frame = { kind: 'function', name: naming.name, qualname, node };
  const block = node.getChild('Block');
  const arrowBody = node.name === 'ArrowFunction' && !block ? node.lastChild : null;
  if (!block && !arrowBody) return frame; // a declaration without a body (overload, abstract, .d.ts)
  const to = trimEnd(text, node.from, node.to);
  const params = node.getChild('ParamList');
  frame.def = {
    name: naming.name,
    qualname,
    kind: naming.kind,
    ...(naming.className !== undefined ? { className: naming.className } : {}),
    scope: scopeOf(stack),
    from: node.from,
    to,
    bodyFrom: block ? block.from + 1 : arrowBody!.from,
    bodyTo: block ? block.to - 1 : arrowBody!.to,
    alone: naming.alone,
    statements: arrowBody ? 1 : 0,
    cyclomatic: 1,
    docstring: hasDocComment(text, leadingStart(node)),
    annotated: !!node.getChild('TypeAnnotation') || !!params?.getChild('TypeAnnotation'),
    hasError: false,
  };
  if (naming.exportAs !== undefined) facts.exports.set(naming.exportAs, { local: naming.name });
  facts.defs.push(frame.def);
  return frame;
}

/** Where the statement that introduces a definition starts: a doc comment sits right before it. */
function leadingStart(node: SyntaxNode): number {
  let n = node;
  const wrappers = new Set(['VariableDeclaration', 'ExportDeclaration', 'AssignmentExpression', 'ExpressionStatement', 'Property']);
  while (n.parent && wrappers.has(n.parent.name)) n = n.parent;
  return n.from;
}

function hasDocComment(text: string, at: number): boolean {
  let i = at;
  while (i > 0 && /\s/.test(text[i - 1]!)) i--;
  if (text.slice(i - 2, i) !== '*/') return false;
  const open = text.lastIndexOf('/*', i - 2);
  return open >= 0 && text.startsWith('/**', open);
}

function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) out.push(c);
  return out;
}

/** `import d, {f as g, h} from './x.js'` and `import * as ns from './y'`. */
function readImport(node: SyntaxNode, text: string, facts: FileFacts): false {
  const module = moduleRef(text, node.getChild('String'));
  if (!module) return false;
  let star = false;
  for (const c of children(node)) {
    if (c.name === 'Star') star = true;
    else if (c.name === 'VariableDefinition') {
      const local = nodeText(text, c);
      facts.bindings.set(local, star ? { kind: 'module', module } : { kind: 'symbol', module, name: 'default' });
    } else if (c.name === 'ImportGroup') {
      let imported: string | undefined;
      for (const g of children(c)) {
        if (g.name === 'VariableName') imported = nodeText(text, g);
        else if (g.name === 'VariableDefinition') {
          const local = nodeText(text, g);
          facts.bindings.set(local, { kind: 'symbol', module, name: imported ?? local });
          imported = undefined;
        }
      }
    }
  }
  return false;
}

/** `export function f`, `export default f`, `export { a as b }`, `export { c } from './c'`, `export * from './d'`. */
function readExport(node: SyntaxNode, text: string, facts: FileFacts): void {
  const parts = children(node);
  const isDefault = parts.some((c) => c.name === 'default');
  const from = moduleRef(text, node.getChild('String'));
  for (const c of parts) {
    if (c.name === 'Star' && from) facts.stars.push(from);
    else if (c.name === 'FunctionDeclaration' || c.name === 'ClassDeclaration') {
      const name = nodeText(text, c.getChild('VariableDefinition'));
      if (name) facts.exports.set(name, { local: name });
      if (name && isDefault) facts.exports.set('default', { local: name });
    } else if (c.name === 'VariableDeclaration') {
      for (const v of c.getChildren('VariableDefinition')) facts.exports.set(nodeText(text, v), { local: nodeText(text, v) });
    } else if (c.name === 'VariableName' && isDefault) facts.exports.set('default', { local: nodeText(text, c) });
    else if (c.name === 'ExportGroup') readExportGroup(c, text, facts, from);
  }
}

function readExportGroup(group: SyntaxNode, text: string, facts: FileFacts, from: ModuleRef | undefined): void {
  let local: string | undefined;
  let alias = false;
  const flush = (exported: string) => {
    if (local === undefined) return;
    facts.exports.set(exported, from ? { module: from, name: local } : { local });
    local = undefined;
  };
  for (const g of children(group)) {
    if (g.name === 'as') alias = true;
    else if (g.name === 'VariableName' || g.name === 'VariableDefinition') {
      const name = nodeText(text, g);
      if (alias) {
        flush(name);
        alias = false;
      } else {
        if (local !== undefined) flush(local);
        local = name;
      }
    }
  }
  if (local !== undefined) flush(local);
}

/** `module.exports = { a, b: c }`, `module.exports = f`, `exports.x = y`. */
function readCommonJsExport(node: SyntaxNode, text: string, facts: FileFacts): void {
  const left = node.firstChild;
  const right = node.lastChild;
  if (left?.name !== 'MemberExpression' || !right) return;
  const target = nodeText(text, left);
  if (target === 'module.exports') {
    if (right.name === 'VariableName') facts.exports.set('default', { local: nodeText(text, right) });
    if (right.name !== 'ObjectExpression') return;
    for (const p of right.getChildren('Property')) {
      const key = p.getChild('PropertyDefinition');
      const value = p.lastChild;
      if (!key) continue;
      if (value && value.from === key.from) facts.exports.set(nodeText(text, key), { local: nodeText(text, key) });
      else if (value?.name === 'VariableName') facts.exports.set(nodeText(text, key), { local: nodeText(text, value) });
    }
    return;
  }
  const m = /^(?:module\.)?exports\.([\p{L}_$][\p{L}\p{N}_$]*)$/u.exec(target);
  if (m && right.name === 'VariableName') facts.exports.set(m[1]!, { local: nodeText(text, right) });
}

/** `const q = require('./q')`, `const {r, s: t} = require('./r')`. */
function readRequire(call: SyntaxNode, text: string, facts: FileFacts): boolean {
  const args = call.getChild('ArgList');
  const module = moduleRef(text, args?.getChild('String') ?? null);
  if (!module) return false;
  const decl = call.parent;
  if (decl?.name !== 'VariableDeclaration' || call.prevSibling?.name !== 'Equals') return true;
  const target = call.prevSibling.prevSibling;
  if (target?.name === 'VariableDefinition') facts.bindings.set(nodeText(text, target), { kind: 'module', module });
  else if (target?.name === 'ObjectPattern') {
    for (const p of target.getChildren('PatternProperty')) {
      const local = p.getChild('VariableDefinition');
      const key = p.getChild('PropertyName');
      if (local) facts.bindings.set(nodeText(text, local), { kind: 'symbol', module, name: nodeText(text, key ?? local) });
    }
  }
  return true;
}

function recordCall(node: SyntaxNode, text: string, stack: Frame[], facts: FileFacts): void {
  const callee = node.firstChild;
  if (!callee) return;
  if (callee.name === 'VariableName' && nodeText(text, callee) === 'require' && readRequire(node, text, facts)) return;
  const site = callContext(stack, node.from);
  if (callee.name === 'VariableName') facts.calls.push({ ...site, callee: { kind: 'name', name: nodeText(text, callee) } });
  else if (callee.name === 'MemberExpression') {
    const object = callee.firstChild;
    const property = callee.lastChild;
    if (!object || (property?.name !== 'PropertyName' && property?.name !== 'PrivatePropertyName')) return;
    const objectText = object.name === 'this' ? 'this' : dottedText(nodeText(text, object));
    facts.calls.push({ ...site, callee: { kind: 'member', object: objectText, property: nodeText(text, property) } });
  }
}
