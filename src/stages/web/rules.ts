import { estimateDepth, parseHtml, treeDepth } from './html.js';
import { EXTRACT_ATTEMPTS, INCLUSIVE_ATTEMPT, extractMainContent, findTitle, type CandidateNote, type ExtractFlags } from './extract.js';
import { MarkdownRenderer, type CodeBlock, type MarkdownOptions, type Rendered } from './markdown.js';

/** The rule-based rewriter: HTML in, main content as Markdown out, or a named reason. */
export interface RulesOptions extends MarkdownOptions {
  /** Pages nested deeper than this are refused (the parser's cost grows with depth). */
  maxDepth?: number;
  /** Below this many characters of text after every pass, the inclusive pass is tried too. */
  minTextChars?: number;
  /** Return the scored candidates of the pass kept (for the evaluation's per-page notes). */
  explain?: boolean;
}

export type RulesResult =
  | { ok: true; title: string; markdown: string; codeBlocks: CodeBlock[]; pass: number; candidates?: CandidateNote[]; articleFound: boolean }
  | { ok: false; reason: 'too_deep' | 'parse_error'; message: string };

export const DEFAULT_MAX_DEPTH = 512;
/** A pass whose content is shorter than this is retried with fewer rules, as Readability does. */
const RETRY_BELOW_CHARS = 500;
/** A strict pass that found this much text where articles sit is not retried. */
const FOUND_ARTICLE_MIN_CHARS = 200;

/** A line of prose: long enough for a sentence, and ending as one. */
const SENTENCE = /^[^\n]{79,}[.!?\u3002\uff01\uff1f\u0964]["'\u201d\u00bb)]?$/m;
function hasSentence(markdown: string): boolean {
  return SENTENCE.test(markdown);
}

export function rewriteWithRules(html: string, options: RulesOptions = {}): RulesResult {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const estimated = estimateDepth(html, maxDepth);
  if (estimated > maxDepth) return { ok: false, reason: 'too_deep', message: `elements nest deeper than ${maxDepth} levels` };
  let doc;
  try {
    doc = parseHtml(html);
  } catch (e) {
    return { ok: false, reason: 'parse_error', message: (e as Error).message };
  }
  // The estimate ignores implicitly closed tags; the real tree is checked before any renderer recursion.
  const depth = treeDepth(doc);
  if (depth > maxDepth * 2) return { ok: false, reason: 'too_deep', message: `elements nest ${depth} levels deep (limit ${maxDepth})` };
  const title = findTitle(doc);
  let best: { rendered: Rendered; length: number; pass: number; candidates?: CandidateNote[]; articleFound: boolean } | undefined;
  const attempt = (flags: ExtractFlags, pass: number) => {
    const candidates = options.explain ? [] : undefined;
    const { roots, removed, articleFound } = extractMainContent(doc, flags, title, candidates);
    const rendered = new MarkdownRenderer(removed, options).render(roots);
    const length = rendered.markdown.length;
    // A pass that found no article (a menu kept once unlikely names count) never replaces one that
    // found a sentence of it (a paywalled story's first paragraph).
    const replaces = !best || (length > best.length && (articleFound || !best.articleFound || !hasSentence(best.rendered.markdown)));
    if (replaces) best = { rendered, length, pass, candidates, articleFound: articleFound ?? false };
    return length;
  };
  for (let pass = 0; pass < EXTRACT_ATTEMPTS.length; pass++) {
    if (attempt(EXTRACT_ATTEMPTS[pass]!, pass) >= RETRY_BELOW_CHARS) break;
    // A short article found where articles sit is the page: a pass with fewer rules would only add furniture to it.
    if (pass === 0 && best!.articleFound && best!.length >= FOUND_ARTICLE_MIN_CHARS) break;
  }
  if (best!.length < (options.minTextChars ?? 0)) attempt(INCLUSIVE_ATTEMPT, EXTRACT_ATTEMPTS.length);
  const b = best!;
  return { ok: true, title, markdown: b.rendered.markdown, codeBlocks: b.rendered.codeBlocks, pass: b.pass, articleFound: b.articleFound, ...(b.candidates ? { candidates: b.candidates } : {}) };
}
