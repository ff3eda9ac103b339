import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMinified } from '../../../src/stages/repos/filters.js';
import { repoRoot } from '../../helpers/paths.js';

/** The rule as stated: every line counted, the longest one measured. */
function minifiedByEveryLine(text: string): boolean {
  if (text.length < 2048) return false;
  const lines = text.split('\n');
  return text.length / lines.length > 200 || lines.some((l) => l.length > 20_000);
}

/** The .js, .mjs and .cjs files of a few installed packages, minified bundles among them. */
function packageFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(js|mjs|cjs|map|json)$/.test(e.name) && statSync(p).size < 4 << 20) out.push(p);
    }
  };
  for (const pkg of ['yaml', 'hyparquet', 'commander', 'typescript/lib', 'apache-arrow']) walk(join(repoRoot, 'node_modules', pkg));
  return out;
}

test('isMinified, which reads a file only in part, answers as counting every line: installed packages and the edges of both limits', () => {
  const texts = packageFiles().map((f) => readFileSync(f, 'utf8'));
  const line = (n: number) => 'x'.repeat(n);
  const edges: string[] = [];
  for (const n of [19_999, 20_000, 20_001]) {
    edges.push(line(n), `${line(3000)}\n${line(n)}`, `${'a\n'.repeat(200)}${line(n)}`, `${line(n)}\n${'a\n'.repeat(300)}`, `${'abc\n'.repeat(10_000)}${line(n)}\n${'abc\n'.repeat(10_000)}`);
  }
  // Averages of just over, exactly and just under 200 characters a line.
  for (const width of [199, 200, 201]) edges.push(`${line(width)}\n`.repeat(20), `${line(width)}\n`.repeat(20).slice(0, -1), `${line(width + 1)}\n`.repeat(40) + line(width - 40));
  edges.push(line(2047), `${'\n'.repeat(3000)}${line(25_000)}`, '\n'.repeat(5000));
  let minified = 0;
  for (const text of [...texts, ...edges]) {
    const expected = minifiedByEveryLine(text);
    assert.equal(isMinified(text), expected, `${text.length} characters, ${text.split('\n').length} lines`);
    if (expected) minified++;
  }
  assert.ok(texts.length >= 500 && minified >= 10, `${texts.length} files, ${minified} minified`);
});
