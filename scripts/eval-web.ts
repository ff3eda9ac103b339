/**
 * Scores the web stage on the two development sets, side by side with readability.js (on
 * linkedom) as the yardstick:
 *
 *   npm run eval:web [-- [--readability-pages DIR] [--snippets DIR] [--worst N] [--no-yardstick]]
 *
 * - Readability's test pages (`DIR/NAME/source.html` + `expected.html`): mean token-level F1 of
 *   the extracted text against the expected content.
 * - The multilingual snippet set (`DIR/evaldata.json` + `DIR/pages/NAME.gz`), scored as
 *   trafilatura's evaluation scores it: every `with` snippet found is a true positive, missing a
 *   false negative; every `without` snippet found a false positive. Sums over all pages.
 *
 * midpack's text is what the `rewrite-web` stage writes (so a page it drops scores as empty), with
 * the Markdown markup stripped before matching.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHtml, textOf } from '../src/stages/web/html.js';
import { decodeHtml } from '../src/stages/web/encoding.js';
import { rewriteWeb } from '../src/stages/web/stage.js';
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

async function readabilityExtractor(): Promise<Extractor> {
  const { parseHTML } = await import('linkedom');
  const { Readability } = await import('@mozilla/readability');
  return {
    name: 'readability.js+linkedom',
    async extract(pages) {
      const out = new Map<string, string>();
      for (const p of pages) {
        try {
          const { document } = parseHTML(p.html);
          const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
          if (article?.textContent) out.set(p.name, article.textContent);
        } catch {
          // A page readability cannot handle scores as empty, as a dropped page does for midpack.
        }
      }
      return out;
    },
  };
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

/** trafilatura's evaluation: snippets found or missed, summed over the pages. */
export function scoreSnippets(texts: Map<string, string>, truth: SnippetPage[]) {
  let tp = 0, fn = 0, fp = 0, tn = 0;
  const perPage: { page: string; missed: number; wrong: number }[] = [];
  for (const t of truth) {
    const text = squash(texts.get(t.file) ?? '');
    let missed = 0, wrong = 0;
    for (const s of t.with) if (text && text.includes(squash(s))) tp++; else (fn++, missed++);
    for (const s of t.without) if (text && text.includes(squash(s))) (fp++, wrong++); else tn++;
    perPage.push({ page: t.file, missed, wrong });
  }
  const precision = tp / (tp + fp || 1);
  const recall = tp / (tp + fn || 1);
  return { tp, fn, fp, tn, precision, recall, f1: (2 * tp) / (2 * tp + fp + fn || 1), perPage };
}

const f4 = (x: number) => x.toFixed(4);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

async function timed(e: Extractor, pages: Page[]) {
  const t0 = performance.now();
  const texts = await e.extract(pages);
  return { texts, pagesPerSecond: pages.length / ((performance.now() - t0) / 1000) };
}

async function evalReadabilitySet(dir: string, extractors: Extractor[], worst: number): Promise<void> {
  const { pages, expected } = readabilityPages(dir);
  // Several of these pages are unit-test fixtures with a sentence or two of content, under the
  // stage's minimum text by design: midpack runs here with no minimum, so every page is scored.
  console.log(`\nReadability test pages (${pages.length}): mean token-level F1 against expected.html (midpack with --min-text-chars 0)`);
  for (const e of [midpack(0), ...extractors]) {
    const { texts, pagesPerSecond } = await timed(e, pages);
    const scores = pages.map((p) => ({ page: p.name, ...tokenF1(texts.get(p.name) ?? '', expected.get(p.name)!) }));
    const dropped = pages.filter((p) => !texts.has(p.name)).length;
    console.log(
      `  ${e.name.padEnd(24)} F1 ${f4(mean(scores.map((s) => s.f1)))}  precision ${f4(mean(scores.map((s) => s.precision)))}  ` +
        `recall ${f4(mean(scores.map((s) => s.recall)))}  dropped ${dropped}  ${pagesPerSecond.toFixed(1)} pages/s`,
    );
    for (const s of [...scores].sort((a, b) => a.f1 - b.f1).slice(0, worst)) console.log(`      ${s.page}: F1 ${s.f1.toFixed(3)} P ${s.precision.toFixed(3)} R ${s.recall.toFixed(3)}`);
  }
}

async function evalSnippetSet(dir: string, extractors: Extractor[], worst: number): Promise<void> {
  const { pages, truth } = snippetPages(dir);
  console.log(`\nMultilingual snippet set (${pages.length} pages): trafilatura's scoring, Markdown stripped (midpack at its defaults)`);
  for (const e of [midpack(), ...extractors]) {
    const { texts, pagesPerSecond } = await timed(e, pages);
    const s = scoreSnippets(texts, truth);
    console.log(
      `  ${e.name.padEnd(24)} F1 ${f4(s.f1)}  precision ${f4(s.precision)}  recall ${f4(s.recall)}  ` +
        `dropped ${pages.length - texts.size}  ${pagesPerSecond.toFixed(1)} pages/s`,
    );
    for (const p of [...s.perPage].sort((a, b) => b.missed + b.wrong - (a.missed + a.wrong)).slice(0, worst)) console.log(`      ${p.page}: missed ${p.missed}, unwanted ${p.wrong}`);
  }
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const worst = Number(option(args, '--worst') ?? 0);
  const extractors = args.includes('--no-yardstick') ? [] : [await readabilityExtractor()];
  const rp = option(args, '--readability-pages') ?? join(sharedData, 'readability-test-pages');
  const sn = option(args, '--snippets') ?? join(sharedData, 'web-eval-trafilatura');
  const only = option(args, '--only');
  if (only !== 'snippets') await evalReadabilitySet(rp, extractors, worst);
  if (only !== 'readability') await evalSnippetSet(sn, extractors, worst);
}

main().catch((e) => {
  console.error(`eval-web: ${(e as Error).message}`);
  process.exitCode = 1;
});
