import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureDir, runWeb } from './helpers.js';

test('a page whose html holds a lone surrogate is dropped alone (invalid_unicode); the others are rewritten', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-web-'));
  const real = readFileSync(join(fixtureDir, 'python-docs', 'json.html'), 'utf8');
  const other = readFileSync(join(fixtureDir, 'python-docs', 'datastructures.html'), 'utf8');
  const input = join(dir, 'pages.jsonl');
  const bad = real.replace('</p>', '\ud800</p>');
  writeFileSync(input, [{ url: 'https://a.example/json', html: real }, { url: 'https://b.example/bad', html: bad }, { url: 'https://c.example/ds', html: other }].map((r) => JSON.stringify(r)).join('\n') + '\n');
  const { docs, ctx } = await runWeb([input]);
  assert.deepEqual(docs.map((d) => d.meta.url), ['https://a.example/json', 'https://c.example/ds']);
  const ledger = ctx.ledger.toJSON();
  assert.deepEqual(ledger.dropped, { invalid_unicode: 1 });
  assert.match(ledger.examples.invalid_unicode![0]!, /https:\/\/b\.example\/bad/);
  assert.ok(ctx.ledger.balanced());
});
