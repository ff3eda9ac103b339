import { parseDocument } from 'htmlparser2';
import { Element, Text, hasChildren, type AnyNode, type Document } from 'domhandler';

/**
 * HTML parsing and recursion-free DOM helpers. htmlparser2 builds the tree iteratively, but
 * its open-element stack costs O(depth) per tag, so a nesting bomb is refused by a linear
 * pre-scan before parsing; every walk here uses an explicit stack, never the call stack.
 */
export { Element, Text };
export type { AnyNode, Document };

const VOID_TAGS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'keygen']);
/** Tags the parser closes implicitly (a new <p> ends the open one): they never nest deeply. */
const IMPLIED_CLOSE_TAGS = new Set(['p', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'tbody', 'thead', 'tfoot', 'rp', 'rt']);

const TAG_SCAN = /<!--[^]*?(?:-->|$)|<(script|style|textarea|title|xmp)\b[^>]*>[^]*?(?:<\/\1\s*>|$)|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/gi;

/**
 * An upper estimate of the element nesting depth, in one linear pass that simulates the
 * parser's open-element stack (a close tag pops up to its matching open tag, a stray one is
 * ignored). Stops early once `limit` is passed.
 */
export function estimateDepth(html: string, limit = Infinity): number {
  const stack: string[] = [];
  const open = new Map<string, number>();
  let max = 0;
  TAG_SCAN.lastIndex = 0;
  for (let m = TAG_SCAN.exec(html); m; m = TAG_SCAN.exec(html)) {
    if (m[3] === undefined) continue; // comment or raw-text element: no nesting inside
    const name = m[3].toLowerCase();
    if (VOID_TAGS.has(name) || IMPLIED_CLOSE_TAGS.has(name)) continue;
    if (m[2] !== '/') {
      stack.push(name);
      open.set(name, (open.get(name) ?? 0) + 1);
      if (stack.length > max && (max = stack.length) > limit) return max;
    } else if ((open.get(name) ?? 0) > 0) {
      for (;;) {
        const top = stack.pop()!;
        open.set(top, open.get(top)! - 1);
        if (top === name) break;
      }
    }
  }
  return max;
}

export function parseHtml(html: string): Document {
  return parseDocument(html, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
}

export function isElement(n: AnyNode): n is Element {
  return n instanceof Element;
}

/** The exact depth of a parsed tree, without recursion. */
export function treeDepth(root: AnyNode): number {
  let max = 0;
  const stack: [AnyNode, number][] = [[root, 0]];
  while (stack.length) {
    const [n, d] = stack.pop()!;
    if (d > max) max = d;
    if (hasChildren(n)) for (const c of n.children) stack.push([c, d + 1]);
  }
  return max;
}

/** Elements under `root` in document order (pre-order), without recursion. */
export function* descendants(root: AnyNode, skip?: (e: Element) => boolean): Iterable<Element> {
  const stack: AnyNode[] = [...childrenOf(root)].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (!(n instanceof Element)) continue;
    if (skip?.(n)) continue;
    yield n;
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
}

function childrenOf(n: AnyNode): AnyNode[] {
  return hasChildren(n) ? n.children : [];
}

/** The text of a subtree (like the DOM's textContent), skipping elements for which `skip` is true. */
export function textOf(root: AnyNode, skip?: (e: Element) => boolean): string {
  const out: string[] = [];
  const stack: AnyNode[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n instanceof Text) out.push(n.data);
    else if (hasChildren(n)) {
      if (n instanceof Element && n !== root && skip?.(n)) continue;
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
    }
  }
  return out.join('');
}

export function attr(e: Element, name: string): string {
  return e.attribs[name] ?? '';
}

export function classAndId(e: Element): string {
  return `${e.attribs.class ?? ''} ${e.attribs.id ?? ''}`;
}

/** The first element matching `pred` in document order. */
export function findFirst(root: AnyNode, pred: (e: Element) => boolean): Element | undefined {
  for (const e of descendants(root)) if (pred(e)) return e;
  return undefined;
}
