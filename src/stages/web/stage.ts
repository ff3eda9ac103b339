import { createHash } from 'node:crypto';
import type { Doc } from '../../doc/document.js';
import { INVALID_UNICODE, isWellFormed } from '../../doc/unicode.js';
import type { Stage, StageContext } from '../../core/stage.js';
import { checkRewrite, DEFAULT_GUARD, type GuardOptions } from './guard.js';
import { SNIFF_BYTES } from './encoding.js';
import { LlmClient, type LlmOptions } from '../../llm/client.js';
import { mapInOrder } from '../../llm/in-order.js';
import { countFailure } from './llm.js';
import { rewriteWithRules, type RulesOptions } from './rules.js';
import type { CodeBlock } from './markdown.js';
import { EXTRACT_PASS_NAMES } from './extract.js';
import { bump, webStats, type WebStats } from './stats.js';
import { wordTokens } from '../../doc/words.js';

/**
 * The web rewriting stage: page documents (text = HTML) in, Markdown documents out.
 * Every page is kept or dropped with a reason (too_deep, parse_error, not_text, too_large,
 * too_little_text, duplicate); with an LLM configured, a rewrite that fails or that the guard
 * rejects falls back to the rule-based Markdown, counted by reason in ctx.stats.rewrite_web.
 * Output order is input order whatever the concurrency, so reruns write the same bytes.
 */
export interface RewriteWebOptions extends RulesOptions {
  /** Pages whose text (without the title) is shorter than this are dropped as too_little_text. */
  minTextChars?: number;
  /** How many content hashes duplicate detection remembers (memory stays bounded). */
  dedupWindow?: number;
  /** Pages over this many characters are dropped as too_large. */
  maxPageChars?: number;
  llm?: LlmOptions;
  guard?: GuardOptions;
}

export const WEB_DEFAULTS = { minTextChars: 200, dedupWindow: 1_000_000, maxPageChars: 64 << 20 };

interface Prepared {
  doc: Doc;
  markdown: string;
  title: string;
  codeBlocks: CodeBlock[];
}

/** Bounded memory set of recent content hashes, oldest forgotten first. */
class RecentHashes {
  private readonly seen = new Set<string>();
  constructor(private readonly capacity: number) {}
  /** True when `key` was seen before; remembers it otherwise. */
  check(key: string): boolean {
    if (this.seen.has(key)) return true;
    this.seen.add(key);
    if (this.seen.size > this.capacity) this.seen.delete(this.seen.values().next().value!);
    return false;
  }
}

function contentHash(markdown: string): string {
  return createHash('sha256').update(wordTokens(markdown).join(' ')).digest('base64').slice(0, 22);
}

function textWithoutTitle(markdown: string, title: string): string {
  return title && markdown.startsWith(`# ${title}`) ? markdown.slice(title.length + 2) : markdown;
}

/** Models often wrap the whole answer in a ```markdown fence: take it off. */
export function unwrapAnswer(text: string): string {
  const m = /^\s*```(?:markdown|md)?\n([^]*?)\n```\s*$/i.exec(text);
  return (m ? m[1]! : text).trim();
}

const where = (doc: Doc) => `${doc.source}${doc.meta.path && doc.meta.path !== doc.source ? ` (${String(doc.meta.path)})` : ''}`;

/**
 * Binary bodies (images, archives, PDFs) have NUL bytes in their first bytes, where their format
 * header is (the file and WARC readers sniff the same window), or all through; a text page can
 * carry a few stray ones further on (a broken CMS field).
 */
const MAX_NUL_SHARE = 0.001;
function looksBinaryText(text: string): boolean {
  const first = text.indexOf('\u0000');
  if (first < 0) return false;
  if (first < SNIFF_BYTES) return true;
  let nuls = 0;
  for (let i = first; i >= 0; i = text.indexOf('\u0000', i + 1)) nuls++;
  return nuls > text.length * MAX_NUL_SHARE;
}

function prepare(doc: Doc, ctx: StageContext, options: RewriteWebOptions, recent: RecentHashes): Prepared | undefined {
  const maxChars = options.maxPageChars ?? WEB_DEFAULTS.maxPageChars;
  if (doc.text.length > maxChars) {
    ctx.ledger.drop('too_large', `${where(doc)}: page of ${doc.text.length} characters is over the limit of ${maxChars}`);
    return undefined;
  }
  if (looksBinaryText(doc.text)) {
    ctx.ledger.drop('not_text', `${where(doc)}: binary content, not a text page`);
    return undefined;
  }
  // A few stray NULs in a text page are dropped, as HTML's tokenizer ignores them in text.
  if (doc.text.includes('\u0000')) doc = { ...doc, text: doc.text.replace(/\u0000/g, '') };
  if (!isWellFormed(doc.text)) {
    ctx.ledger.drop(INVALID_UNICODE, `${where(doc)}: the page holds unpaired UTF-16 surrogates`);
    return undefined;
  }
  const minChars = options.minTextChars ?? WEB_DEFAULTS.minTextChars;
  const r = rewriteWithRules(doc.text, { ...options, minTextChars: minChars });
  if (!r.ok) {
    ctx.ledger.drop(r.reason, `${where(doc)}: ${r.message}`);
    return undefined;
  }
  const body = textWithoutTitle(r.markdown, r.title).trim();
  // The floor is for pages with no article at all: a short article found where articles sit is kept.
  if (body.length < minChars && !(r.articleFound && isProse(body))) {
    ctx.ledger.drop('too_little_text', `${where(doc)}: ${body.length} characters of text after extraction (minimum ${minChars})`);
    return undefined;
  }
  // The title is part of what makes a page itself: two pages with one body and two titles are two pages.
  if (recent.check(contentHash(`${r.title}\n${r.markdown}`))) {
    ctx.ledger.drop('duplicate', `${where(doc)}: same content as an earlier page`);
    return undefined;
  }
  bump(webStats(ctx).by_pass, EXTRACT_PASS_NAMES[r.pass] ?? String(r.pass));
  return { doc, markdown: r.markdown, title: r.title, codeBlocks: r.codeBlocks };
}

/** At least one full sentence: a short article, not a stray label. */
function isProse(text: string): boolean {
  return text.length >= SHORT_ARTICLE_MIN_CHARS && /[.!?…。！？]["»«“”')]*(\s|$)/.test(text);
}
const SHORT_ARTICLE_MIN_CHARS = 50;

function outputDoc(p: Prepared, text: string, method: 'rules' | 'llm', fallbackReason: string | undefined, stats: WebStats): Doc {
  const languages = [...new Set(p.codeBlocks.map((c) => c.lang).filter(Boolean))].sort();
  stats.pages_rewritten++;
  stats.by_method[method]++;
  stats.code_blocks += p.codeBlocks.length;
  for (const c of p.codeBlocks) if (c.lang) bump(stats.code_languages, c.lang);
  const { path, charset, url } = p.doc.meta;
  const meta: Record<string, unknown> = {
    ...(url !== undefined ? { url } : {}),
    ...(path !== undefined ? { path } : {}),
    title: p.title,
    method,
    ...(fallbackReason ? { fallback_reason: fallbackReason } : {}),
    code_blocks: p.codeBlocks.length,
    code_languages: languages,
    ...(charset !== undefined ? { charset } : {}),
  };
  return { id: p.doc.id, kind: 'web', source: p.doc.source, text, meta };
}

async function llmRewrite(p: Prepared, client: LlmClient, guard: GuardOptions, stats: WebStats, ctx: StageContext): Promise<Doc> {
  const outcome = await client.rewrite(p.markdown);
  if (!outcome.ok) {
    countFailure(stats.llm, outcome.reason);
    ctx.log(`midpack: rewrite-web: ${where(p.doc)}: LLM rewrite failed (${outcome.reason}: ${outcome.message}); kept the rule-based text`);
    return outputDoc(p, p.markdown, 'rules', `llm_${outcome.reason}`, stats);
  }
  const text = unwrapAnswer(outcome.text);
  const rejection = isWellFormed(text) ? checkRewrite(p.markdown, p.codeBlocks, text, guard) : { reason: INVALID_UNICODE, detail: 'the answer holds unpaired UTF-16 surrogates' };
  if (rejection) {
    bump(stats.llm.rejected_by_reason, rejection.reason);
    stats.llm.fallbacks++;
    ctx.log(`midpack: rewrite-web: ${where(p.doc)}: LLM rewrite rejected (${rejection.reason}: ${rejection.detail}); kept the rule-based text`);
    return outputDoc(p, p.markdown, 'rules', rejection.reason, stats);
  }
  if (!outcome.cached) client.remember(p.markdown, outcome.text);
  stats.llm.rewritten++;
  return outputDoc(p, text, 'llm', undefined, stats);
}

export function rewriteWeb(options: RewriteWebOptions = {}): Stage {
  return async function* (docs, ctx) {
    const stats = webStats(ctx);
    const recent = new RecentHashes(options.dedupWindow ?? WEB_DEFAULTS.dedupWindow);
    const llm = options.llm;
    if (!llm) {
      for await (const doc of docs) {
        const p = prepare(doc, ctx, options, recent);
        if (!p) continue;
        ctx.ledger.output();
        yield outputDoc(p, p.markdown, 'rules', undefined, stats);
      }
      return;
    }
    const client = new LlmClient(llm, stats.llm);
    const guard = options.guard ?? DEFAULT_GUARD;
    async function* prepared(): AsyncIterable<Prepared> {
      for await (const doc of docs) {
        const p = prepare(doc, ctx, options, recent);
        if (p) yield p;
      }
    }
    for await (const out of mapInOrder(prepared(), llm.concurrency, (p) => llmRewrite(p, client, guard, stats, ctx))) {
      ctx.ledger.output();
      yield out;
    }
  };
}
