import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { midpack } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

test('inspect --bin N: --json gives each unit token-exact, --max-tokens and --docs bound what is printed', slow, () => {
  const out = join(mkdtempSync(join(tmpdir(), 'midpack-inspect-')), 'out');
  const input = join(repoRoot, 'data-samples/docs/packages.jsonl');
  assert.equal(midpack(['pack', input, '--out', out, '--seq-len', '32768', '--workers', '1', '--quiet']).status, 0);
  const texts = new Map(readFileSync(input, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).map((d) => [d.id as string, d.text as string]));

  const full = JSON.parse(midpack(['inspect', out, '--bin', '0', '--json', '--max-tokens', '0']).stdout);
  assert.ok(full.units >= 2);
  assert.equal(full.shown.length, full.units);
  assert.equal(full.shown.reduce((s: number, u: { tokens: number }) => s + u.tokens, 0), full.tokens);
  assert.equal(full.tokens + full.padding_tokens, 32768);
  for (const u of full.shown.filter((x: { offset: number }) => x.offset === 0)) {
    // A whole unit decodes to its document's text and the end-of-text token (nothing is masked here).
    assert.equal(u.text, `${texts.get(u.id)}<|endoftext|>`, `unit ${u.unit} (${u.id})`);
  }

  const limited = JSON.parse(midpack(['inspect', out, '--bin', '0', '--json', '--max-tokens', '5', '--docs', '2']).stdout);
  assert.deepEqual(limited.shown.map((u: { unit: number }) => u.unit), [2]);
  assert.equal(limited.shown[0].shown_tokens, 5);
  assert.ok(full.shown[1].text.startsWith(limited.shown[0].text));

  const text = midpack(['inspect', out, '--bin', '0', '--max-tokens', '20']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^… \d+ more tokens \(--max-tokens 0 shows all\)$/m);
  assert.ok(text.stdout.length < 20 * 40 * full.units + 2000, 'the output is bounded by --max-tokens');
  assert.match(midpack(['inspect', out, '--bin', '0', '--docs', 'x']).stderr, /--docs: units are numbers from 1 or ranges like 3-5, got "x"/);
});
