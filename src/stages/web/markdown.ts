import { Element, Text, attr, descendants, textOf, type AnyNode } from './html.js';

/**
 * Renders the chosen content as normalized Markdown. Code blocks are fenced and their text is
 * byte-exact (entities are already decoded by the parser; line-number gutters and copy buttons
 * are left out). Fenced blocks are never indented or quoted, even inside lists and block quotes,
 * so their bytes stay exact. Recursion depth follows the tree depth, which the caller caps.
 */
export interface MarkdownOptions {
  /** Keep images as their alt text (default: drop them). */
  keepImageAlt?: boolean;
}

export interface CodeBlock {
  lang: string;
  text: string;
}

export interface Rendered {
  markdown: string;
  codeBlocks: CodeBlock[];
}

interface Block {
  text: string;
  /** A fenced code block: never prefixed or indented. */
  code?: boolean;
}

const INLINE_TAGS = new Set([
  'a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'br', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'img', 'ins', 'kbd',
  'mark', 'q', 'rp', 'rt', 'ruby', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var', 'wbr',
  'nobr', 'label', 'math',
]);
const BLOCK_LIKE = new Set(['div', 'p', 'pre', 'ul', 'ol', 'table', 'blockquote', 'section', 'article', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dl', 'figure', 'hr', 'li', 'header', 'main', 'address', 'details']);
const CODE_TAGS = new Set(['code', 'kbd', 'samp', 'tt']);
/** Line-number gutters, copy buttons and prompts-toggles that code widgets add around the code. */
const CODE_CHROME =
  /(?:^|\s)(?:linenos?|lineno|linenumbers?|line-numbers?-rows|line-number|gutter|rouge-gutter|hljs-ln-numbers|blob-num|ln-num|copy|copy-?button|btn-copy|code-copy[\w-]*|clipboard[\w-]*|copybtn)(?:\s|$)/i;
const NO_LANGUAGE = new Set(['none', 'nohighlight', 'default', 'plain', 'plaintext', 'text', 'notranslate', 'hljs', 'highlight', 'code', 'source', 'sourcecode', 'prettyprint', 'linenums', 'line-numbers']);
const BR = '\uE000';

export function isCodeChrome(e: Element): boolean {
  const cls = attr(e, 'class');
  return (cls !== '' && CODE_CHROME.test(cls)) || e.name === 'button';
}

/** The language a page gives a code block: data attributes, then class names, on the block, its code child or its wrappers. */
export function codeLanguage(pre: Element): string {
  const candidates: Element[] = [pre];
  const child = pre.children.find((c): c is Element => c instanceof Element && CODE_TAGS.has(c.name));
  if (child) candidates.unshift(child);
  for (let p = pre.parent, i = 0; p instanceof Element && i < 3; p = p.parent, i++) candidates.push(p);
  for (const e of candidates) {
    for (const a of ['data-lang', 'data-language', 'data-code-language', 'lang']) {
      const v = attr(e, a).trim().toLowerCase();
      if (v && e.name !== 'html' && !NO_LANGUAGE.has(v) && /^[\w+#.-]{1,30}$/.test(v) && (a !== 'lang' || e === pre || e === child)) return v;
    }
    const cls = attr(e, 'class');
    const brush = /brush:\s*([\w+#-]+)/i.exec(cls);
    if (brush) return brush[1]!.toLowerCase();
    const tokens = cls.split(/\s+/).filter(Boolean);
    for (let i = 0; i < tokens.length; i++) {
      const m = /^(?:language|lang|highlight-source|highlight|hljs|sourcecode|code)[-_:]([\w+#.-]+)$/i.exec(tokens[i]!);
      if (m && !NO_LANGUAGE.has(m[1]!.toLowerCase())) return m[1]!.toLowerCase();
      // pandoc writes class="sourceCode python"
      if (/^sourcecode$/i.test(tokens[i]!) && tokens[i + 1] && !NO_LANGUAGE.has(tokens[i + 1]!.toLowerCase())) return tokens[i + 1]!.toLowerCase();
    }
  }
  return '';
}

/** A code block's text: the text of its subtree without gutters and buttons, <br> as a newline, block children on their own lines. */
export function codeText(pre: Element, removed?: Set<Element>): string {
  const out: string[] = [];
  const stack: (AnyNode | 'newline')[] = [...pre.children].reverse();
  const ensureNewline = () => {
    const last = out[out.length - 1];
    if (last !== undefined && !last.endsWith('\n')) out.push('\n');
  };
  while (stack.length) {
    const n = stack.pop()!;
    if (n === 'newline') ensureNewline();
    else if (n instanceof Text) out.push(n.data);
    else if (n instanceof Element) {
      if (isCodeChrome(n) || removed?.has(n)) continue;
      if (n.name === 'br') {
        out.push('\n');
        continue;
      }
      const block = n.name === 'div' || n.name === 'p' || n.name === 'li' || n.name === 'tr';
      if (block) {
        ensureNewline();
        stack.push('newline');
      }
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
    }
  }
  const text = out.join('');
  // The HTML parsing rules drop one newline right after <pre>.
  return text.startsWith('\n') ? text.slice(1) : text;
}

/** A multi-line <code> standing alone (not a soft-wrapped inline code inside a sentence) is a code block. */
function isCodeBlockWithoutPre(code: Element): boolean {
  if (!textOf(code).trim().includes('\n')) return false;
  const siblings = code.parent && 'children' in code.parent ? (code.parent as Element).children : [];
  return siblings.every((s) => s === code || (s instanceof Text && !s.data.trim()));
}

export function fence(code: string, lang: string): string {
  let longest = 0;
  for (const m of code.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = '`'.repeat(Math.max(3, longest + 1));
  return `${f}${lang}\n${code}${code.endsWith('\n') || code === '' ? '' : '\n'}${f}`;
}

function inlineCode(text: string): string {
  const t = text.replace(/\s+/g, ' ');
  if (!t.trim()) return t;
  let longest = 0;
  for (const m of t.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const d = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${d}${pad}${t}${pad}${d}`;
}

const EMPHASIS = new Map([['strong', '**'], ['b', '**'], ['em', '*'], ['i', '*']]);

/** Emphasis around the text, not around the spaces or line breaks at its edges (`**a<br>**b` breaks the span). */
function wrap(s: string, mark: string): string {
  const m = /^([\s\uE000]*)([^]*?)([\s\uE000]*)$/.exec(s)!;
  return m[2] ? `${m[1]}${mark}${m[2]}${mark}${m[3]}` : s;
}

/**
 * Zero-width spaces only mark where a browser may break a line: never text. Soft hyphens stay, as
 * the page, readability.js, trafilatura and text copied from the page have them.
 */
const INVISIBLE_BREAKS = /\u200b/g;

function normalizeInline(s: string): string {
  return s
    .replace(INVISIBLE_BREAKS, '')
    .replace(/[ \t\n\r\f\u00a0]+/g, ' ')
    .split(BR)
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
}

/**
 * Text that starts a line the way Markdown syntax does ("1. I think...", "- 5 degrees", "# 3") is
 * escaped, as CommonMark says, so a paragraph is not read back as a list item or a heading.
 */
export function escapeLineStarts(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2').replace(/^([-+*]|#{1,6})(?=\s|$)/, '\\$1').replace(/^>/, '\\>'))
    .join('\n');
}

function prefixLines(text: string, first: string, rest: string): string {
  return text
    .split('\n')
    .map((l, i) => (i === 0 ? first : l ? rest : rest.trimEnd()) + l)
    .join('\n');
}

const CODE_CHROME_MAX_CHARS = 40;

function collapsedTextLength(e: Element): number {
  return textOf(e).replace(/\s+/g, ' ').trim().length;
}

export class MarkdownRenderer {
  readonly codeBlocks: CodeBlock[] = [];
  /** Elements with a code block inside: never flattened as inline text. */
  private readonly holdsCode = new Set<Element>();

  constructor(
    private readonly removed: Set<Element>,
    private readonly options: MarkdownOptions = {},
  ) {}

  /**
   * The page's `<title>` is not added as a heading: it is `meta.title`, and it is not the
   * article's text (it often carries the site name, and no reference extraction includes it).
   */
  render(roots: Element[]): Rendered {
    for (const r of roots) this.markCodeHolders(r);
    const blocks: Block[] = [];
    for (const r of roots) append(blocks, this.element(r));
    return { markdown: blocks.map((b) => b.text).join('\n\n'), codeBlocks: this.codeBlocks };
  }

  private markCodeHolders(root: Element): void {
    for (const d of descendants(root)) {
      if (d.name !== 'pre' && !(d.name === 'code' && isCodeBlockWithoutPre(d))) continue;
      for (let p: Element | null = d; p instanceof Element && !this.holdsCode.has(p); p = p.parent instanceof Element ? p.parent : null) {
        this.holdsCode.add(p);
        if (p === root) break;
      }
    }
  }

  private skip(e: Element): boolean {
    // A copy button is a few words; a block of text whose class happens to say "copy" is content.
    return this.removed.has(e) || (isCodeChrome(e) && (e.name === 'button' || collapsedTextLength(e) <= CODE_CHROME_MAX_CHARS));
  }

  private isInline(e: Element): boolean {
    if (!INLINE_TAGS.has(e.name) || this.holdsCode.has(e)) return false;
    return !e.children.some((c) => c instanceof Element && BLOCK_LIKE.has(c.name));
  }

  /** Block-level rendering of a list of children, gathering runs of inline content into paragraphs. */
  private blocks(children: AnyNode[]): Block[] {
    const out: Block[] = [];
    let inline: AnyNode[] = [];
    const flush = () => {
      const t = escapeLineStarts(normalizeInline(this.inlineRun(inline)));
      if (t) out.push({ text: t });
      inline = [];
    };
    for (const c of children) {
      if (c instanceof Text) inline.push(c);
      else if (c instanceof Element && !this.skip(c)) {
        if (this.isInline(c)) inline.push(c);
        else {
          flush();
          append(out, this.element(c));
        }
      }
    }
    flush();
    return out;
  }

  private element(e: Element): Block[] {
    if (this.skip(e)) return [];
    if (this.isInline(e)) {
      const t = escapeLineStarts(normalizeInline(this.inline(e)));
      return t ? [{ text: t }] : [];
    }
    const name = e.name;
    if (/^h[1-6]$/.test(name)) {
      const t = this.inlineText(e.children).replace(/\n/g, ' ');
      return t ? [{ text: `${'#'.repeat(Number(name[1]))} ${t}` }] : [];
    }
    switch (name) {
      case 'pre':
      case 'code':
      case 'xmp':
      case 'listing':
      case 'plaintext':
        return [this.codeBlock(e)];
      case 'ul':
      case 'ol':
        return this.list(e);
      case 'blockquote':
        return this.blocks(e.children).map((b) => (b.code ? b : { text: prefixLines(b.text, '> ', '> ') }));
      case 'table':
        return this.table(e);
      case 'hr':
        return [{ text: '---' }];
      default:
        return this.blocks(e.children);
    }
  }

  private codeBlock(e: Element): Block {
    const text = codeText(e, this.removed);
    const lang = codeLanguage(e);
    this.codeBlocks.push({ lang, text });
    return { text: fence(text, lang), code: true };
  }

  private list(e: Element): Block[] {
    const ordered = e.name === 'ol';
    let n = Number.parseInt(attr(e, 'start'), 10);
    if (!Number.isFinite(n)) n = 1;
    const items: Block[] = [];
    for (const item of listItems(e)) {
      if (item instanceof Element && this.skip(item)) continue;
      const inner = !(item instanceof Element) ? this.blocks(item) : item.name === 'li' ? this.blocks(item.children) : this.element(item);
      if (!inner.length) continue;
      const marker = ordered ? `${n++}. ` : '- ';
      const indent = ' '.repeat(marker.length);
      let firstDone = false;
      const parts: Block[] = [];
      for (const b of inner) {
        if (b.code) parts.push(b);
        else {
          parts.push({ text: prefixLines(b.text, firstDone ? indent : marker, indent) });
          firstDone = true;
        }
      }
      append(items, parts);
    }
    // Items of one list sit on consecutive lines; a code block breaks the list with blank lines.
    const out: Block[] = [];
    for (const b of items) {
      const last = out[out.length - 1];
      if (last && !last.code && !b.code) last.text += '\n' + b.text;
      else out.push({ ...b });
    }
    return out;
  }

  private table(e: Element): Block[] {
    const rows: Element[][] = [];
    let layout = false;
    const stack: Element[] = [e];
    while (stack.length && !layout) {
      const t = stack.pop()!;
      for (const c of t.children) {
        if (!(c instanceof Element) || this.skip(c)) continue;
        if (c.name === 'thead' || c.name === 'tbody' || c.name === 'tfoot') stack.push(c);
        else if (c.name === 'tr') {
          const cells = c.children.filter((x): x is Element => x instanceof Element && (x.name === 'td' || x.name === 'th') && !this.skip(x));
          for (const cell of cells) {
            for (const d of descendants(cell)) if (d.name === 'table' || d.name === 'pre' || d.name === 'ul' || d.name === 'ol') layout = true;
          }
          rows.push(cells);
        }
      }
    }
    const cols = rows.reduce((m, r) => Math.max(m, r.length), 0);
    if (layout || cols < 2 || rows.length === 0) return this.blocks(e.children.filter((c) => !(c instanceof Element && this.skip(c))).flatMap((c) => flattenTableChildren(c)));
    const cellText = (cell: Element) =>
      this.blocks(cell.children)
        .map((b) => b.text)
        .join(' ')
        .replace(/\n/g, ' ')
        .replace(/\|/g, '\\|');
    const lines = rows.map((r) => {
      const cells = r.map(cellText);
      while (cells.length < cols) cells.push('');
      return `| ${cells.join(' | ')} |`;
    });
    lines.splice(1, 0, `|${' --- |'.repeat(cols)}`);
    const caption = e.children.find((c): c is Element => c instanceof Element && c.name === 'caption');
    const out: Block[] = [];
    if (caption) append(out, this.blocks(caption.children));
    out.push({ text: lines.join('\n') });
    return out;
  }

  private inlineText(children: AnyNode[]): string {
    return normalizeInline(this.inlineRun(children));
  }

  /**
   * Inline children in order. Adjacent emphasis of one kind (`<em>Call Me </em><em>b</em><em>y Your
   * Name</em>`, an editor's split) is one span: `*b**y*` would read back as two words.
   */
  private inlineRun(children: AnyNode[]): string {
    let out = '';
    for (let i = 0; i < children.length; i++) {
      const c = children[i]!;
      if (c instanceof Text) out += c.data;
      if (!(c instanceof Element) || this.skip(c)) continue;
      const mark = EMPHASIS.get(c.name);
      if (!mark) {
        out += this.inline(c);
        continue;
      }
      let inner = this.inlineRun(c.children);
      for (let n = children[i + 1]; n instanceof Element && EMPHASIS.get(n.name) === mark; n = children[i + 1]) {
        if (!this.skip(n)) inner += this.inlineRun(n.children);
        i++;
      }
      out += wrap(inner, mark);
    }
    return out;
  }

  private inline(e: Element): string {
    if (this.skip(e)) return '';
    const inner = () => this.inlineRun(e.children);
    switch (e.name) {
      case 'br':
        return BR;
      case 'img':
        return this.options.keepImageAlt ? attr(e, 'alt').replace(/\s+/g, ' ').trim() : '';
      case 'code':
      case 'kbd':
      case 'samp':
      case 'tt':
        return inlineCode(textOf(e, (x) => this.skip(x)));
      case 'strong':
      case 'b':
        return wrap(inner(), '**');
      case 'em':
      case 'i':
        return wrap(inner(), '*');
      default:
        return inner();
    }
  }
}

/** push(...xs) overflows the call stack for very long pages: append in a loop. */
function append<T>(out: T[], xs: T[]): void {
  for (const x of xs) out.push(x);
}

/** Rows of a layout table become plain block children. */
function flattenTableChildren(n: AnyNode): AnyNode[] {
  if (n instanceof Element && ['tbody', 'thead', 'tfoot', 'tr'].includes(n.name)) return n.children.flatMap(flattenTableChildren);
  return [n];
}

/**
 * A list's items: its element children (`<li>`s, and a nested list or a stray block as before). A
 * list without any `<li>` is an indented block (old pages indent prose with a bare `<ul>`): there
 * each run of text and inline elements is an item too. In a list with items, stray text stays out
 * (there it is mostly a server's error message).
 */
function listItems(list: Element): (Element | AnyNode[])[] {
  const hasItems = list.children.some((c) => c instanceof Element && c.name === 'li');
  const items: (Element | AnyNode[])[] = [];
  let run: AnyNode[] = [];
  for (const c of list.children) {
    if (c instanceof Element && (hasItems || BLOCK_LIKE.has(c.name))) {
      if (run.length) items.push(run);
      run = [];
      items.push(c);
    } else if (!hasItems) run.push(c);
  }
  if (run.length) items.push(run);
  return items;
}
