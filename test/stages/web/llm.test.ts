import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { docToJson } from '../../../src/doc/document.js';
import { DEFAULT_PROMPT, LLM_DEFAULTS, type LlmOptions } from '../../../src/stages/web/llm.js';
import { webStats } from '../../../src/stages/web/stats.js';
import { runWeb } from './helpers.js';

/**
 * A loopback OpenAI-compatible server whose behaviour depends on the page it is asked about
 * (a marker word in the page): well, slowly, 429 then well, 500 always, malformed JSON,
 * or a rewrite that invents a URL. It closes itself after the test.
 */
function startServer(): Promise<{ server: Server; url: string; requests: () => number; keys: string[] }> {
  let count = 0;
  const attempts = new Map<string, number>();
  const keys: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      count++;
      keys.push(String(req.headers.authorization ?? ''));
      const input: string = JSON.parse(body).messages[1].content;
      const marker = /MARK(\w+)/.exec(input)?.[1] ?? 'good';
      const n = (attempts.get(marker) ?? 0) + 1;
      attempts.set(marker, n);
      const answer = (content: string) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
      };
      const faithful = '```markdown\n' + input.replace(/\n{2,}/g, '\n\n') + '\n```';
      switch (marker) {
        case 'slow':
          setTimeout(() => answer(faithful), n === 1 ? 4000 : 10); // first attempt times out (well past timeoutMs, which leaves a loaded machine's answers room)
          break;
        case 'ratelimited':
          if (n <= 2) {
            res.writeHead(429, { 'retry-after': '0' });
            res.end('slow down');
          } else answer(faithful);
          break;
        case 'broken':
          res.writeHead(500);
          res.end('internal error');
          break;
        case 'malformed':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"choices": [ {"message": ');
          break;
        case 'inventor':
          answer(input + '\n\nSee https://invented.example.com/more for details.');
          break;
        default:
          answer(faithful);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests: () => count, keys })),
  );
}

const page = (marker: string) =>
  `<html><head><title>Page ${marker}</title></head><body><article><p>MARK${marker} This page is about ${marker} and has enough words, commas, and sentences to be kept as content.</p>` +
  `<p>A second paragraph talks about parsers, caches, retries and guards, for the ${marker} case.</p><pre><code class="language-js">const x = 1 &lt; 2;\n  console.log(x);\n</code></pre></article></body></html>`;

test('LLM path: every page is rewritten, served from cache, or falls back with a counted reason; a rerun asks no answered page again', async () => {
  const { server, url, requests, keys } = await startServer();
  try {
    const dir = mkdtempSync(join(tmpdir(), 'midpack-llm-'));
    const markers = ['good', 'slow', 'ratelimited', 'broken', 'malformed', 'inventor'];
    for (const m of markers) writeFileSync(join(dir, `${m}.html`), page(m));
    const llm: LlmOptions = { ...LLM_DEFAULTS, endpoint: url, model: 'test-model', prompt: DEFAULT_PROMPT, cacheDir: join(dir, 'cache'), apiKeyEnv: 'MIDPACK_TEST_KEY', concurrency: 3, maxRetries: 2, timeoutMs: 2000, backoffMs: 10, maxBackoffMs: 50 };
    process.env.MIDPACK_TEST_KEY = 'sk-secret-test';
    const first = await runWeb([dir], { llm, minTextChars: 50 });
    const s = webStats(first.ctx);
    assert.ok(first.ctx.ledger.balanced());
    assert.equal(first.docs.length, markers.length);
    const byName = new Map(first.docs.map((d) => [String(d.meta.path).replace(/.*\//, '').replace('.html', ''), d]));
    for (const m of ['good', 'slow', 'ratelimited']) {
      assert.equal(byName.get(m)!.meta.method, 'llm', m);
      assert.ok(byName.get(m)!.text.includes('```js\nconst x = 1 < 2;\n  console.log(x);\n```'));
      assert.ok(!byName.get(m)!.text.startsWith('```markdown'));
    }
    assert.equal(byName.get('broken')!.meta.fallback_reason, 'llm_http_5xx');
    assert.equal(byName.get('malformed')!.meta.fallback_reason, 'llm_malformed_response');
    assert.equal(byName.get('inventor')!.meta.fallback_reason, 'invented_url');
    for (const m of ['broken', 'malformed', 'inventor']) assert.equal(byName.get(m)!.meta.method, 'rules');
    assert.deepEqual(s.llm.failed_by_reason, { http_5xx: 1, malformed_response: 1 });
    assert.deepEqual(s.llm.rejected_by_reason, { invented_url: 1 });
    assert.equal(s.llm.rewritten, 3);
    assert.equal(s.llm.fallbacks, 3);
    // good 1, slow 2 (timeout, then ok), ratelimited 3, broken 3, malformed 3, inventor 1
    assert.equal(s.llm.requests, 13);
    assert.equal(s.llm.retries, 7);
    assert.equal(requests(), 13);
    assert.equal(s.llm.cache_hits, 0);
    assert.ok(keys.every((k) => k === 'Bearer sk-secret-test'));
    assert.ok(!JSON.stringify(first.ctx.stats).includes('sk-secret-test'));

    // A rerun: the accepted answers come from the cache; the failed and the guard-rejected pages are asked again.
    const second = await runWeb([dir], { llm, minTextChars: 50 });
    const s2 = webStats(second.ctx);
    assert.equal(s2.llm.cache_hits, 3);
    assert.equal(s2.llm.requests, 7); // broken and malformed, three attempts each; inventor once
    assert.deepEqual(second.docs.map(docToJson), first.docs.map(docToJson), 'same bytes on a rerun');
    assert.equal(readdirSync(join(dir, 'cache')).length > 0, true);
  } finally {
    delete process.env.MIDPACK_TEST_KEY;
    server.close();
    server.closeAllConnections();
  }
});
