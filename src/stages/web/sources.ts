import { readFileSync, statSync } from 'node:fs';
import type { Doc } from '../../doc/document.js';
import { stableId } from '../../core/random.js';
import type { StageContext } from '../../core/stage.js';
import { expandInputs, isJsonl, portableNamer } from '../../io/inputs.js';
import { inputOwns } from '../../core/ranks.js';
import { readJsonl } from '../../io/jsonl.js';
import { charsetFromContentType, decodeHtml, looksBinary } from './encoding.js';
import { parseHttpResponse, readWarc } from './warc.js';
import { webStats } from './stats.js';

/**
 * Reads web pages from HTML files (and folders of them), JSONL with `html` (and optional
 * `url`), and WARC files (`response` records). Each page becomes a document whose text is
 * the decoded HTML, for the rewrite stage; every page is counted in the ledger, and the
 * ones that cannot be read are counted under a reason.
 */
export interface WebSourceOptions {
  /** Pages larger than this are counted as too_large and never held in memory. */
  maxPageBytes: number;
}

export const DEFAULT_MAX_PAGE_BYTES = 64 << 20;

export const isWarc = (name: string) => /\.warc(\.gz)?$/i.test(name);
export const isHtml = (name: string) => /\.x?html?$/i.test(name);
const isWebInput = (name: string) => isWarc(name) || isJsonl(name) || isHtml(name);

/** The page document the rewrite stage reads: HTML text, identity in meta. */
export function pageDoc(seed: number, identity: string, html: string, meta: Record<string, unknown>): Doc {
  return { id: stableId(seed, 'web', identity), kind: 'web', source: identity, text: html, meta };
}

const TEXTUAL_TYPE = /^\s*(text\/html|application\/xhtml\+xml|text\/plain|application\/xml|text\/xml)?\s*(;|$)/i;

export async function* readWebInputs(inputs: string[], ctx: StageContext, options: WebSourceOptions): AsyncIterable<Doc> {
  const nameOf = portableNamer(inputs);
  for (const file of expandInputs(inputs, isWebInput)) {
    // Pages without a URL are known by the file's portable name: their ids and the rank partition do not move with the data.
    const name = nameOf(file);
    if (isWarc(file)) yield* readWarcPages(file, name, ctx, options);
    else if (isJsonl(file)) yield* readJsonlPages(file, name, ctx);
    else if (!ctx.owns || ctx.owns(`page:${name}`)) {
      const page = readHtmlFile(file, name, ctx, options);
      if (page) yield page;
    }
  }
}

function readHtmlFile(file: string, name: string, ctx: StageContext, options: WebSourceOptions): Doc | undefined {
  ctx.ledger.input();
  const size = statSync(file).size;
  if (size > options.maxPageBytes) {
    ctx.ledger.drop('too_large', `${file}: page of ${size} bytes is over the limit of ${options.maxPageBytes}`);
    return undefined;
  }
  return decodePage(readFileSync(file), undefined, name, ctx, { path: name }, file);
}

function decodePage(bytes: Buffer, contentType: string | undefined, identity: string, ctx: StageContext, meta: Record<string, unknown>, where: string): Doc | undefined {
  const utf16Bom = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (!utf16Bom && looksBinary(bytes)) {
    ctx.ledger.drop('not_text', `${where}: binary content, not a text page`);
    return undefined;
  }
  const decoded = decodeHtml(bytes, charsetFromContentType(contentType));
  return pageDoc(ctx.seed, identity, decoded.text, { ...meta, charset: decoded.charset });
}

async function* readJsonlPages(file: string, name: string, ctx: StageContext): AsyncIterable<Doc> {
  for await (const rec of readJsonl(file, ctx.ledger, undefined, inputOwns(ctx.owns, name))) {
    const v = rec.value as Record<string, unknown> | null;
    const where = `${file}:${rec.lineNo}`;
    if (v === null || typeof v !== 'object' || typeof v.html !== 'string') {
      ctx.ledger.drop('missing_html', `${where}: record has no "html" string`);
      continue;
    }
    const url = typeof v.url === 'string' && v.url ? v.url : undefined;
    const line = `${name}:${rec.lineNo}`;
    yield pageDoc(ctx.seed, url ?? line, v.html, url ? { url } : { path: line });
  }
}

async function* readWarcPages(file: string, name: string, ctx: StageContext, options: WebSourceOptions): AsyncIterable<Doc> {
  let skipped = 0;
  for await (const item of readWarc(file, options.maxPageBytes)) {
    if (item.kind === 'broken') {
      if (ctx.owns && !ctx.owns(`warc:${name}#${item.index}`)) continue;
      ctx.ledger.input();
      ctx.ledger.drop('broken_warc_record', `${file}: ${item.message}`);
      continue;
    }
    if (item.kind === 'truncated') {
      if (ctx.owns && !ctx.owns(`warc-truncated:${name}`)) break;
      ctx.ledger.input();
      ctx.ledger.drop('truncated_warc_record', `${file}: ${item.message}`);
      break;
    }
    const { record } = item;
    const type = record.headers.get('warc-type') ?? '';
    if (type !== 'response') {
      skipped++; // warcinfo, request, metadata: not pages
      continue;
    }
    if (ctx.owns && !ctx.owns(`warc:${name}#${record.index}`)) continue; // another rank's record
    ctx.ledger.input();
    const url = record.headers.get('warc-target-uri')?.replace(/^<|>$/g, '') || undefined;
    const where = `${file}: record ${record.index}${url ? ` (${url})` : ''}`;
    if (!record.block) {
      ctx.ledger.drop('too_large', `${where}: record of ${record.blockBytes} bytes is over the limit of ${options.maxPageBytes}`);
      continue;
    }
    let response;
    try {
      response = parseHttpResponse(record.block, options.maxPageBytes);
    } catch (e) {
      ctx.ledger.drop('bad_http_response', `${where}: ${(e as Error).message}`);
      continue;
    }
    if (!(response.status >= 200 && response.status < 300)) {
      ctx.ledger.drop('http_status', `${where}: HTTP status ${Number.isNaN(response.status) ? 'unreadable' : response.status}`);
      continue;
    }
    if (!TEXTUAL_TYPE.test(response.contentType)) {
      ctx.ledger.drop('not_text', `${where}: content type ${response.contentType}`);
      continue;
    }
    const page = decodePage(response.body, response.contentType, url ?? `${name}#${record.index}`, ctx, { ...(url ? { url } : { path: `${name}#${record.index}` }) }, where);
    if (page) yield page;
  }
  webStats(ctx).warc_records_skipped += skipped;
}
