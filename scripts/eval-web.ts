/**
 * Scores the rule-based rewriter on a development set of pages: each folder holds
 * `source.html` and `expected.html` (the main content). Prints the mean token-level F1.
 *
 *   npm run eval:web -- DIR [--worst N] [--readability]
 *
 * `--readability` also scores @mozilla/readability on linkedom, the alternative the
 * rewriter was measured against (see docs/web.md).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHtml, textOf } from '../src/stages/web/html.js';
import { rewriteWithRules } from '../src/stages/web/rules.js';
import { tokenF1, type F1 } from '../src/stages/web/tokens.js';

interface Score extends F1 {
  page: string;
}

function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

function summarize(name: string, scores: Score[], seconds: number, worst: number): void {
  console.log(
    `${name}: pages ${scores.length}  mean F1 ${mean(scores.map((s) => s.f1)).toFixed(4)}  ` +
      `precision ${mean(scores.map((s) => s.precision)).toFixed(4)}  recall ${mean(scores.map((s) => s.recall)).toFixed(4)}  ` +
      `(${(scores.length / seconds).toFixed(1)} pages/s)`,
  );
  for (const s of [...scores].sort((a, b) => a.f1 - b.f1).slice(0, worst)) {
    console.log(`  ${s.page}: F1 ${s.f1.toFixed(3)} P ${s.precision.toFixed(3)} R ${s.recall.toFixed(3)}`);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const dir = args.find((a) => !a.startsWith('--'));
  if (!dir) throw new Error('usage: eval-web DIR [--worst N] [--readability]');
  const worstAt = args.indexOf('--worst');
  const worst = worstAt >= 0 ? Number(args[worstAt + 1]) : 5;
  const pages = readdirSync(dir)
    .filter((d) => existsSync(join(dir, d, 'source.html')) && existsSync(join(dir, d, 'expected.html')))
    .sort()
    .map((d) => ({
      page: d,
      source: readFileSync(join(dir, d, 'source.html'), 'utf8'),
      expected: textOf(parseHtml(readFileSync(join(dir, d, 'expected.html'), 'utf8'))),
    }));
  let t0 = performance.now();
  const rules: Score[] = pages.map((p) => {
    const r = rewriteWithRules(p.source);
    return { page: p.page, ...tokenF1(r.ok ? r.markdown : '', p.expected) };
  });
  summarize('rules', rules, (performance.now() - t0) / 1000, worst);
  if (args.includes('--readability')) {
    const { parseHTML } = await import('linkedom');
    const { Readability } = await import('@mozilla/readability');
    t0 = performance.now();
    const scores: Score[] = pages.map((p) => {
      const { document } = parseHTML(p.source);
      const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
      return { page: p.page, ...tokenF1(article?.textContent ?? '', p.expected) };
    });
    summarize('readability+linkedom', scores, (performance.now() - t0) / 1000, worst);
  }
}

main().catch((e) => {
  console.error(`eval-web: ${(e as Error).message}`);
  process.exitCode = 1;
});
