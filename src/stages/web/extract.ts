import { dropTitleHeading, inIngredients, trimEdges } from './edges.js';
import { Element, Text, attr, classAndId, descendants, findFirst, textOf, type AnyNode, type Document } from './html.js';

/**
 * Main-content detection: the scoring idea of Mozilla Readability (paragraph scores flow to
 * their ancestors, damped by link density, the best ancestor plus its good siblings win),
 * done in a few linear passes over an htmlparser2 tree with explicit stacks, so it is fast
 * and safe on deep trees. Boilerplate is marked in `removed` rather than detached.
 */
/** Readability's fallbacks: a pass that finds too little text is retried with fewer of these. */
export interface ExtractFlags {
  stripUnlikely: boolean;
  weightClasses: boolean;
  cleanConditionally: boolean;
  /**
   * The last resort before a page is dropped as too short: forms, headers and hidden blocks
   * count as content too (ASP.NET pages wrap the whole page in one `<form>`; some pages hide
   * the article until a script shows it).
   */
  inclusive?: boolean;
}

export const EXTRACT_ATTEMPTS: ExtractFlags[] = [
  { stripUnlikely: true, weightClasses: true, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: true, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: false, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: false, cleanConditionally: false },
];

/** Names of the passes, in order, for the stage's figures (`by_pass`). */
export const EXTRACT_PASS_NAMES = ['strict', 'keep_unlikely', 'no_class_weights', 'no_conditional_cleaning', 'inclusive'] as const;

/** The pass tried when every pass of EXTRACT_ATTEMPTS yields less than the minimum text. */
export const INCLUSIVE_ATTEMPT: ExtractFlags = { stripUnlikely: false, weightClasses: false, cleanConditionally: false, inclusive: true };
/** Tags that the inclusive pass keeps although they are usually page furniture (some blogs serve the post in `<noscript>`). */
const INCLUSIVE_KEEPS = new Set(['form', 'header', 'aside', 'label', 'noscript']);

/** One scored candidate, for a reader of a failure (`npm run eval:web` lists them). */
export interface CandidateNote {
  /** The element as `tag#id.class` and its parent's, outermost last. */
  element: string;
  score: number;
  chars: number;
  linkDensity: number;
  /** Whether the block is (or is inside) the chosen content. */
  chosen: boolean;
  preview: string;
}

export interface Extraction {
  title: string;
  /** The chosen content, in document order. */
  roots: Element[];
  /** Elements dropped as boilerplate; renderers skip them and their subtrees. */
  removed: Set<Element>;
  /** The content sits where articles sit (an article region, or the title and the prose after it). */
  articleFound?: boolean;
}

/**
 * Elements that are never content. Ruby annotations (`<rt>`, `<rp>`: the furigana reading over
 * each kanji) are a reading aid, not the text: kept, "子ども" read as "子こども".
 */
const JUNK_TAGS = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed', 'button', 'input',
  'select', 'textarea', 'nav', 'aside', 'footer', 'dialog', 'menu', 'head', 'link', 'meta', 'form', 'label', 'title', 'base',
  'rt', 'rp',
]);
const JUNK_ROLES = /^(navigation|banner|contentinfo|complementary|dialog|alertdialog|menu|menubar|search|alert|toolbar)$/i;
/** Class and id names of page furniture; `reviews` is a shop's customer reviews (comments on a product), not "previews". */
const UNLIKELY =
  /-ad-|\bads?\b|advert|ai2html|banner|breadcrumb|combx|comment|comentario|commentaire|community|consent|cookie|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|newsletter|paywall|popup|promo|related|remark|replies|rss|share|sharing|shoutbox|sidebar|signup|skyscraper|social|sponsor|subscribe|supplemental|ad-break|agegate|pagination|pager|yom-remote|skip-link|toolbar|sharedaddy|jp-post-flair|post-ratings|entry-utility|postmetadata|entry-?footer|entry-meta|post-meta|author-?info|author-?description|author-?card|author-?box|wp-caption-text|nextstory|next-post|wishlist|nota_pie|placeholder|third-party|external-content|embed-privacy|two-click|2-click|(?<!p)reviews/i;
const MAYBE_CANDIDATE = /and|article|body|column|content|main|mathjax|shadow|highlight|code|syntax/i;
const NEGATIVE =
  /-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|footer|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget/i;
const POSITIVE = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story/i;
const SCORED_TAGS = new Set(['section', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'td', 'pre']);
const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'dd', 'div', 'dl', 'dt', 'fieldset', 'figure', 'footer', 'form', 'h1', 'h2',
  'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'ul',
]);
const CONDITIONAL_TAGS = new Set(['div', 'table', 'ul', 'form', 'fieldset']);

interface Stats {
  text: number;
  linkText: number;
  commas: number;
  p: number;
  img: number;
  li: number;
  input: number;
  pre: number;
  embed: number;
  heading: number;
  th: number;
  blockChildren: number;
  /** Text inside `<ul>`/`<ol>` elements. */
  listText: number;
}

const newStats = (): Stats => ({ text: 0, linkText: 0, commas: 0, p: 0, img: 0, li: 0, input: 0, pre: 0, embed: 0, heading: 0, th: 0, blockChildren: 0, listText: 0 });

export function classWeight(e: Element, flags: ExtractFlags): number {
  if (!flags.weightClasses) return 0;
  let w = 0;
  for (const s of [attr(e, 'class'), attr(e, 'id')]) {
    if (!s) continue;
    if (NEGATIVE.test(s)) w -= 25;
    if (POSITIVE.test(s)) w += 25;
  }
  return w;
}

function isHidden(e: Element): boolean {
  if ('hidden' in e.attribs || attr(e, 'aria-hidden') === 'true') return true;
  const style = attr(e, 'style');
  return style !== '' && /display\s*:\s*none|visibility\s*:\s*hidden/i.test(style);
}

function hasPre(e: Element): boolean {
  for (const d of descendants(e)) if (d.name === 'pre') return true;
  return false;
}

/** Tags that belong in `<head>`; a head holding anything else swallowed the body (no `<body>` tag). */
const HEAD_TAGS = new Set(['title', 'meta', 'link', 'script', 'style', 'base', 'noscript', 'template']);

function headHoldsBody(head: Element): boolean {
  return head.children.some((c) => c instanceof Element && !HEAD_TAGS.has(c.name));
}

/**
 * Elements that hold the page's `<main>`: broken markup (an unclosed `<header>` or `<aside>`)
 * can put the whole page inside one, and then it is not page furniture. (`<article>` does not
 * count: sidebars list teasers as articles.)
 */
function articleHolders(doc: Document): Set<Element> {
  const holders = new Set<Element>();
  for (const e of descendants(doc)) {
    if (e.name !== 'main' && attr(e, 'role') !== 'main') continue;
    for (let p = parentElement(e); p && !holders.has(p); p = parentElement(p)) holders.add(p);
  }
  return holders;
}

/** Characters of text inside `<p>` elements below `root`: the page's running prose. */
function paragraphChars(root: AnyNode): number {
  let chars = 0;
  for (const e of descendants(root, (x) => x.name === 'script' || x.name === 'style')) if (e.name === 'p') chars += collapsedLength(textOf(e));
  return chars;
}

/**
 * A block whose class name sounds like furniture ("above-footer", "header-wrap") but that holds
 * most of the page's paragraphs is the page's body wrapper: stripping it would leave the page's
 * leftovers as the "article".
 */
const UNLIKELY_KEEP_SHARE = 0.6;
const OVERLAY_NAMES = /popup|modal|overlay|consent|cookie|gdpr|dsgvo|privacy/i;
const UNLIKELY_KEEP_MIN_CHARS = 500;
function holdsMostProse(e: Element, pageProse: () => number): boolean {
  // Reader comments and privacy overlays are often most of a page's paragraphs, and still not the article.
  if (COMMENT_NAMES.test(classAndId(e)) || OVERLAY_NAMES.test(classAndId(e)) || opensWithCloseControl(e)) return false;
  // A wrapper is a div or a section; a list of that much text is a gallery's captions or a teaser list.
  if (e.name !== 'div' && e.name !== 'section') return false;
  const total = pageProse();
  return total >= UNLIKELY_KEEP_MIN_CHARS && paragraphChars(e) >= total * UNLIKELY_KEEP_SHARE;
}

/**
 * A `<header>` (or a block named "entry-header") with a title and a paragraph of prose under it
 * is the article's own header (title and lead), not the site's banner: blogs and news pages put
 * the lead there.
 */
const HEADER_LEAD_CHARS = 100;
const HEADER_TITLES = new Set(['h1', 'h2']);
/** A block only named like a header (dialogs and widgets have "-header" parts too) needs the page's own `<h1>`. */
const NAMED_HEADER_TITLES = new Set(['h1']);
function isArticleHeader(header: Element, titleTags: ReadonlySet<string>): boolean {
  let title = false;
  let lead = false;
  for (const e of descendants(header)) {
    if (titleTags.has(e.name)) title = true;
    else if (e.name === 'p' && !lead) lead = collapsedLength(textOf(e)) >= HEADER_LEAD_CHARS;
  }
  return title && lead;
}

/**
 * Marks boilerplate: junk tags, hidden elements, navigation roles, unlikely class names. Class
 * names inside a table or code are not read as furniture, as in Readability: a table's cells are
 * its data (a status table's column heads are `td.header_cell`), and a highlighter's
 * `span.token.comment` in a `<pre>` is the code's own comment.
 */
function markBoilerplate(doc: Document, flags: ExtractFlags): Set<Element> {
  const removed = new Set<Element>();
  const holders = articleHolders(doc);
  let pageProseChars: number | undefined;
  const pageProse = () => (pageProseChars ??= paragraphChars(doc));
  const stack: [AnyNode, boolean, boolean][] = doc.children.map((c) => [c, false, false] as [AnyNode, boolean, boolean]).reverse();
  while (stack.length) {
    const [n, inArticle, inTableOrCode] = stack.pop()!;
    if (!(n instanceof Element)) continue;
    const name = n.name;
    const role = attr(n, 'role');
    const names = classAndId(n);
    // Not a comment form, even in the inclusive pass: it is never the article, only its replies.
    const furniture = JUNK_TAGS.has(name) && !(flags.inclusive && INCLUSIVE_KEEPS.has(name) && !COMMENT_NAMES.test(names));
    const drop =
      (furniture && !holders.has(n) && !(name === 'head' && headHoldsBody(n))) ||
      (name === 'header' && !inArticle && !flags.inclusive && !holders.has(n) && !isArticleHeader(n, HEADER_TITLES)) ||
      (isHidden(n) && !flags.inclusive) ||
      (JUNK_ROLES.test(role) && !holders.has(n)) ||
      (flags.stripUnlikely && !inTableOrCode && name !== 'body' && name !== 'html' && name !== 'a' && name !== 'article' && name !== 'main' && name !== 'pre' && name !== 'code' &&
        (UNLIKELY.test(names) || opensWithCloseControl(n)) && !MAYBE_CANDIDATE.test(names) && !holders.has(n) && !hasPre(n) && !holdsMostProse(n, pageProse) && !isArticleHeader(n, NAMED_HEADER_TITLES));
    if (drop) {
      removed.add(n);
      continue;
    }
    const inside = inArticle || name === 'article' || name === 'main' || role === 'main';
    const tableOrCodeInside = inTableOrCode || name === 'table' || name === 'pre' || name === 'code';
    for (let i = n.children.length - 1; i >= 0; i--) stack.push([n.children[i]!, inside, tableOrCodeInside]);
  }
  return removed;
}

/**
 * A block whose first element is a close control ("Schließen [X]", `.close`, `data-dismiss`) is a
 * dialog or an overlay (shipping terms, a newsletter box) that a script opens over the page.
 */
function opensWithCloseControl(e: Element): boolean {
  if (e.name !== 'div' && e.name !== 'section') return false;
  const first = e.children.find((c): c is Element => c instanceof Element);
  return first !== undefined && (CLOSE_CONTROL.test(classAndId(first)) || attr(first, 'data-dismiss') !== '' || attr(first, 'data-bs-dismiss') !== '');
}
const CLOSE_CONTROL = /(^|[-_\s])close([-_\s]|$)/i;

function collapsedLength(s: string): number {
  let len = 0;
  let space = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const isSpace = c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 160;
    if (isSpace) {
      if (!space) len++;
      space = true;
    } else {
      len++;
      space = false;
    }
  }
  return len;
}

function countCommas(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 44 || s.charCodeAt(i) === 0xff0c) n++;
  return n;
}

/** Subtree figures for every live element, in one post-order pass. */
function computeStats(doc: Document, removed: Set<Element>): Map<Element, Stats> {
  const stats = new Map<Element, Stats>();
  const stack: [AnyNode, boolean][] = doc.children.map((c) => [c, false] as [AnyNode, boolean]).reverse();
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    const [n, visited] = top;
    if (!(n instanceof Element) || removed.has(n)) {
      stack.pop();
      continue;
    }
    if (!visited) {
      top[1] = true;
      for (let i = n.children.length - 1; i >= 0; i--) stack.push([n.children[i]!, false]);
      continue;
    }
    stack.pop();
    const s = newStats();
    for (const c of n.children) {
      if (c instanceof Text) {
        const len = collapsedLength(c.data);
        s.text += len;
        s.commas += countCommas(c.data);
      } else if (c instanceof Element) {
        const cs = stats.get(c);
        if (!cs) continue;
        s.text += cs.text;
        s.linkText += cs.linkText;
        s.commas += cs.commas;
        s.p += cs.p;
        s.img += cs.img;
        s.li += cs.li;
        s.input += cs.input;
        s.pre += cs.pre;
        s.embed += cs.embed;
        s.heading += cs.heading;
        s.th += cs.th;
        s.listText += cs.listText;
        if (BLOCK_TAGS.has(c.name)) s.blockChildren++;
      }
    }
    const name = n.name;
    // Links within the page (a table of contents, footnotes) weigh less than links away from it, as in Readability.
    if (name === 'a') s.linkText = attr(n, 'href').startsWith('#') ? Math.round(s.text * IN_PAGE_LINK_WEIGHT) : s.text;
    else if (name === 'p') s.p++;
    else if (name === 'img') s.img++;
    else if (name === 'li') s.li++;
    else if (name === 'input') s.input++;
    else if (name === 'pre') s.pre++;
    else if (name === 'video' || name === 'audio' || name === 'embed' || name === 'object' || name === 'iframe') s.embed++;
    else if (name === 'th') s.th++;
    if (/^h[1-6]$/.test(name)) s.heading += s.text;
    if (name === 'ul' || name === 'ol') s.listText = s.text;
    stats.set(n, s);
  }
  return stats;
}

const IN_PAGE_LINK_WEIGHT = 0.3;

function linkDensity(s: Stats): number {
  return s.text === 0 ? 0 : s.linkText / s.text;
}

function initialScore(e: Element, flags: ExtractFlags): number {
  let score = classWeight(e, flags);
  switch (e.name) {
    case 'div':
    case 'article':
    case 'main':
      score += 5;
      break;
    case 'pre':
    case 'td':
    case 'blockquote':
      score += 3;
      break;
    case 'address':
    case 'ol':
    case 'ul':
    case 'dl':
    case 'dd':
    case 'dt':
    case 'li':
    case 'form':
      score -= 3;
      break;
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
    case 'th':
      score -= 5;
      break;
  }
  return score;
}

function parentElement(e: Element): Element | undefined {
  return e.parent instanceof Element ? e.parent : undefined;
}

/** Scores paragraph-like elements and propagates to five ancestor levels, as Readability does. */
function scoreCandidates(body: Element, removed: Set<Element>, stats: Map<Element, Stats>, flags: ExtractFlags): Map<Element, number> {
  const scores = new Map<Element, number>();
  for (const e of descendants(body, (x) => removed.has(x))) {
    const s = stats.get(e)!;
    const paragraphLike = SCORED_TAGS.has(e.name) || (e.name === 'div' && s.blockChildren === 0);
    if (!paragraphLike || s.text < 25) continue;
    const score = 1 + s.commas + Math.min(Math.floor(s.text / 100), 3);
    let anc = parentElement(e);
    for (let level = 0; anc && level < 5; level++, anc = parentElement(anc)) {
      if (anc.name === 'html') break;
      if (!scores.has(anc)) scores.set(anc, initialScore(anc, flags));
      const divider = level === 0 ? 1 : level === 1 ? 2 : level * 3;
      scores.set(anc, scores.get(anc)! + score / divider);
    }
  }
  for (const [e, v] of scores) scores.set(e, v * (1 - linkDensity(stats.get(e)!)));
  return scores;
}

/**
 * Where articles sit: `<article>`, `<main>` (or role=main) and the schema.org article body
 * (`itemprop=articleBody`, an `itemtype` of an Article or a BlogPosting).
 */
function isArticleRegion(e: Element): boolean {
  if (e.name === 'article' || e.name === 'main' || attr(e, 'role') === 'main') return true;
  return /articlebody/i.test(attr(e, 'itemprop')) || /schema\.org\/(\w*Article|BlogPosting|Report)\b/i.test(attr(e, 'itemtype'));
}

function articleRegionOf(e: Element): Element | undefined {
  for (let x: Element | undefined = e; x && x.name !== 'body'; x = parentElement(x)) if (isArticleRegion(x)) return x;
  return undefined;
}

/** Whether a block holds or sits in an article region. */
function touchesArticleRegion(e: Element): boolean {
  if (articleRegionOf(e)) return true;
  for (const d of descendants(e)) if (isArticleRegion(d)) return true;
  return false;
}

/**
 * A short page: when no candidate is long, the best-scoring block can be site furniture (a
 * customer-service notice, a subscription box) that outscores a short article by a few commas.
 * The block where articles sit wins then: one in an article region, or the prose right after the
 * page's title (`<h1>`), if it scores a fair share of the top.
 */
function preferArticlePlace(top: Element, scores: Map<Element, number>, stats: Map<Element, Stats>, title: Element | undefined): Element {
  const topText = stats.get(top)?.text ?? 0;
  if (topText >= SHORT_ARTICLE_CHARS || touchesArticleRegion(top) || (title && isAfterTitle(top, title))) return top;
  const topScore = scores.get(top) ?? 0;
  // The top is one entry of a listing (a project list, teasers): a standalone block is the page's own text.
  const topInListing = listingItemOf(top) !== undefined;
  let best: Element | undefined;
  for (const [e, score] of scores) {
    const s = stats.get(e)!;
    if (score < topScore * ARTICLE_PLACE_MIN_SCORE_SHARE || s.text < ARTICLE_PLACE_MIN_CHARS || linkDensity(s) >= 0.3 || s.p + s.commas === 0) continue;
    if (!articleRegionOf(e) && !(title && isAfterTitle(e, title)) && !(topInListing && !listingItemOf(e))) continue;
    if (!best || score > scores.get(best)!) best = e;
  }
  return best ?? top;
}
const SHORT_ARTICLE_CHARS = 1000;
const ARTICLE_PLACE_MIN_SCORE_SHARE = 0.25;
const ARTICLE_PLACE_MIN_CHARS = 100;
const AFTER_TITLE_LEVELS = 2;

/**
 * The entry of a listing the block sits in: an ancestor (the block itself or up to four levels
 * above) among three or more siblings of its tag and class that each hold a heading of their own.
 */
function listingItemOf(e: Element): Element | undefined {
  let item: Element | undefined = e;
  for (let level = 0; item && item.name !== 'body' && level <= LISTING_ITEM_LEVELS; level++, item = parentElement(item)) {
    const parent = parentElement(item);
    if (!parent) return undefined;
    const cls = attr(item, 'class');
    let entries = 0;
    for (const c of parent.children) if (c instanceof Element && c.name === item.name && attr(c, 'class') === cls && findFirst(c, (x) => /^h[1-4]$/.test(x.name))) entries++;
    if (entries >= LISTING_MIN_ENTRIES) return item;
  }
  return undefined;
}
const LISTING_MIN_ENTRIES = 3;

/** The block comes after the title, and the title sits at most two levels above it (in its parent or grandparent). */
function isAfterTitle(e: Element, title: Element): boolean {
  let anc = parentElement(e);
  for (let i = 0; anc && i < AFTER_TITLE_LEVELS; i++, anc = parentElement(anc)) if (isAncestor(anc, title)) return precedes(title, e);
  return false;
}

/** The page's title heading: its first `<h1>` still in the page. */
function titleHeading(body: Element, removed: Set<Element>): Element | undefined {
  for (const e of descendants(body, (x) => removed.has(x))) if (e.name === 'h1') return e;
  return undefined;
}

function pickTop(body: Element, scores: Map<Element, number>): Element {
  const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]);
  if (!ranked.length) return body;
  let [top, topScore] = ranked[0]!;
  // When several strong candidates share an ancestor, the content is that ancestor.
  const alternatives = ranked.slice(1, 5).filter(([, v]) => v / topScore >= 0.75).map(([e]) => e);
  if (alternatives.length >= 3) {
    for (let anc = parentElement(top); anc && anc.name !== 'body' && anc.name !== 'html'; anc = parentElement(anc)) {
      const containing = alternatives.filter((a) => isAncestor(anc!, a)).length;
      if (containing >= 3) {
        top = anc;
        break;
      }
    }
  }
  // A parent whose score is close to the child's holds more of the same content.
  for (let anc = parentElement(top); anc && anc.name !== 'body' && anc.name !== 'html'; anc = parentElement(anc)) {
    const s = scores.get(anc);
    if (s === undefined || s < (scores.get(top) ?? topScore) * 0.9) break;
    top = anc;
  }
  return TABLE_PARTS.has(top.name) ? climbToRisingAncestor(top, scores) : top;
}

/**
 * A table's cells are scored paragraphs, so a long table can be the top candidate while the
 * article's other text sits around it. Scores fall with each level up, so an ancestor that scores
 * more than the level below it holds content of its own beside the table: as Readability does,
 * the walk goes up while ancestors keep a third of the top's score and stops at the first that
 * rises (wikipedia-4: a list article that is mostly one table). Only from a table: from any top,
 * the climb reached a whole page layout (yahoo-3 0.997 -> 0.585).
 */
const TABLE_PARTS = new Set(['table', 'tbody', 'thead', 'tr']);
function climbToRisingAncestor(top: Element, scores: Map<Element, number>): Element {
  const threshold = (scores.get(top) ?? 0) / 3;
  let last = scores.get(top) ?? 0;
  for (let anc = parentElement(top); anc && anc.name !== 'body' && anc.name !== 'html'; anc = parentElement(anc)) {
    const s = scores.get(anc);
    if (s === undefined) continue;
    if (s < threshold) break;
    if (s > last) return anc;
    last = s;
  }
  return top;
}

function isAncestor(anc: Element, e: Element): boolean {
  for (let p = parentElement(e); p; p = parentElement(p)) if (p === anc) return true;
  return false;
}

const SIBLING_PROSE_CHARS = 140;

/** The top candidate plus siblings that look like part of the same article. */
function gatherSiblings(top: Element, scores: Map<Element, number>, stats: Map<Element, Stats>, removed: Set<Element>): Element[] {
  const parent = parentElement(top);
  if (!parent || top.name === 'body') return [top];
  const topScore = scores.get(top) ?? 0;
  const threshold = Math.max(10, topScore * 0.2);
  const out: Element[] = [];
  for (const sib of parent.children) {
    if (!(sib instanceof Element) || removed.has(sib)) continue;
    if (sib === top) {
      out.push(sib);
      continue;
    }
    const s = stats.get(sib);
    if (!s) continue;
    let bonus = 0;
    if (attr(sib, 'class') && attr(sib, 'class') === attr(top, 'class')) bonus += topScore * 0.2;
    const score = scores.get(sib);
    if (score !== undefined && score + bonus >= threshold) {
      out.push(sib);
    } else if (sib.name === 'p' || sib.name === 'pre') {
      const ld = linkDensity(s);
      if ((s.text > 80 && ld < 0.25) || (s.text > 0 && s.text <= 80 && ld === 0 && /\.( |$)/.test(textOf(sib)))) out.push(sib);
    } else if (s.text >= SIBLING_PROSE_CHARS && linkDensity(s) < 0.2 && (s.p > 0 || s.commas >= 2)) {
      // Prose in a block the scores missed (an intro box, a second text column) is the article too.
      out.push(sib);
    }
  }
  return out;
}

/**
 * Page chrome that sits inside the article's own container (bylines, dates, share bars, tag
 * lists, related-story boxes, captions): blocks named so, and small next to the content. A name
 * negated with "no" ("no_caption", buzzfeed's list items without one) says the block is not that.
 */
const CHROME = /(^|[-_\s])(?<!no[-_])(byline|author|authors|date|dateline|timestamp|posted|postinfo|post-info|entry-meta|meta|metadata|tags?|tag-?list|categories|share|sharing|shares|social|sociable|syndication|rating|ratings|related|viral|newsletter|subscribe|breadcrumbs?|caption|wp-caption|credit|credits|copyright|outbrain|taboola|respond|comment-?form|reply|sharedaddy|jp-post-flair|robots-nocontent|addtoany|shariff)([-_\s]|$)/i;
const CHROME_MAX_SHARE = 0.25;

function isChromeNamed(e: Element): boolean {
  return e.name === 'figcaption' || CHROME.test(classAndId(e));
}

function pruneChrome(roots: Element[], stats: Map<Element, Stats>, removed: Set<Element>): void {
  const content = roots.reduce((sum, r) => sum + (stats.get(r)?.text ?? 0), 0);
  for (const root of roots) {
    const total = stats.get(root)?.text ?? 0;
    // A block gathered beside the article (an author box after it) is judged against the whole content.
    if (roots.length > 1 && isChromeNamed(root) && total <= content * CHROME_MAX_SHARE && (stats.get(root)?.pre ?? 0) === 0) {
      removed.add(root);
      continue;
    }
    for (const e of descendants(root, (x) => removed.has(x) || x.name === 'pre' || x.name === 'code')) {
      const s = stats.get(e);
      if (!s || s.pre > 0) continue;
      if (isChromeNamed(e) && s.text <= total * CHROME_MAX_SHARE) removed.add(e);
      else if (s.text <= READ_MORE_MAX_CHARS && READ_MORE.test(textOf(e))) dropReadMore(e, stats, removed);
      else if (s.text <= READ_ALSO_MAX_CHARS && s.blockChildren === 0 && isReadAlsoOrCaption(textOf(e))) removed.add(e);
    }
  }
}

/**
 * "Read also" lines and the link lists under them, in the languages of the web: a short block
 * that is only such a phrase, and a following sibling that is mostly links.
 */
const READ_MORE =
  /^\s*(related (articles|posts|stories|content)|read (more|also|next)|you (may|might) also like|see also|recommended( for you)?|more (stories|articles) (from|on|about)|das könnte (dich|sie) auch interessieren|(das|dies) (thema )?könnte (dich|sie) auch interessieren|auch interessant|lesen sie (auch|hier)|auch lesen|schon gelesen|weitere (artikel|beiträge|news|themen)( zum thema)?|mehr (zum thema|themen)|zum weiterlesen|beiträge zum thema|ähnliche (artikel|beiträge)|à lire aussi|lire aussi|sur le même sujet|voir aussi|lea también|te puede interesar|también te puede interesar|noticias relacionadas|leggi anche|potrebbe interessarti|articoli correlati)\b[^.]{0,40}[:.!?…]?\s*$/i;
const READ_MORE_MAX_CHARS = 80;
/** A line that points at another story: "Lea también: <headline>", "Read more: ...", "Czytaj też: ...". */
const READ_ALSO =
  /^\W*(lea( también| más)?|lee también|(le|te) puede interesar|(vea|ver|lee|mira) también|puedes ver|mira|leia( também| mais)?|veja também|read (more|also|next)|also read|see also|related|lesen sie (auch|mehr|hier)|auch interessant|mehr zum thema|siehe auch|(à )?lire aussi|voir aussi|leggi anche|czytaj (też|także|również|więcej)|zobacz (też|także|również))\s*[:»>]/i;
const READ_ALSO_MAX_CHARS = 250;
/**
 * An image caption outside `<figcaption>`: a line that starts as a figure legend ("Abbildung 4:",
 * "Figure 2:") or ends with the picture's credit ("Photograph: ...", "(Foto: ...)", "© ...", "(Quelle: ...)", "Fuente: ...").
 */
const CAPTION =
  /^\W*(abbildung|abb\.|figure|fig\.|grafik|illustration)\s*\d*\s*:|(^|[\s(|/*–-])(©|(photo(graph)?|photos|foto|fotos|bild|bildquelle|credit|crédits?|image|imagen|foto de|quelle|fuente|źródło)\s*:)[^.!?]{0,80}$/i;
const CAPTION_MAX_CHARS = 300;

function isReadAlsoOrCaption(text: string): boolean {
  return READ_ALSO.test(text) || (text.length <= CAPTION_MAX_CHARS && CAPTION.test(text.trim()));
}

function dropReadMore(e: Element, stats: Map<Element, Stats>, removed: Set<Element>): void {
  removed.add(e);
  const parent = e.parent;
  if (!parent) return;
  const siblings = parent.children.filter((c): c is Element => c instanceof Element);
  const next = siblings[siblings.indexOf(e) + 1];
  const s = next && stats.get(next);
  if (s && linkDensity(s) > 0.5) removed.add(next!);
}

/** Class names of an article's standfirst: the teaser or summary publishers set above the body. */
const LEAD = /(^|[-_\s])(intro|teaser|excerpt|subtitle|sub-title|lead|leader|lede|vorspann|perex|chapo|standfirst|summary|dek|deck|abstract|chapeau)([-_\s]|$)/i;
const LEAD_LEVELS = 4;

/**
 * A lead paragraph often sits outside the scored body (in the article header, beside the
 * title), where sibling gathering does not reach: take lead-classed blocks that come before
 * the top candidate inside its nearest ancestors.
 */
function leadsBefore(top: Element, stats: Map<Element, Stats>, removed: Set<Element>): Element[] {
  let scope: Element | undefined = top;
  for (let i = 0; i < LEAD_LEVELS && scope && scope.name !== 'body'; i++) scope = parentElement(scope);
  if (!scope || scope === top) return [];
  const leads: Element[] = [];
  let afterHeading = false;
  for (const e of descendants(scope, (x) => removed.has(x) || x === top || leads.includes(x))) {
    // Only right under the title: another heading in between starts some other block (a teaser list).
    if (e.name === 'h1') afterHeading = true;
    else if (/^h[2-6]$/.test(e.name)) afterHeading = false;
    if (isAncestor(e, top)) continue;
    const s = stats.get(e);
    if (!s) continue;
    if (LEAD.test(classAndId(e))) {
      if (s.text >= 40 && linkDensity(s) < 0.3) leads.push(e);
    } else if (afterHeading && isProseNearTitle(e, s)) leads.push(e);
  }
  // Each entry of a listing has its heading: prose under another entry's is not this article's lead.
  if (!leads.length) return leads;
  const entry = listingItemOf(top);
  return leads.filter((e) => precedes(e, top) && (LEAD.test(classAndId(e)) || listingItemOf(e) === entry || !listingItemOf(e)));
}

/**
 * Content near the title: a paragraph of prose between the page's `<h1>` and the scored body is
 * the article's lead, whatever its class says (news pages set it in the article header).
 */
function isProseNearTitle(e: Element, s: Stats): boolean {
  return e.name === 'p' && s.text >= NEAR_TITLE_PROSE_CHARS && linkDensity(s) < 0.2 && !CHROME.test(classAndId(e));
}
const NEAR_TITLE_PROSE_CHARS = 100;

/** Whether a comes before b in document order (and is not inside it). */
function precedes(a: Element, b: Element): boolean {
  const path = (e: Element) => {
    const p: Element[] = [];
    for (let x: Element | undefined = e; x; x = parentElement(x)) p.unshift(x);
    return p;
  };
  const pa = path(a);
  const pb = path(b);
  let i = 0;
  while (i < pa.length && i < pb.length && pa[i] === pb[i]) i++;
  if (i === pa.length || i === pb.length) return false;
  const parent = pa[i]!.parent!;
  return parent.children.indexOf(pa[i]!) < parent.children.indexOf(pb[i]!);
}

/**
 * One level further out than sibling gathering: prose blocks beside the top candidate's parent
 * (a second text column, the part of the article after an inline widget), in document order.
 */
function withOuterProse(top: Element, roots: Element[], stats: Map<Element, Stats>, removed: Set<Element>): Element[] {
  let child = parentElement(top);
  let holder = child && parentElement(child);
  if (!child || !holder || child.name === 'body' || holder.name === 'html') return roots;
  const region = articleRegionOf(top);
  // The article's container is its edge: prose beside it is the site's (a service notice, a footer's blurb).
  if (region && holder !== region && !isAncestor(region, holder)) return roots;
  let out = outerProseAt(child, holder, roots, stats, removed);
  // Inside an article container the body can be split further out (a widget's wrapper around
  // its first part): the climb goes on up to that container, never past it.
  for (let level = 1; level < OUTER_PROSE_MAX_LEVELS && region && holder !== region && isAncestor(region, holder); level++) {
    child = holder;
    holder = parentElement(holder)!;
    out = outerProseAt(child, holder, out, stats, removed);
  }
  return out;
}
const OUTER_PROSE_MAX_LEVELS = 4;

/** Prose blocks beside `child` inside `holder`, around the roots found so far, in document order. */
function outerProseAt(child: Element, holder: Element, roots: Element[], stats: Map<Element, Stats>, removed: Set<Element>): Element[] {
  const out: Element[] = [];
  for (const sib of holder.children) {
    if (!(sib instanceof Element) || removed.has(sib)) continue;
    if (sib === child) {
      out.push(...roots);
      continue;
    }
    const s = stats.get(sib);
    if (!s || s.text < OUTER_PROSE_CHARS || linkDensity(s) >= 0.15 || s.p === 0) continue;
    if (!roots.some((r) => isAncestor(sib, r))) out.push(sib); // a lead inside it is already taken
  }
  return out;
}
const OUTER_PROSE_CHARS = 200;

/**
 * An article split into sections that sit in separate wrappers (a first part, an inline widget,
 * the rest) scores as strong candidates that are cousins, not siblings: a weaker part is kept
 * too when it scores at least half of the top (a fifth when it has the top's class, as a section
 * styled alike does), has few links, and the parts are most of the text of the block that holds
 * them (so that block is the article, not a page with a sidebar).
 */
function withArticleParts(top: Element, roots: Element[], scores: Map<Element, number>, stats: Map<Element, Stats>): Element[] {
  const topScore = scores.get(top) ?? 0;
  const topText = stats.get(top)?.text ?? 0;
  const topClass = attr(top, 'class');
  const region = articleRegionOf(top);
  const article = region?.name === 'article' ? region : undefined;
  const parts: Element[] = [];
  let partsText = 0;
  for (const [e, score] of [...scores].sort((a, b) => b[1] - a[1])) {
    // A block styled as the top one (the same class) is another section of the same article.
    // Its links weigh less too: a recipe's ingredients, styled as its steps, link to the products.
    const sameClass = topClass !== '' && attr(e, 'class') === topClass;
    const minShare = sameClass ? PART_SAME_CLASS_MIN_SCORE_SHARE : PART_MIN_SCORE_SHARE;
    if (score < topScore * minShare || e === top || isAncestor(e, top) || isAncestor(top, e)) continue;
    const s = stats.get(e)!;
    if (linkDensity(s) >= (sameClass ? PART_SAME_CLASS_MAX_LINK_DENSITY : PART_MAX_LINK_DENSITY) || roots.some((r) => r === e || isAncestor(r, e) || isAncestor(e, r))) continue;
    const holder = commonAncestor(top, e, PART_MAX_LEVELS);
    // An `<article>` holds all of its parts: a block beside it is the site's (a service notice).
    if (article && !isAncestor(article, e)) continue;
    if (!holder || COMMENT_NAMES.test(classAndId(e)) || parts.some((p) => isAncestor(p, e) || isAncestor(e, p))) continue;
    // The parts found so far count too: an article in three wrappers has no two that make up most of it.
    if (topText + partsText + s.text >= (stats.get(holder)?.text ?? Infinity) * PART_MIN_TEXT_SHARE) {
      parts.push(e);
      partsText += s.text;
    }
  }
  if (!parts.length) return roots;
  return [...roots, ...parts].sort((a, b) => (precedes(a, b) ? -1 : precedes(b, a) ? 1 : 0));
}
const PART_MIN_SCORE_SHARE = 0.5;
const PART_SAME_CLASS_MIN_SCORE_SHARE = 0.2;
const PART_MAX_LINK_DENSITY = 0.2;
const PART_SAME_CLASS_MAX_LINK_DENSITY = 0.4;
const PART_MAX_LEVELS = 5;
const PART_MIN_TEXT_SHARE = 0.7;

/** The nearest element holding both a and b, if it is at most `levels` above a. */
function commonAncestor(a: Element, b: Element, levels: number): Element | undefined {
  let anc = parentElement(a);
  for (let i = 0; anc && i < levels && anc.name !== 'body' && anc.name !== 'html'; i++, anc = parentElement(anc)) if (isAncestor(anc, b)) return anc;
  return undefined;
}

/**
 * Leads, siblings and outer prose are found separately and can name one block twice, or a block
 * and its container: each piece of text is rendered once, at its first place.
 */
function distinctRoots(roots: Element[]): Element[] {
  const out: Element[] = [];
  for (const r of roots) if (!out.includes(r) && !roots.some((o) => o !== r && isAncestor(o, r))) out.push(r);
  return out;
}

const CONDITIONAL_MAX_SHARE = 0.5;
/**
 * Paragraphs of prose with few links are the article (a second column, a text widget), whatever
 * the block's class or the images beside them: conditional cleaning is for link farms and galleries.
 */
function isProseBlock(s: Stats): boolean {
  // Teaser lists (a headline and a line each) have an item per paragraph, or headings for much of their text.
  return s.p >= PROSE_BLOCK_PARAGRAPHS && s.li < s.p && s.text >= PROSE_BLOCK_CHARS && linkDensity(s) < 0.15 && s.heading < s.text * 0.15 && s.input === 0 && s.embed === 0;
}
const PROSE_BLOCK_PARAGRAPHS = 2;
/** Reader comments, and a shop's customer reviews, are prose too, but not the article. */
const COMMENT_NAMES = /comment|reply|replies|respond|discuss|disqus|kommentar|commentaire|comentario|(?<!p)reviews/i;
const PROSE_BLOCK_CHARS = 200;

/**
 * Text with pictures in it (a forum post with smileys, a report with photos between unwrapped
 * lines) is not an image gallery: galleries have captions, not hundreds of characters of unlinked text.
 */
function isIllustratedText(s: Stats): boolean {
  return s.text >= ILLUSTRATED_TEXT_CHARS && linkDensity(s) < 0.1;
}
const ILLUSTRATED_TEXT_CHARS = 250;
const LIST_BLOCK_SHARE = 0.9;

/**
 * A list's score starts below zero for its tag alone (-3), so a list a heading or two scored into
 * is dropped as negative although it holds prose (an accordion of pros and cons, a list of
 * captioned items): a list with some text, few links and no negative class name is judged by the
 * other rules instead.
 */
function isListOfProse(e: Element, s: Stats, weight: number): boolean {
  return (e.name === 'ul' || e.name === 'ol') && weight >= 0 && linkDensity(s) < LIST_OF_PROSE_MAX_LINK_DENSITY && s.text >= LIST_OF_PROSE_MIN_CHARS;
}
const LIST_OF_PROSE_MAX_LINK_DENSITY = 0.2;
const LIST_OF_PROSE_MIN_CHARS = 50;
const LIST_BLOCK_MAX_LINK_DENSITY = 0.5;

/**
 * A table with header cells, or marked as one: its rows are data, not layout. Column groups, a
 * caption, a head or foot section and a summary are data-table markup too, as in Readability
 * (layout tables carry none of them); a table holding another table is layout.
 */
function isDataTable(e: Element, stats: Map<Element, Stats>): boolean {
  if (e.name !== 'table' || attr(e, 'role') === 'presentation') return false;
  if ((stats.get(e)?.th ?? 0) > 0 || attr(e, 'role') === 'table') return true;
  return hasDataTableMarkup(e);
}

const DATA_TABLE_PARTS = new Set(['caption', 'colgroup', 'col', 'thead', 'tfoot']);
function hasDataTableMarkup(table: Element): boolean {
  if (!attr(table, 'summary') && !table.children.some((c) => c instanceof Element && DATA_TABLE_PARTS.has(c.name))) return false;
  for (const d of descendants(table)) if (d.name === 'table') return false;
  return true;
}

/** Readability's conditional cleaning: drops link farms, image galleries and form-like blocks inside the content. */
function cleanConditionally(roots: Element[], scores: Map<Element, number>, stats: Map<Element, Stats>, removed: Set<Element>, flags: ExtractFlags): void {
  for (const root of roots) {
    const total = stats.get(root)?.text ?? 0;
    // Nothing inside a data table is cleaned (as in Readability): its cells are the data, links and images included.
    for (const e of descendants(root, (x) => removed.has(x) || x.name === 'pre' || x.name === 'code' || isDataTable(x, stats))) {
      if (!CONDITIONAL_TAGS.has(e.name)) continue;
      const s = stats.get(e)!;
      // A block holding most of the content is the content, whatever its class or links say.
      if (s.pre > 0 || s.text > total * CONDITIONAL_MAX_SHARE) continue;
      // A recipe's ingredients are its content, though each links to a product or a glossary entry.
      if (inIngredients(e)) continue;
      const weight = classWeight(e, flags);
      if (e.name !== 'ul' && e.name !== 'ol' && isProseBlock(s) && !COMMENT_NAMES.test(classAndId(e))) continue;
      if (weight + (scores.get(e) ?? 0) < 0 && !isListOfProse(e, s, weight)) {
        removed.add(e);
        continue;
      }
      if (s.commas >= 10) continue;
      // A block that is nine tenths list (a reference list in its wrapper) is judged as a list, as in
      // Readability, unless it is mostly links (then it is a teaser list, and the link rules apply).
      const isList = e.name === 'ul' || e.name === 'ol' || (s.listText > s.text * LIST_BLOCK_SHARE && linkDensity(s) < LIST_BLOCK_MAX_LINK_DENSITY);
      const ld = linkDensity(s);
      const li = s.li - 100;
      const headingDensity = s.text ? s.heading / s.text : 0;
      // A container of link lists around paragraphs of prose (a recipe's linked ingredients and its
      // steps) is not dropped whole for its links: its parts are judged one by one, further down.
      const linkHeavy = !isList && weight < 25 && ld > 0.2 && !holdsProseParagraphs(e, stats, removed);
      const drop =
        (s.img > 1 && s.p / s.img < 0.5 && e.name !== 'figure' && !isIllustratedText(s)) ||
        (!isList && li > s.p) ||
        s.input > Math.floor(s.p / 3) ||
        (!isList && headingDensity < 0.9 && s.text < 25 && (s.img === 0 || s.img > 2) && ld > 0) ||
        linkHeavy ||
        (weight >= 25 && ld > 0.5) ||
        (s.embed === 1 && s.text < 75) ||
        s.embed > 1;
      if (drop) removed.add(e);
    }
  }
}

/** Unlinked text in `<p>` elements below `e`: enough for a paragraph or two of prose, and a fair share of its text. */
function holdsProseParagraphs(e: Element, stats: Map<Element, Stats>, removed: Set<Element>): boolean {
  // A teaser is a linked headline over an excerpt.
  if (hasLinkedHeading(e)) return false;
  let chars = 0;
  // A list's items, teaser articles and linked teasers with an excerpt each are a listing, not prose around a link list.
  for (const d of descendants(e, (x) => removed.has(x) || x.name === 'li' || x.name === 'article' || x.name === 'a')) {
    if (d.name !== 'p') continue;
    const s = stats.get(d);
    if (s && linkDensity(s) < PROSE_PARAGRAPH_MAX_LINK_DENSITY) chars += s.text - s.linkText;
  }
  return chars >= PROSE_BLOCK_CHARS && chars >= (stats.get(e)?.text ?? 0) * PROSE_PARAGRAPHS_MIN_SHARE;
}
const PROSE_PARAGRAPH_MAX_LINK_DENSITY = 0.1;
const PROSE_PARAGRAPHS_MIN_SHARE = 0.3;

export function findTitle(doc: Document): string {
  let title = '';
  let ogTitle = '';
  let h1 = '';
  for (const e of descendants(doc)) {
    if (e.name === 'title' && !title) title = textOf(e);
    else if (e.name === 'meta' && !ogTitle && /^(og:title|twitter:title|dc\.title|dcterms?\.title|parsely-title)$/i.test(attr(e, 'property') || attr(e, 'name'))) ogTitle = attr(e, 'content');
    else if (e.name === 'h1' && !h1) h1 = textOf(e);
  }
  return (ogTitle || title || h1).replace(/\s+/g, ' ').trim();
}

export function extractMainContent(doc: Document, flags: ExtractFlags = EXTRACT_ATTEMPTS[0]!, title = findTitle(doc), trace?: CandidateNote[]): Extraction {
  const removed = markBoilerplate(doc, flags);
  const body = findFirst(doc, (e) => e.name === 'body') ?? (doc.children.find((c) => c instanceof Element) as Element | undefined);
  if (!body) return { title, roots: [], removed };
  const stats = computeStats(doc, removed);
  if (!stats.has(body)) return { title, roots: [], removed };
  const scores = scoreCandidates(body, removed, stats, flags);
  const heading = titleHeading(body, removed);
  const scoredTop = pickTop(body, scores);
  const top = preferArticlePlace(scoredTop, scores, stats, heading);
  const gathered = withOuterProse(top, [...leadsBefore(top, stats, removed), ...gatherSiblings(top, scores, stats, removed)], stats, removed);
  const roots = distinctRoots(withArticleParts(top, gathered, scores, stats));
  if (heading) dropListingAfterArticle(roots, heading, removed);
  if (flags.cleanConditionally) cleanConditionally(roots, scores, stats, removed, flags);
  // The inclusive pass is the last resort before a page is dropped: it prunes no chrome inside, but
  // its edges are trimmed as any pass's are (a copyright line after a recipe wrapped in a form).
  if (!flags.inclusive) pruneChrome(roots, stats, removed);
  trimEdges(roots, stats, removed);
  dropTitleHeading(roots, removed, title);
  if (trace) trace.push(...noteCandidates(scores, stats, roots, removed));
  // Found: the chosen block itself sits in an article region or right after the title (holding one is not enough: a page wrapper holds everything).
  // So is a standalone block taken over a listing's entry.
  const besideListing = top !== scoredTop && !articleRegionOf(top) && !(heading && isAfterTitle(top, heading));
  const articleFound = roots.length > 0 && (articleRegionOf(top) !== undefined || (heading !== undefined && isAfterTitle(top, heading)) || besideListing);
  return { title, roots, removed, articleFound };
}

/**
 * The article's end: a listing or feed page shows one item in full and more items of the same
 * listing after it, in blocks of the same tag and class as the one holding the title, each with a
 * heading of its own. The blocks after the article's are not the article.
 */
function dropListingAfterArticle(roots: Element[], heading: Element, removed: Set<Element>): void {
  let item: Element | undefined = parentElement(heading);
  for (let level = 0; item && item.name !== 'body' && level < LISTING_ITEM_LEVELS; level++, item = parentElement(item)) {
    const inRoots = roots.some((r) => r === item || isAncestor(r, item!));
    if (!inRoots) continue;
    const parent = parentElement(item);
    if (!parent) return;
    const followers = parent.children.slice(parent.children.indexOf(item) + 1).filter((c): c is Element => c instanceof Element && !removed.has(c));
    // A listing's items are articles, or blocks of one named class; sections of one article are alike too, but their headings are not links.
    const itemClass = attr(item, 'class');
    if (item.name !== 'article' && !itemClass) continue;
    const same = followers.filter((c) => c.name === item!.name && attr(c, 'class') === itemClass);
    if (same.length < LISTING_MIN_FOLLOWERS || !same.every(hasLinkedHeading)) continue;
    for (const c of same) removed.add(c);
    return;
  }
}
const LISTING_ITEM_LEVELS = 4;
const LISTING_MIN_FOLLOWERS = 1;

/** A teaser's headline: a heading that is, or holds, a link to the item. */
function hasLinkedHeading(e: Element): boolean {
  for (const d of descendants(e)) {
    if (!/^h[1-4]$/.test(d.name)) continue;
    if (findFirst(d, (x) => x.name === 'a' && attr(x, 'href') !== '') || (d.parent instanceof Element && d.parent.name === 'a')) return true;
  }
  return false;
}

const NOTED_CANDIDATES = 6;
const PREVIEW_CHARS = 90;

/** The best candidates with their figures, the chosen ones marked. */
function noteCandidates(scores: Map<Element, number>, stats: Map<Element, Stats>, roots: Element[], removed: Set<Element>): CandidateNote[] {
  const label = (e: Element) => `${e.name}${attr(e, 'id') ? `#${attr(e, 'id')}` : ''}${attr(e, 'class') ? `.${attr(e, 'class').trim().split(/\s+/).join('.')}` : ''}`;
  return [...scores]
    .sort((a, b) => b[1] - a[1])
    .slice(0, NOTED_CANDIDATES)
    .map(([e, score]) => {
      const s = stats.get(e)!;
      const parent = parentElement(e);
      return {
        element: parent ? `${label(e)} < ${label(parent)}` : label(e),
        score: Math.round(score * 10) / 10,
        chars: s.text,
        linkDensity: Math.round(linkDensity(s) * 100) / 100,
        chosen: roots.some((r) => r === e || isAncestor(r, e)),
        preview: textOf(e, (x) => removed.has(x)).replace(/\s+/g, ' ').trim().slice(0, PREVIEW_CHARS),
      };
    });
}
