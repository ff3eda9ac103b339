import { Element, Text, attr, classAndId, descendants, textOf, type AnyNode } from './html.js';
import { wordTokens } from '../../doc/words.js';

/**
 * Boilerplate at the edges of the chosen content, classified paragraph by paragraph as jusText
 * does (length, link density, stock phrases), but only where boilerplate gathers: after the
 * last block of real prose (share bars, "more on this", author boxes, credits, copyright, app
 * and newsletter pitches) and before the first (dates, bylines, counters, ad notices). Prose in
 * the middle of the article is never touched.
 */
export interface BlockFigures {
  text: number;
  linkText: number;
  pre: number;
}

/** Leaf blocks: the units that are classified (a paragraph, a heading, a list item, a table). */
const LEAF_TAGS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'dt', 'dd', 'pre', 'table', 'blockquote', 'figure', 'div', 'section', 'address', 'tr']);
/** A custom element (`eop-back-link`, `story-paragraph`: a hyphen in its name) is a block of its own, as a `<div>` is. */
const isLeafTag = (name: string) => LEAF_TAGS.has(name) || name.includes('-');
const HEADING = /^h[1-6]$/;

/**
 * Stock phrases of page chrome, in the languages of the web: copyright and licence lines,
 * photo credits, sharing, comments, newsletters and apps, ads, author boxes, "back" links. A "©"
 * written onto a word ("manifesto™©", "Brand©") marks that word, not the page's copyright.
 */
const CHROME_PHRASE =
  /(?<![\w\u00c0-\u024f\u2122\u00ae])©|\(c\) ?\d{4}|copyright|all rights reserved|licensed under|unter der lizenz|sous licence|sofern nicht anders (ausgewiesen|angegeben|vermerkt)|unless otherwise (noted|stated|indicated)|alle rechte vorbehalten|tous droits réservés|todos los derechos reservados|tutti i diritti riservati|wszelkie prawa zastrzeżone|^\W*(fotos?|bilder?|bildquelle|titelbild|beitragsbild|photos?|image|credits?|crédits?( photos?)?|quelle|source|fuente|foto de portada)\s*:|\b(share|teilen|sharen|partager|compartir|condividi|udostępnij)\b.{0,30}$|^\W*(\d+\s+)?(comments?|kommentare?|commentaires?|comentarios?|commenti|komentarze?)\b|newsletter|subscribe|abonnieren?|abonnez|suscríbete|sign up|log ?in\b|einloggen|anmelden|download (the|our)|\bapp\b.{0,20}(ios|android)|^\W*(anzeige|werbung|advertisement|sponsored|publicidad|pubblicità)\b|über den autor|about the author|zum autor|sobre el autor|^\W*(zurück|back|retour|volver)\b|weiterlesen|read more|mehr zum thema|mehr lesen|más información|printer[- ]?friendly|drucken|(wy)?drukuj|imprimer|imprimir|\bprint\b|affiliate|provision (vom|erhält|erhalten|bekommen)|eine provision|compensation|follow (us|the|@)|folgen? (sie )?uns|síguenos|already a subscriber|(straight|directly|delivered) to your (phone|inbox)|full story|paywall|hazte miembro|become a member|cancel(a|e)? (at )?any ?time|cancela cuando quieras|jederzeit kündbar|canal de (telegram|youtube|whatsapp)|(telegram|whatsapp|youtube)[- ]?(kanal|channel)|\bnos siga\b|siga-nos|subskrypcj|iscriviti|if you (enjoyed|liked) (reading )?this|artikel gefallen|beitrag gefallen|what you think about this (article|story|post)|stay up[- ]to[- ]date|lade weitere|load more|mehr laden|cargar más|(instant|immediate|unlimited) (online )?access|never miss|contains (affiliate links|references to products)|pdf herunterladen|download (as|the) pdf|erfolgreich hinzugefügt|successfully added|added to (your )?(cart|basket)|(nächste[nr]?|vorherige[nr]?) (artikel|beitrag)|(next|previous) (article|post|story)|inhaltsverzeichnis|table of contents|gefällt dir (unser|dieser|der)|zapraszamy (też |również )?do/i;
const TRUNCATED_EXCERPT = /[\p{L},;]\s?(\.\.\.|…)\s*(\[?(mehr|more|weiterlesen|read more|lire la suite|leer más)\]?)?$/iu;
const SENTENCE_END = /[.!?…\u3002\uff01\uff1f]["»«“”')]*\s*$/;
/** A block of at least this much text, or a full sentence this long, is real prose: trimming stops there. */
const PROSE_CHARS = 120;
const SENTENCE_CHARS = 15;
/** Never trim more than this share of the content: a page that is all short blocks (a recipe, a table) is left alone. */
const MAX_TRIMMED_SHARE = 0.3;
/** A block this short that holds a stock phrase is chrome (a longer one is prose that mentions it). */
const PHRASE_MAX_CHARS = 300;

interface Leaf {
  e: Element;
  text: string;
  figures: BlockFigures;
  /** Text loose in a container (between its blocks, not in one): classified, but never removed alone. */
  loose?: boolean;
}

/**
 * Blocks that hold a smaller block with text anywhere below them, not only as a child: a `<div>`
 * around an `<article>` or a `<ul>` is a container, not one paragraph, or the whole tail of a page
 * would be classified as a single block.
 */
function leafHolders(roots: Element[], figures: Map<Element, BlockFigures>, removed: Set<Element>): Set<Element> {
  const holders = new Set<Element>();
  for (const root of roots) {
    const order = [...descendants(root, (x) => removed.has(x))];
    // Reverse pre-order visits children before their parents.
    for (let i = order.length - 1; i >= 0; i--) {
      const e = order[i]!;
      const isTextLeaf = isLeafTag(e.name) && (figures.get(e)?.text ?? 0) > 0;
      if ((isTextLeaf || holders.has(e)) && e.parent instanceof Element) holders.add(e.parent);
    }
  }
  return holders;
}

function leaves(roots: Element[], figures: Map<Element, BlockFigures>, removed: Set<Element>): Leaf[] {
  const out: Leaf[] = [];
  const skip = (x: Element) => removed.has(x);
  const holders = leafHolders(roots, figures, removed);
  const loose = new LooseText(out);
  const visit = (e: Element) => {
    const f = figures.get(e);
    if (!f || f.text === 0) return false;
    const holdsLeaf = holders.has(e);
    if (isLeafTag(e.name)) loose.flush(); // a block ends the loose text before it
    if (isLeafTag(e.name) && !holdsLeaf) out.push({ e, text: textOf(e, skip).replace(/\s+/g, ' ').trim(), figures: f });
    return holdsLeaf || !isLeafTag(e.name);
  };
  for (const root of roots) {
    if (removed.has(root)) continue;
    if (!visit(root)) continue;
    // Entries: a node, and whether it sits inside a link (for the loose text's link density).
    const stack: [AnyNode, boolean][] = [];
    const pushChildren = (e: Element, inLink: boolean) => {
      for (let i = e.children.length - 1; i >= 0; i--) {
        const c = e.children[i]!;
        if (c instanceof Text || (c instanceof Element && !removed.has(c))) stack.push([c, inLink]);
      }
    };
    pushChildren(root, false);
    while (stack.length) {
      const [n, inLink] = stack.pop()!;
      if (n instanceof Text) loose.add(n.data, inLink, n.parent as Element);
      else if (n instanceof Element && visit(n)) pushChildren(n, inLink || n.name === 'a');
    }
    loose.flush();
  }
  return out;
}

/**
 * Text between the blocks of a container ("<h2>Setup</h2> Download the kit.<br> Install it."):
 * old blogs write whole posts so, and without it as a leaf the headings between such runs look
 * like headings with nothing under them, the last prose block comes too early, and the tail cut
 * takes the post's second half.
 */
class LooseText {
  private parts: string[] = [];
  private linkChars = 0;
  private holder: Element | undefined;
  constructor(private readonly out: Leaf[]) {}

  add(data: string, inLink: boolean, parent: Element): void {
    this.holder ??= parent;
    this.parts.push(data);
    if (inLink) this.linkChars += data.replace(/\s+/g, ' ').trim().length;
  }

  flush(): void {
    const text = this.parts.join('').replace(/\s+/g, ' ').trim();
    if (text && this.holder) this.out.push({ e: this.holder, text, figures: { text: text.length, linkText: this.linkChars, pre: 0 }, loose: true });
    this.parts = [];
    this.linkChars = 0;
    this.holder = undefined;
  }
}

/** Real prose: long enough, or a full sentence, with few links and no stock phrase. */
function isProse(l: Leaf): boolean {
  if (l.figures.pre > 0) return true; // code is never page chrome
  if (HEADING.test(l.e.name)) return false;
  const ld = l.figures.linkText / l.figures.text;
  if (ld > 0.4) return false;
  if (l.text.length < PHRASE_MAX_CHARS && CHROME_PHRASE.test(l.text)) return false;
  // A teaser's excerpt, cut off mid-sentence ("Als ich bei..."), is a listing's entry, not the article's prose.
  if (TRUNCATED_EXCERPT.test(l.text)) return false;
  return l.text.length >= PROSE_CHARS || (l.text.length >= SENTENCE_CHARS && SENTENCE_END.test(l.text));
}

/** Removes the non-prose blocks after the last prose block, and dates, counters and notices before the first. */
export function trimEdges(roots: Element[], figures: Map<Element, BlockFigures>, removed: Set<Element>): void {
  const ls = leaves(roots, figures, removed);
  const total = ls.reduce((a, l) => a + l.figures.text, 0);
  if (!total) return;
  let last = ls.length - 1;
  while (last >= 0 && !isProse(ls[last]!)) last--;
  if (last < 0) return;
  // Chrome starts at the first clearly bad block after the prose (a link list, a stock phrase, a
  // heading with nothing under it); short lines before it are the article's own ending.
  let first = last + 1;
  while (first < ls.length && !isTailChrome(ls[first]!)) first++;
  first = Math.min(first, chromeSectionStart(ls, total));
  const tail = ls.slice(first);
  const tailText = tail.reduce((a, l) => a + l.figures.text, 0);
  if (tailText <= total * MAX_TRIMMED_SHARE || isWidgetTail(tail)) removeTail(ls, first, removed);
  for (const l of ls.slice(0, last)) {
    // A signature line can be as long as a sentence of prose ("Le Monde | 04.05.2015 • Par ...").
    if (isProse(l) && !isBylineLine(l)) break;
    if (isHeadChrome(l) && !l.loose) removed.add(l.e);
  }
  removeInlineWidgetLines(ls.slice(0, first), removed);
}

/**
 * A tail that opens with a stock line ("Teilen Sie dies mit:", "Related posts") and holds no prose
 * is widgets however much of a short post's text it is (share, like and related-posts boxes under
 * three lines of a blog post): the share cap is for tails that might be the article's own text.
 */
function isWidgetTail(tail: Leaf[]): boolean {
  const head = tail[0];
  if (!head || head.text.length >= PHRASE_MAX_CHARS || !(CHROME_PHRASE.test(head.text) || CHROME_HEADING.test(head.text))) return false;
  return !tail.some(isProse);
}

/**
 * Between paragraphs of the article, a short block that is a widget's call ("Dieses Skript als PDF
 * herunterladen", "Never miss the latest news by signing up to our newsletter today!",
 * "Inhaltsverzeichnis", "Rezept drucken") is not the article's text. Fewer phrases than at the
 * edges: in the middle, "share", "follow" or "download the" are as often the article's own words,
 * and a list item is the article's own point.
 */
function removeInlineWidgetLines(ls: Leaf[], removed: Set<Element>): void {
  for (const l of ls) {
    if (l.loose || l.e.name === 'li' || HEADING.test(l.e.name) || l.figures.pre > 0 || l.text.length > INLINE_WIDGET_MAX_CHARS) continue;
    if (INLINE_WIDGET_PHRASE.test(l.text)) removed.add(l.e);
  }
}
const INLINE_WIDGET_MAX_CHARS = 100;
const INLINE_WIDGET_PHRASE =
  /subscribe|abonnieren|abonnez|suscríbete|iscriviti|subskrypcj|jetzt anmelden|pdf herunterladen|(download|télécharger|descargar)\b.{0,20}\bpdf|\bpdf\b.{0,20}(download|herunterladen)|inhaltsverzeichnis|table of contents|table des matières|índice de contenidos|never miss|(instant|immediate|unlimited) (online )?access|\b(drucken|imprimer|(wy)?drukuj)\b|^\W*(titelbild|beitragsbild|foto de portada)\s*:|\b(share|teilen|partager|compartir|condividi|udostępnij)\b[^.!?]{0,20}:\s*$|^\W*(mehr zu(m|r)?|mehr aus|lesen sie auch|auch interessant|das könnte (dich|sie) auch interessieren|entdecke(n sie)? (jetzt|weitere|mehr))\b|bild anzeigen|externer inhalt|kommentar verfassen|alle angaben ohne gewähr|^\W*(dowiedz się więcej|czytaj (też|także|więcej)|mehr dazu|read more|leer más|lire aussi)\s*:|^\W*(vergrößern|enlarge|zoom)\b|(artikel|beitrag) gefallen|if you (enjoyed|liked) (reading )?this|\b(ausblenden|einblenden|mehr anzeigen|show more|show less)\W*$/i;

/**
 * Removes the tail's blocks. Loose text is never removed alone, but a container whose text all lies
 * in the tail (a pitch box's button line beside its removed heading and paragraph) goes whole.
 */
function removeTail(ls: Leaf[], first: number, removed: Set<Element>): void {
  const kept = ls.slice(0, first).map((l) => l.e);
  for (const l of ls.slice(first)) {
    if (!l.loose) removed.add(l.e);
    else if (!kept.some((k) => k === l.e || isInside(k, l.e))) removed.add(l.e);
  }
}

function isInside(e: Element, holder: Element): boolean {
  for (let p = e.parent; p; p = p.parent) if (p === holder) return true;
  return false;
}

/**
 * A closing section under a stock heading ("Über den Autor", "About the author", "Newsletter",
 * "Kommentare") holds prose of its own (a bio, a pitch), so the last prose block lies inside it:
 * the section is cut from its heading when it is in the last part of the content.
 */
function chromeSectionStart(ls: Leaf[], total: number): number {
  let start = ls.length;
  let after = 0;
  for (let i = ls.length - 1; i > 0; i--) {
    after += ls[i]!.figures.text;
    if (after > total * MAX_TRIMMED_SHARE) break;
    const l = ls[i]!;
    if (HEADING.test(l.e.name) && l.text.length <= CHROME_HEADING_CHARS && CHROME_HEADING.test(l.text)) start = i;
    else if (l.text.length <= CHROME_LABEL_CHARS && (CHROME_LABEL.test(l.text) || SUPPORT_LABEL.test(l.text) || isOnlyChromeHeading(l.text))) start = i;
  }
  return start;
}
/** Headings of the sections that close a page, in the languages of the web (not "share": "what we share" is prose). */
const CHROME_HEADING =
  /^\W*((\d+\s+)?(comments?|kommentare?|commentaires?|comentarios?|commenti|komentarze?)\b|(über|zum) (den |die )?autor|about the author|sobre el autor|à propos de l'auteur|newsletter|related (articles|posts|stories)|ähnliche (artikel|beiträge)|weitere (artikel|beiträge)|mehr zum thema|das könnte (dich|sie) auch|you (may|might) also like|à lire aussi|lire aussi|te puede interesar|leggi anche|czytaj (też|także))/i;
const CHROME_HEADING_CHARS = 60;
/** A line that is such a heading's phrase and nothing more ("Über den Autor", a bold paragraph; not "Comments (5 posted)"). */
function isOnlyChromeHeading(t: string): boolean {
  const m = CHROME_HEADING.exec(t);
  return m !== null && !/[\p{L}\p{N}]/u.test(t.slice(m.index + m[0].length));
}
/** A label line that is only such a section's name (a widget's "Trending Articles" is not a heading). */
const CHROME_LABEL =
  /^\W*(trending( now| articles| stories)?|most (read|popular|viewed)|weitere informationen|(further|more) information|weiterlesen|donate( now)?|we need your help|support us|jetzt spenden|gefällt mir|like|aufrufe|views|von|wer hat das geschrieben|articles (liés|similaires)|((diese )?(artikel|beiträge)|das) könnten? (euch|dich|sie) auch interessieren|kontakt|pressekontakt|medienkontakt|(press|media) contacts?|quellenangaben|zusatzinformationen|plus d'informations|ulteriori informazioni|więcej informacji|beliebt|am beliebtesten|meistgeklickt|popular (articles|posts|stories)|related (articles|posts|stories)|you (may|might) also like|meistgelesen|die meistgelesenen artikel|les plus lus|lo más leído|i più letti|najczęściej czytane)\W*$/i;
const CHROME_LABEL_CHARS = 40;
/** A label asking readers to fund the newsroom ("Apoya el periodismo incómodo", "Support independent journalism"): a pitch box follows. */
const SUPPORT_LABEL =
  /^\W*(apoya|support|unterstützen?|soutenez|sostieni|wesprzyj)\b[^.!?]{0,25}\b(periodismo|journalism|journalismus|journalisme|giornalismo|dziennikarstwo)\b[^.!?]{0,15}$/i;

function isTailChrome(l: Leaf): boolean {
  return HEADING.test(l.e.name) || isDateStamp(l.text) || AGENCY_SIGNATURE.test(l.text) || l.figures.linkText / l.figures.text > 0.4 || (l.text.length < PHRASE_MAX_CHARS && CHROME_PHRASE.test(l.text));
}

/**
 * A news agency's or editor's signature after the story: initials and agency codes joined by
 * slashes ("aja/PAP", "dpa/afp"), or one code in capitals ("RIRM", "(KNA)").
 */
const AGENCY_SIGNATURE = /^\(?(\p{L}{1,6}\s?\/\s?)+\p{L}{1,6}\)?$|^\(?\p{Lu}{2,6}\)?$/u;

/**
 * A publication stamp ("Updated: 3/9 18:45", "Stand: 12.03.2020", "最終更新:3/9(木)"): after the
 * prose it is the page's footer, not the article's own ending.
 */
function isDateStamp(t: string): boolean {
  return t.length <= 80 && /\p{N}/u.test(t) && PUBLISHED_PHRASE.test(t);
}
const PUBLISHED_PHRASE = /^\W*((video )?verfügbar bis|(news|release|publication) date\s?:|available until|mis à jour|publié le|updated|published|posted on|last modified|aktualisiert( am)?|veröffentlicht( am)?|stand|actualizado|publicado( el)?|aggiornato|pubblicato( il)?|zaktualizowano|opublikowano|最終更新|更新日|公開日)/i;

const SHARE_LABEL =
  /^\W*(share|teilen|partager|compartir|condividi|udostępnij)( (this|the|diesen|den|cet|este|esta|questo|l'))?( ?(story|article|post|page|artikel|beitrag|artículo|noticia|nota|articolo|articol))?\W*$/i;

/** A recipe's ingredients (a block named so): amounts and linked products, before the steps' prose. */
const INGREDIENT_NAMES = /ingredient|zutat|ingredi[eé]nt|składnik/i;
const INGREDIENTS_LEVELS = 6;
export function inIngredients(e: Element): boolean {
  let x: Element | undefined = e;
  for (let i = 0; x && i < INGREDIENTS_LEVELS; i++, x = x.parent instanceof Element ? x.parent : undefined) if (INGREDIENT_NAMES.test(classAndId(x))) return true;
  return false;
}

/** Before the article's first paragraph: a date, a counter, a byline line of links, an ad or credit notice. */
const DATE_LINE = /^[\p{N}\s.,:/\-–|()]*(\p{L}{0,12}[\s.,]*){0,3}[\p{N}\s.,:/\-–|()]*$/u;
function isHeadChrome(l: Leaf): boolean {
  // A table row before the prose is an infobox or a data table at the top, not a byline; an ingredient is no date.
  if (l.figures.pre > 0 || l.e.name === 'tr' || inIngredients(l.e)) return false;
  // Headings stay (a section's title), unless one only labels a share bar ("Share this story").
  if (HEADING.test(l.e.name)) return SHARE_LABEL.test(l.text);
  const t = l.text;
  if (t.length > 200) return false;
  const ld = l.figures.linkText / l.figures.text;
  // A list item with a number is an ingredient or a key figure ("1 tablespoon cumin"), not a date line.
  const dateLike = t.length <= 40 && /\p{N}/u.test(t) && DATE_LINE.test(t) && l.e.name !== 'li';
  return dateLike || ld > 0.6 || CHROME_PHRASE.test(t) || isBylineLine(l);
}

/**
 * A line marked up as the byline or the date (`<time>`, `itemprop="author"`/`datePublished`,
 * `rel="author"`), those elements holding a good part of its text: before the prose it is the
 * article's signature line, not its text (a lead that only carries a hidden date stamp is not).
 */
function isBylineLine(l: Leaf): boolean {
  if (l.text.length > BYLINE_MAX_CHARS || l.loose || HEADING.test(l.e.name)) return false;
  return markedBylineChars(l.e) >= l.text.length * BYLINE_MIN_MARKED_SHARE;
}

/** Characters of text inside byline-marked elements of `e` (each counted once, not entered). */
function markedBylineChars(e: Element): number {
  if (isBylineMarked(e)) return Infinity;
  let chars = 0;
  const stack: AnyNode[] = [...e.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (!(n instanceof Element)) continue;
    if (isBylineMarked(n)) chars += textOf(n).replace(/\s+/g, ' ').trim().length;
    else for (const c of n.children) stack.push(c);
  }
  return chars;
}

function isBylineMarked(x: Element): boolean {
  return x.name === 'time' || BYLINE_ITEMPROP.test(attr(x, 'itemprop')) || /\bauthor\b/i.test(attr(x, 'rel'));
}
const BYLINE_ITEMPROP = /\b(author|creator|datePublished|dateModified|dateCreated)\b/i;
const BYLINE_MAX_CHARS = 200;
const BYLINE_MIN_MARKED_SHARE = 0.3;

/** Readability drops the content's heading that repeats the page title (it is meta.title, not text). */
export function dropTitleHeading(roots: Element[], removed: Set<Element>, title: string): void {
  if (!title) return;
  const titleWords = new Set(wordTokens(title));
  if (!titleWords.size) return;
  for (const root of roots) {
    for (const e of descendants(root, (x) => removed.has(x))) {
      // The title stands above the text: a heading after a paragraph heads a section.
      if (e.name === 'p' && textOf(e).trim()) return;
      if (e.name !== 'h1' && e.name !== 'h2') continue;
      const words = wordTokens(textOf(e));
      if (!words.length) continue;
      // The heading is the title, the title minus the site name, or the title with a word or two
      // more ("beta", "test"): as in Readability, the words it does not share with the title are
      // under a quarter of its text.
      const unshared = words.filter((w) => !titleWords.has(w));
      if (joinedLength(unshared) < joinedLength(words) * (1 - TITLE_HEADING_SIMILARITY)) removed.add(e);
      return;
    }
  }
}
const TITLE_HEADING_SIMILARITY = 0.75;

/** Length of the words joined by single spaces. */
function joinedLength(words: string[]): number {
  return words.length ? words.reduce((a, w) => a + w.length, words.length - 1) : 0;
}
