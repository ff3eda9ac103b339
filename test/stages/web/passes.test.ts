import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedDir } from '../../helpers/paths.js';
import { EXTRACT_ATTEMPTS } from '../../../src/stages/web/extract.js';
import { rewriteWithRules } from '../../../src/stages/web/rules.js';
import { markdownToPlainText } from '../../../src/stages/web/plain-text.js';
import { devSetDir, runWeb } from './helpers.js';

const snippets = join(sharedDir, 'data', 'web-eval-trafilatura');
const skip = existsSync(join(snippets, 'evaldata.json')) ? false : 'the multilingual development set (shared/data) is not present';

function snippetPage(file: string): { html: string; with: string[] } {
  const data = JSON.parse(readFileSync(join(snippets, 'evaldata.json'), 'utf8')) as Record<string, { file: string; with: string[] }>;
  const entry = Object.values(data).find((d) => d.file === file)!;
  return { html: gunzipSync(readFileSync(join(snippets, 'pages', `${file}.gz`))).toString('utf8'), with: entry.with };
}

test('a page the strict passes find too little on is recovered by the inclusive pass, and counted under it', { skip }, async () => {
  // A real recipe page whose ingredients and steps sit in blocks every strict pass discards.
  const page = snippetPage('bettycrocker.com.pineapple.html');
  const strictOnly = rewriteWithRules(page.html); // no minimum: the inclusive pass is not needed
  assert.ok(strictOnly.ok && strictOnly.pass < EXTRACT_ATTEMPTS.length);
  const dir = mkdtempSync(join(tmpdir(), 'midpack-web-pass-'));
  writeFileSync(join(dir, 'page.html'), page.html);
  const { docs, ctx } = await runWeb([join(dir, 'page.html')]);
  assert.equal(docs.length, 1, 'kept, not dropped as too_little_text');
  const text = markdownToPlainText(docs[0]!.text).replace(/\s+/g, ' ');
  for (const s of page.with) assert.ok(text.includes(s.replace(/\s+/g, ' ').trim()), `missing: ${s}`);
  const stats = ctx.stats.rewrite_web as { by_pass: Record<string, number> };
  assert.deepEqual(stats.by_pass, { inclusive: 1 });
  assert.ok(ctx.ledger.balanced());
});

test('every kept page is counted under the pass that produced it', { skip: devSetDir ? false : 'the readability test pages are not present' }, async () => {
  const pages = ['mozilla-1', 'wikipedia', 'medium-1', 'ars-1', 'nytimes-1', 'ol', 'lazy-image-3'].map((p) => join(devSetDir!, p, 'source.html'));
  const { docs, ctx } = await runWeb(pages);
  const stats = ctx.stats.rewrite_web as { by_pass: Record<string, number>; pages_rewritten: number };
  const counted = Object.values(stats.by_pass).reduce((a, b) => a + b, 0);
  assert.equal(counted, docs.length);
  assert.equal(stats.pages_rewritten, docs.length);
  assert.ok((stats.by_pass.strict ?? 0) >= 4, JSON.stringify(stats.by_pass));
});

test('Markdown to plain text: markup goes, words and code stay', () => {
  const md = '# Title\n\n- **bold** and *em* [link](http://x.y)\n\n| a | b |\n| --- | --- |\n| 1 \\| 2 | 3 |\n\n> quoted `code`\n\n```py\nx = **y**\n```';
  assert.equal(markdownToPlainText(md), 'Title\n\nbold and em link\n\na b\n1 | 2 3\n\nquoted code\n\nx = **y**');
});
