import type { Tree } from '@lezer/common';
import { parseCode, type UnitLanguage } from '../spans.js';
import type { ParseAlone } from './model.js';
import type { MiddleKind } from './options.js';

/**
 * Whether a middle is, parsed on its own, exactly one whole function (or, with `--middle body`,
 * a body that parses without error). Python middles are first dedented by the indentation of
 * their first line (a method's lines keep the class's indentation in the file); JavaScript
 * methods are parsed inside `class _ {}`, object members inside `({})`, function expressions in
 * parentheses.
 */
export function parsesAlone(middle: string, indent: string, lang: UnitLanguage, alone: ParseAlone, kind: MiddleKind): boolean {
  if (lang === 'python') {
    const tree = parseCode(dedent(middle, indent), 'python');
    if (hasError(tree)) return false;
    return kind === 'body' || onlyChildren(tree.topNode, 'FunctionDefinition');
  }
  if (kind === 'body') return !hasError(parseCode(alone === 'expression' && !middle.trimStart().startsWith('{') ? `(${middle})` : `function _() {${middle}}`, lang));
  const wrapped = { statement: middle, class_member: `class _ {\n${middle}\n}`, object_member: `({\n${middle}\n})`, expression: `(${middle})` }[alone];
  const tree = parseCode(wrapped, lang);
  if (hasError(tree)) return false;
  const top = tree.topNode;
  if (alone === 'statement') return onlyChildren(top, 'FunctionDeclaration');
  const inner = top.firstChild?.firstChild; // ClassDeclaration or ExpressionStatement > ParenthesizedExpression
  if (alone === 'class_member') return !!top.firstChild && onlyChildren(top.firstChild.getChild('ClassBody')!, 'MethodDeclaration', ['{', '}']);
  if (alone === 'object_member') return !!inner && onlyChildren(inner, 'ObjectExpression', ['(', ')']) && onlyChildren(inner.getChild('ObjectExpression')!, 'Property', ['{', '}']);
  return !!inner && inner.name === 'ParenthesizedExpression' && (onlyChildren(inner, 'ArrowFunction', ['(', ')']) || onlyChildren(inner, 'FunctionExpression', ['(', ')']));
}

/** Removes `indent` from the start of every line after the first (lines without it stay as they are). */
export function dedent(text: string, indent: string): string {
  if (!indent) return text;
  return text.replace(/\n/g, '\n\u0000').split('\u0000').map((line, i) => (i > 0 && line.startsWith(indent) ? line.slice(indent.length) : line)).join('');
}

/** The whitespace before `at` on its line, or '' when something else precedes it there. */
export function lineIndent(source: string, at: number): string {
  const start = source.lastIndexOf('\n', at - 1) + 1;
  const lead = source.slice(start, at);
  return /^[ \t]*$/.test(lead) ? lead : '';
}

function hasError(tree: Tree): boolean {
  let bad = false;
  tree.iterate({
    enter(n) {
      if (n.type.isError) bad = true;
      return !bad;
    },
  });
  return bad;
}

/** The node's children are one `name` node, besides comments and the given punctuation. */
function onlyChildren(node: { firstChild: import('@lezer/common').SyntaxNode | null }, name: string, allowed: string[] = []): boolean {
  let count = 0;
  for (let c = node.firstChild; c; c = c.nextSibling) {
    if (c.name === name) count++;
    else if (!c.name.endsWith('Comment') && !allowed.includes(c.name)) return false;
  }
  return count === 1;
}
