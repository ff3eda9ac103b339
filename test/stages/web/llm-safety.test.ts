import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { DEFAULT_PROMPT, LLM_DEFAULTS, type LlmOptions } from '../../../src/stages/web/llm.js';
import { webStats } from '../../../src/stages/web/stats.js';
import { cliPath } from '../../helpers/run-cli.js';
import { runWeb } from './helpers.js';

interface Loopback {
  server: Server;
  port: number;
  requests: { marker: string; model: string; authorization: string }[];
}

/** A loopback OpenAI-compatible server: faithful answers, a huge one (chunked, no length), an inventing one. */
function startServer(): Promise<Loopback> {
  const requests: Loopback['requests'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = JSON.parse(body) as { model: string; messages: { content: string }[] };
      const input = json.messages[1]!.content;
      const marker = /MARK(\w+)/.exec(input)?.[1] ?? 'good';
      requests.push({ marker, model: json.model, authorization: String(req.headers.authorization ?? '') });
      const content = marker === 'inventor' ? `${input}\n\nSee https://invented.example.com/more for details.` : input;
      const answer = JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] });
      if (marker !== 'huge') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answer);
        return;
      }
      // 64 MB without a content-length: the client must stop reading at its bound.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices": [{"message": {"content": "');
      const chunk = 'x'.repeat(1 << 20);
      let sent = 0;
      const more = () => {
        while (sent < 64 && res.write(chunk)) sent++;
        if (sent < 64) res.once('drain', () => (sent++, more()));
        else res.end('"}}]}');
      };
      res.on('error', () => {});
      more();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, requests })));
}

const page = (marker: string) =>
  `<html><head><title>Page ${marker}</title></head><body><article><p>MARK${marker} This page is about ${marker} and has enough words, commas, and sentences to be kept as content.</p>` +
  `<p>A second paragraph talks about parsers, caches, retries and guards, for the ${marker} case.</p></article></body></html>`;

function pages(markers: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-llm-safety-'));
  for (const m of markers) writeFileSync(join(dir, `${m}.html`), page(m));
  return dir;
}

const stop = (l: Loopback) => (l.server.close(), l.server.closeAllConnections());

test('LLM client: a huge answer is refused at the bound; the cache is keyed by endpoint and model; rejected answers are not cached', async () => {
  const a = await startServer();
  const b = await startServer();
  try {
    const dir = pages(['good', 'huge', 'inventor']);
    const base: LlmOptions = { ...LLM_DEFAULTS, endpoint: `http://127.0.0.1:${a.port}/v1`, model: 'm1', prompt: DEFAULT_PROMPT, cacheDir: join(dir, 'cache'), apiKeyEnv: 'MIDPACK_TEST_NO_KEY', maxRetries: 0, timeoutMs: 20_000, maxResponseBytes: 1 << 20 };
    const before = process.memoryUsage().rss;
    const first = await runWeb([dir], { llm: base, minTextChars: 50 });
    const s1 = webStats(first.ctx);
    const byMarker = (docs: typeof first.docs, m: string) => docs.find((d) => String(d.meta.path).endsWith(`${m}.html`))!;
    assert.equal(byMarker(first.docs, 'huge').meta.fallback_reason, 'llm_response_too_large');
    assert.ok(process.memoryUsage().rss - before < 48 << 20, 'the 64 MB answer was never held');
    assert.equal(byMarker(first.docs, 'good').meta.method, 'llm');
    assert.equal(byMarker(first.docs, 'inventor').meta.fallback_reason, 'invented_url');
    assert.deepEqual(s1.llm.failed_by_reason, { response_too_large: 1 });
    assert.equal(a.requests.length, 3);

    // Same endpoint and model: only the accepted answer is served from the cache; the rejected one is asked again.
    const again = await runWeb([dir], { llm: base, minTextChars: 50 });
    assert.equal(webStats(again.ctx).llm.cache_hits, 1);
    assert.deepEqual(a.requests.slice(3).map((r) => r.marker).sort(), ['huge', 'inventor']);

    // Another model, then another endpoint: nothing comes from the cache of the first.
    const other = await runWeb([dir], { llm: { ...base, model: 'm2' }, minTextChars: 50 });
    assert.equal(webStats(other.ctx).llm.cache_hits, 0);
    assert.deepEqual(a.requests.slice(5).map((r) => r.model), ['m2', 'm2', 'm2']);
    const elsewhere = await runWeb([dir], { llm: { ...base, endpoint: `http://127.0.0.1:${b.port}/v1` }, minTextChars: 50 });
    assert.equal(webStats(elsewhere.ctx).llm.cache_hits, 0);
    assert.equal(b.requests.length, 3);
  } finally {
    stop(a);
    stop(b);
  }
});

function runCli(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OPENAI_API_KEY: '' } });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (status) => resolve({ status, stderr }));
  });
}

test('credentials in --llm-endpoint go only into the Authorization header: never printed, in the manifest or in the cache', async () => {
  const a = await startServer();
  try {
    const dir = pages(['good', 'inventor']);
    const out = join(dir, 'out.jsonl');
    const secret = 's3cr%40t-pw';
    const endpoint = `http://alice:${secret}@127.0.0.1:${a.port}/v1`;
    const r = await runCli(['rewrite-web', dir, '--out', out, '--llm-endpoint', endpoint, '--llm-model', 'm1', '--cache-dir', join(dir, 'cache'), '--min-text-chars', '50', '--llm-retries', '0']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(a.requests.map((q) => q.authorization), Array(2).fill(`Basic ${Buffer.from('alice:s3cr@t-pw').toString('base64')}`));
    const stored = [r.stderr, readFileSync(out, 'utf8'), readFileSync(`${out}.manifest.json`, 'utf8')];
    const cacheDir = join(dir, 'cache');
    for (const sub of readdirSync(cacheDir)) for (const f of readdirSync(join(cacheDir, sub))) stored.push(readFileSync(join(cacheDir, sub, f), 'utf8'));
    assert.ok(stored.length >= 4, 'an answer was cached');
    for (const text of stored) {
      assert.ok(!text.includes('s3cr') && !text.includes('alice'), `no credential in: ${text.slice(0, 300)}`);
    }
    assert.match(readFileSync(`${out}.manifest.json`, 'utf8'), /"llmEndpoint": "http:\/\/\*\*\*@127\.0\.0\.1/);
  } finally {
    stop(a);
  }
});
