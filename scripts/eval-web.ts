/**
 * Scores the web stage on the two development sets, side by side with readability.js (on
 * linkedom) as the yardstick:
 *
 *   npm run eval:web [-- [--readability-pages DIR] [--snippets DIR] [--worst N] [--differ N]
 *                        [--only readability|snippets] [--no-yardstick] [--yardstick-cache FILE]]
 *
 * - Readability's test pages (`DIR/NAME/source.html` + `expected.html`): mean token-level F1 of
 *   the extracted text against the expected content.
 * - The multilingual snippet set (`DIR/evaldata.json` + `DIR/pages/NAME.gz`), scored as
 *   trafilatura's evaluation scores it: every `with` snippet found is a true positive, missing a
 *   false negative; every `without` snippet found a false positive. Sums over all pages.
 *
 * midpack's text is what the `rewrite-web` stage writes (so a page it drops scores as empty), with
 * the Markdown markup stripped before matching.
 *
 * Beside each mean, page by page against readability.js: every catastrophe (midpack under 0.5
 * where readability.js reaches 0.9; a snippet page's F1 is its own snippets' F1) and the `--differ`
 * pages (10) where the two differ most, each with the snippets missed or unwanted and midpack's
 * scored candidates. `--yardstick-cache FILE` keeps readability.js's texts between runs (it is
 * slow and does not change), keyed by each page's content.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHtml, textOf } from '../src/stages/web/html.js';
import { decodeHtml } from '../src/stages/web/encoding.js';
import { rewriteWeb } from '../src/stages/web/stage.js';
import { checkFlags } from './args.js';
import { rewriteWithRules } from '../src/stages/web/rules.js';
import { markdownToPlainText } from '../src/stages/web/plain-text.js';
import { tokenF1 } from '../src/doc/words.js';
import { collect, defaultContext, fromArray } from '../src/core/stage.js';
import type { Doc } from '../src/doc/document.js';

interface Page {
  name: string;
  html: string;
}
type Extractor = { name: string; extract: (pages: Page[]) => Promise<Map<string, string>> };

const repoRoot = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const sharedData = [resolve(repoRoot, '..', 'shared', 'data'), '/work/shared/data'].find((d) => existsSync(d)) ?? resolve(repoRoot, '..', 'shared', 'data');

/** midpack: the rewrite-web stage; pages it drops are absent from the map. */
function midpack(minTextChars?: number): Extractor {
  return {
    name: 'midpack',
    async extract(pages) {
      const docs: Doc[] = pages.map((p) => ({ id: p.name, kind: 'web', source: p.name, text: p.html, meta: {} }));
      const ctx = defaultContext({ log: () => {} });
      ctx.ledger.onDrop = () => {};
      const out = await collect(rewriteWeb({ dedupWindow: 0, minTextChars })(fromArray(docs), ctx));
      return new Map(out.map((d) => [d.id, markdownToPlainText(d.text)]));
    },
  };
}

async function readabilityExtractor(cacheFile?: string): Promise<Extractor> {
  const { parseHTML } = await import('linkedom');
  const { Readability } = await import('@mozilla/readability');
  const cache: Record<string, string | null> = cacheFile && existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : {};
  return {
    name: 'readability.js+linkedom',
    async extract(pages) {
      const out = new Map<string, string>();
      for (const p of pages) {
        const key = createHash('sha256').update(p.html).digest('hex');
        if (!(key in cache)) cache[key] = readabilityText(p.html, parseHTML, Readability);
        const text = cache[key];
        if (text) out.set(p.name, text);
      }
      if (cacheFile) writeFileSync(cacheFile, JSON.stringify(cache));
      return out;
    },
  };
}

function readabilityText(html: string, parseHTML: typeof import('linkedom').parseHTML, Readability: typeof import('@mozilla/readability').Readability): string | null {
  try {
    const { document } = parseHTML(html);
    return new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse()?.textContent || null;
  } catch {
    // A page readability cannot handle scores as empty, as a dropped page does for midpack.
    return null;
  }
}

function readabilityPages(dir: string): { pages: Page[]; expected: Map<string, string> } {
  const names = readdirSync(dir).filter((d) => existsSync(join(dir, d, 'source.html')) && existsSync(join(dir, d, 'expected.html'))).sort();
  const pages = names.map((name) => ({ name, html: readFileSync(join(dir, name, 'source.html'), 'utf8') }));
  const expected = new Map(names.map((name) => [name, textOf(parseHtml(readFileSync(join(dir, name, 'expected.html'), 'utf8')))]));
  return { pages, expected };
}

interface SnippetPage {
  file: string;
  with: string[];
  without: string[];
}

function snippetPages(dir: string): { pages: Page[]; truth: SnippetPage[] } {
  const data = JSON.parse(readFileSync(join(dir, 'evaldata.json'), 'utf8')) as Record<string, SnippetPage>;
  const truth = Object.values(data).filter((t) => existsSync(join(dir, 'pages', `${t.file}.gz`)));
  truth.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const pages = truth.map((t) => ({ name: t.file, html: decodeHtml(gunzipSync(readFileSync(join(dir, 'pages', `${t.file}.gz`)))).text }));
  return { pages, truth };
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** One page's score by one extractor; `note` says what went wrong, for the per-page lists. */
interface PageScore {
  f1: number;
  precision: number;
  recall: number;
  note?: string;
}

/** trafilatura's evaluation: snippets found or missed, summed over the pages; and each page's own F1. */
export function scoreSnippets(texts: Map<string, string>, truth: SnippetPage[]) {
  let tp = 0, fn = 0, fp = 0, tn = 0;
  const perPage: { page: string; missed: number; wrong: number; score: PageScore }[] = [];
  for (const t of truth) {
    const text = squash(texts.get(t.file) ?? '');
    const missedSnippets: string[] = [];
    const wrongSnippets: string[] = [];
    for (const s of t.with) if (text && text.includes(squash(s))) tp++; else (fn++, missedSnippets.push(s));
    for (const s of t.without) if (text && text.includes(squash(s))) (fp++, wrongSnippets.push(s)); else tn++;
    const found = t.with.length - missedSnippets.length;
    const note = [...missedSnippets.map((s) => `missed "${clip(s)}"`), ...wrongSnippets.map((s) => `unwanted "${clip(s)}"`)].join('; ');
    perPage.push({ page: t.file, missed: missedSnippets.length, wrong: wrongSnippets.length, score: { ...snippetF1(found, wrongSnippets.length, missedSnippets.length), note } });
  }
  const precision = tp / (tp + fp || 1);
  const recall = tp / (tp + fn || 1);
  return { tp, fn, fp, tn, precision, recall, f1: (2 * tp) / (2 * tp + fp + fn || 1), perPage };
}

/** A page's F1 from its snippet counts; a page with nothing to find and nothing found is perfect. */
function snippetF1(tp: number, fp: number, fn: number): Omit<PageScore, 'note'> {
  return { f1: tp + fp + fn === 0 ? 1 : (2 * tp) / (2 * tp + fp + fn), precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1 };
}

const CLIP_CHARS = 60;
const clip = (s: string) => (squash(s).length > CLIP_CHARS ? `${squash(s).slice(0, CLIP_CHARS)}…` : squash(s));
const f4 = (x: number) => x.toFixed(4);
const f3 = (x: number) => x.toFixed(3);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

async function timed(e: Extractor, pages: Page[]) {
  const t0 = performance.now();
  const texts = await e.extract(pages);
  return { texts, pagesPerSecond: pages.length / ((performance.now() - t0) / 1000) };
}

/** A catastrophe: midpack loses the page (F1 under 0.5) where the yardstick gets it (0.9 or more). */
const CATASTROPHE_MIDPACK_BELOW = 0.5;
const CATASTROPHE_YARDSTICK_FROM = 0.9;

interface PerPage {
  pages: Page[];
  midpack: Map<string, PageScore>;
  yardstick?: Map<string, PageScore>;
  minTextChars?: number;
}

/**
 * Beside the mean: each catastrophe, then the pages where midpack and the yardstick differ most,
 * each with midpack's scored candidates (the chosen ones marked with *), so a failure can be read.
 */
function reportPages(r: PerPage, differ: number): number {
  if (!r.yardstick) return 0;
  const yard = r.yardstick;
  const rows = r.pages.map((p) => ({ page: p, mid: r.midpack.get(p.name)!, yard: yard.get(p.name)! }));
  const catastrophes = rows.filter((x) => x.mid.f1 < CATASTROPHE_MIDPACK_BELOW && x.yard.f1 >= CATASTROPHE_YARDSTICK_FROM);
  console.log(`  catastrophes (midpack F1 < ${CATASTROPHE_MIDPACK_BELOW}, readability.js >= ${CATASTROPHE_YARDSTICK_FROM}): ${catastrophes.length}`);
  for (const x of catastrophes) explainPage(x, r.minTextChars);
  if (differ > 0) {
    console.log(`  the ${differ} pages where the two differ most:`);
    for (const x of [...rows].sort((a, b) => Math.abs(b.mid.f1 - b.yard.f1) - Math.abs(a.mid.f1 - a.yard.f1)).slice(0, differ)) explainPage(x, r.minTextChars);
  }
  return catastrophes.length;
}

function explainPage(x: { page: Page; mid: PageScore; yard: PageScore }, minTextChars: number | undefined): void {
  const { page, mid, yard } = x;
  console.log(`    ${page.name}: midpack F1 ${f3(mid.f1)} (P ${f3(mid.precision)} R ${f3(mid.recall)}), readability.js ${f3(yard.f1)}`);
  if (mid.note) console.log(`      ${mid.note}`);
  const r = rewriteWithRules(page.html, { minTextChars, explain: true });
  if (!r.ok) return void console.log(`      not rewritten: ${r.reason}`);
  for (const c of r.candidates ?? []) {
    console.log(`      ${c.chosen ? '*' : ' '} ${c.score.toFixed(1).padStart(7)} ${String(c.chars).padStart(6)} ch ld ${c.linkDensity.toFixed(2)}  ${c.element.slice(0, 90)}`);
    console.log(`                  "${c.preview}"`);
  }
}

async function evalReadabilitySet(dir: string, extractors: Extractor[], worst: number, differ: number): Promise<number> {
  const { pages, expected } = readabilityPages(dir);
  // Several of these pages are unit-test fixtures with a sentence or two of content, under the
  // stage's minimum text by design: midpack runs here with no minimum, so every page is scored.
  console.log(`\nReadability test pages (${pages.length}): mean token-level F1 against expected.html (midpack with --min-text-chars 0)`);
  const perPage: PerPage = { pages, midpack: new Map(), minTextChars: 0 };
  for (const e of [midpack(0), ...extractors]) {
    const { texts, pagesPerSecond } = await timed(e, pages);
    const scores = pages.map((p) => ({ page: p.name, ...tokenF1(texts.get(p.name) ?? '', expected.get(p.name)!) }));
    const dropped = pages.filter((p) => !texts.has(p.name)).length;
    console.log(
      `  ${e.name.padEnd(24)} F1 ${f4(mean(scores.map((s) => s.f1)))}  precision ${f4(mean(scores.map((s) => s.precision)))}  ` +
        `recall ${f4(mean(scores.map((s) => s.recall)))}  dropped ${dropped}  ${pagesPerSecond.toFixed(1)} pages/s`,
    );
    for (const s of [...scores].sort((a, b) => a.f1 - b.f1).slice(0, worst)) console.log(`      ${s.page}: F1 ${s.f1.toFixed(3)} P ${s.precision.toFixed(3)} R ${s.recall.toFixed(3)}`);
    const byPage = new Map(scores.map((s) => [s.page, { f1: s.f1, precision: s.precision, recall: s.recall, ...(texts.has(s.page) ? {} : { note: 'dropped' }) }]));
    if (e.name === 'midpack') perPage.midpack = byPage;
    else perPage.yardstick ??= byPage;
  }
  return reportPages(perPage, differ);
}

async function evalSnippetSet(dir: string, extractors: Extractor[], worst: number, differ: number): Promise<number> {
  const { pages, truth } = snippetPages(dir);
  console.log(`\nMultilingual snippet set (${pages.length} pages): trafilatura's scoring, Markdown stripped (midpack at its defaults)`);
  const perPage: PerPage = { pages, midpack: new Map() };
  for (const e of [midpack(), ...extractors]) {
    const { texts, pagesPerSecond } = await timed(e, pages);
    const s = scoreSnippets(texts, truth);
    console.log(
      `  ${e.name.padEnd(24)} F1 ${f4(s.f1)}  precision ${f4(s.precision)}  recall ${f4(s.recall)}  ` +
        `dropped ${pages.length - texts.size}  ${pagesPerSecond.toFixed(1)} pages/s  (mean of page F1 ${f4(mean(s.perPage.map((p) => p.score.f1)))})`,
    );
    for (const p of [...s.perPage].sort((a, b) => b.missed + b.wrong - (a.missed + a.wrong)).slice(0, worst)) console.log(`      ${p.page}: missed ${p.missed}, unwanted ${p.wrong}`);
    const byPage = new Map(s.perPage.map((p) => [p.page, texts.has(p.page) ? p.score : { ...p.score, note: `dropped; ${p.score.note}` }]));
    if (e.name === 'midpack') perPage.midpack = byPage;
    else perPage.yardstick ??= byPage;
  }
  return reportPages(perPage, differ);
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  checkFlags(args, ['--readability-pages', '--snippets', '--worst', '--differ', '--only', '--no-yardstick', '--yardstick-cache'], USAGE);
  const worst = Number(option(args, '--worst') ?? 0);
  const extractors = args.includes('--no-yardstick') ? [] : [await readabilityExtractor(option(args, '--yardstick-cache'))];
  const rp = option(args, '--readability-pages') ?? join(sharedData, 'readability-test-pages');
  const sn = option(args, '--snippets') ?? join(sharedData, 'web-eval-trafilatura');
  const only = option(args, '--only');
  const differ = Number(option(args, '--differ') ?? DEFAULT_DIFFER);
  let catastrophes = 0;
  if (only !== 'snippets') catastrophes += await evalReadabilitySet(rp, extractors, worst, differ);
  if (only !== 'readability') catastrophes += await evalSnippetSet(sn, extractors, worst, differ);
  if (extractors.length) console.log(`\ncatastrophes on both sets: ${catastrophes}`);
}

const DEFAULT_DIFFER = 10;
const USAGE = `usage: npm run eval:web -- [--readability-pages DIR] [--snippets DIR] [--worst N] [--differ N]
                        [--only readability|snippets] [--no-yardstick] [--yardstick-cache FILE]
  --readability-pages  Readability's test pages (default: ../shared/data/readability-test-pages)
  --snippets           the multilingual snippet set (default: ../shared/data/web-eval-trafilatura)
  --worst N            list the N pages where midpack scores lowest
  --differ N           list the N pages where midpack and readability.js differ most (default ${DEFAULT_DIFFER})
  --only SET           score one set only
  --no-yardstick       do not run readability.js (no catastrophe count)
  --yardstick-cache F  keep readability.js's texts in F between runs`;

main().catch((e) => {
  console.error(`eval-web: ${(e as Error).message}`);
  process.exitCode = 1;
});
