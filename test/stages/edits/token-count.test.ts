import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, sharedDir } from '../../helpers/paths.js';
import { slow } from '../../helpers/tiers.js';
import { countChunks, countWithin } from '../../../src/stages/edits/token-count.js';
import { loadTokenizer } from '../../../src/tokenize/tokenizer.js';

const bundle = join(sharedDir, 'data', 'histories', 'go-readability.bundle');

/** Real long texts: go-readability's large HTML fixtures and Go source (the shared bundle), and midpack's own code. */
function realTexts(dir: string): { name: string; text: string }[] {
  const texts = ['src/stages/edits/context.ts', 'src/tokenize/fast-bpe.ts', 'docs/fim.md'].map((p) => ({ name: p, text: readFileSync(join(repoRoot, p), 'utf8') }));
  if (!existsSync(bundle)) return texts;
  execFileSync('git', ['clone', '-q', '--no-checkout', bundle, join(dir, 'r')]);
  const git = (...args: string[]) => execFileSync('git', ['-C', join(dir, 'r'), ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const files = git('ls-tree', '-r', '-l', 'HEAD').trim().split('\n').map((l) => /^\S+ blob \S+ +(\d+)\t(.*)$/.exec(l)!);
  // The largest HTML and Go files under 256 kB: many chunks each.
  const pick = (ext: string, n: number) => files.filter((m) => m[2]!.endsWith(ext) && Number(m[1]) < 256 * 1024).sort((a, b) => Number(b[1]) - Number(a[1])).slice(0, n);
  return [...texts, ...[...pick('.html', 6), ...pick('.go', 2)].map((m) => ({ name: m[2]!, text: git('show', `HEAD:${m[2]}`) }))];
}

test('a long text counted in chunks has the Qwen3 tokenizer count of the whole, and counting stops past the limit', slow, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-token-count-'));
  try {
    const tokenizer = await loadTokenizer('qwen3', 'auto');
    const count = (t: string) => tokenizer.encodePlain(t).length;
    const texts = realTexts(dir);
    assert.ok(texts.length >= 3);
    let chunked = 0;
    for (const { name, text } of texts) {
      const chunks = countChunks(text);
      assert.equal(chunks.map(([s, e]) => text.slice(s, e)).join(''), text, `${name}: the chunks cover the text`);
      if (chunks.length > 1) chunked++;
      const whole = count(text);
      assert.equal(chunks.reduce((a, [s, e]) => a + count(text.slice(s, e)), 0), whole, `${name}: ${chunks.length} chunks`);
      assert.equal(countWithin(count, text, whole), whole, `${name}: at the limit, the exact count`);
      let seen = 0;
      const over = countWithin((t) => ((seen += t.length), count(t)), text, 1000);
      assert.ok(over > 1000, `${name}: past the limit, a count over it`);
      if (chunks.length > 2) assert.ok(seen < text.length, `${name}: counting stopped before the end`);
    }
    if (existsSync(bundle)) assert.ok(chunked >= 6, `${chunked} texts were counted in several chunks`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
