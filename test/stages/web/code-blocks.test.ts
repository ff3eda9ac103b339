import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { rewriteWithRules } from '../../../src/stages/web/rules.js';
import { fixtureDir } from './helpers.js';

const pages = ['json.html', 'datastructures.html'];

/** The code blocks of the main content by an independent method: linkedom's textContent of each <pre> in Sphinx's main element. */
function expectedBlocks(html: string): { text: string; lang: string }[] {
  const { document } = parseHTML(html);
  return [...document.querySelectorAll('div[role=main] pre')].map((pre) => {
    // The HTML parsing rules drop one newline right after <pre>.
    const raw = pre.textContent ?? '';
    const text = raw.startsWith('\n') ? raw.slice(1) : raw;
    const wrapper = pre.parentElement?.parentElement?.getAttribute('class') ?? '';
    const lang = /highlight-([\w-]+)/.exec(wrapper)?.[1] ?? '';
    return { text, lang: lang === 'default' ? '' : lang };
  });
}

for (const page of pages) {
  test(`every <pre> of the main content of python-docs/${page} is fenced with its language and byte-exact`, () => {
    const html = readFileSync(join(fixtureDir, 'python-docs', page), 'utf8');
    const blocks = expectedBlocks(html);
    assert.ok(blocks.length >= 10, `fixture has ${blocks.length} code blocks`);
    const r = rewriteWithRules(html);
    assert.ok(r.ok);
    assert.equal(r.codeBlocks.length, blocks.length, 'one fenced block per <pre>');
    for (const b of blocks) {
      const body = b.text.endsWith('\n') ? b.text : b.text + '\n';
      const fenced = '```' + b.lang + '\n' + body + '```';
      assert.ok(r.markdown.includes(fenced), `missing fenced block:\n${fenced.slice(0, 200)}`);
    }
    // Entities are decoded and nothing of the page chrome leaks into code.
    assert.ok(!/&(lt|gt|amp|quot|#\d+);/.test(r.codeBlocks.map((c) => c.text).join('')));
    assert.ok(r.codeBlocks.some((c) => c.lang === 'python3'));
  });
}
