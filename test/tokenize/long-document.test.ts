import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { midpack } from '../helpers/run-cli.js';
import { repoRoot } from '../helpers/paths.js';
import { slow } from '../helpers/tiers.js';

/** One plain-text document of about 40 MB made of real files (the size that ended a worker at its heap limit). */
function fortyMegabytes(): string {
  const dir = join(repoRoot, 'node_modules/typescript/lib');
  const parts: string[] = [];
  let size = 0;
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.d.ts') && !name.endsWith('.js')) continue;
    const text = readFileSync(join(dir, name), 'utf8');
    parts.push(text);
    size += text.length;
    if (size >= 40e6) break;
  }
  let text = parts.join('\n');
  while (text.length < 40e6) text += text.slice(0, 40e6 - text.length);
  return text;
}

test('pack: one 40 MB plain-text document is packed by the native backend (auto); the hf backend drops it by reason, no crash', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-long-'));
  const input = join(dir, 'long.jsonl');
  const text = fortyMegabytes();
  writeFileSync(input, JSON.stringify({ id: 'long', kind: 'text', source: 'long.txt', text, meta: {} }) + '\n' + JSON.stringify({ id: 'short', kind: 'text', source: 'short.txt', text: 'print("hi")\n', meta: {} }) + '\n');
  const fast = midpack(['pack', input, '--out', join(dir, 'fast'), '--workers', '1', '--no-progress']);
  assert.equal(fast.status, 0, fast.stderr);
  const m = JSON.parse(readFileSync(join(dir, 'fast', 'manifest.json'), 'utf8'));
  assert.equal(m.balanced, true);
  assert.equal(m.counts.documents, 2);
  assert.equal(m.config.tokenizer_backend, 'native');
  assert.ok(m.counts.tokens > 5_000_000, `${m.counts.tokens} tokens for 40 MB`);

  const hf = midpack(['pack', input, '--out', join(dir, 'hf'), '--workers', '1', '--no-progress', '--tokenizer-backend', 'hf']);
  assert.equal(hf.status, 0, hf.stderr);
  assert.doesNotMatch(hf.stderr, /memory limit|at .*\.js:\d+/);
  const h = JSON.parse(readFileSync(join(dir, 'hf', 'manifest.json'), 'utf8'));
  assert.equal(h.balanced, true);
  assert.equal(h.counts.documents, 1);
  assert.equal(h.config.tokenizer_backend, 'hf');
  assert.match(JSON.stringify(h.ledger), /document_too_long/);
});
