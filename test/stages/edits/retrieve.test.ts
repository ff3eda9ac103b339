import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, sharedDir } from '../../helpers/paths.js';
import { rankBm25 } from '../../../src/stages/edits/retrieve.js';
import { bm25Terms, STOPWORDS, termCounts } from '../../../src/stages/edits/bm25-terms.js';

/**
 * midpack's BM25 against bm25s (Lucene BM25, k1 = 0.9, b = 0.4) on the same terms: the files of
 * a real repository (data-samples/history/midpack-web.bundle) and its commit messages as queries.
 * Expected scores from scripts/dump-bm25-corpus.ts + scripts/bm25-reference.py.
 */
const expected = JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'bm25', 'expected.json'), 'utf8')) as {
  queries: { commit: string; top: { path: string; score: number }[] }[];
};

test('BM25 ranks and scores the files of a real repository as bm25s does, for its commit messages', () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-bm25-'));
  try {
    const git = (...args: string[]) => execFileSync('git', ['-C', join(dir, 'r'), ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
    execFileSync('git', ['clone', '-q', join(repoRoot, 'data-samples', 'history', 'midpack-web.bundle'), join(dir, 'r')]);
    const docs = git('ls-tree', '-r', '--name-only', 'HEAD')
      .trim()
      .split('\n')
      .map((path) => ({ item: path, terms: termCounts(git('show', `HEAD:${path}`)), pathTerms: termCounts(path) }));
    assert.equal(expected.queries.length, 8);
    for (const q of expected.queries) {
      const got = rankBm25(git('log', '-1', '--format=%B', q.commit), docs, 8);
      assert.deepEqual(got.map((g) => g.item), q.top.map((t) => t.path), q.commit);
      got.forEach((g, i) => assert.ok(Math.abs(g.score - q.top[i]!.score) <= 1e-4 * q.top[i]!.score, `${q.commit} ${g.item}: ${g.score} vs ${q.top[i]!.score}`));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('BM25 terms split identifiers and drop stopwords', () => {
  assert.deepEqual(bm25Terms('The parseGitDiff of HTTPServer_config.yaml is wrong'), ['parse', 'git', 'diff', 'http', 'server', 'config', 'yaml', 'wrong']);
  assert.deepEqual(rankBm25('nothing shared', [{ item: 'x', terms: termCounts('alpha beta') }], 3), []);
});

/** The terms as their definition states them: Unicode word runs, split at camelCase, lowercased, 2+ characters, stopwords out. */
function referenceTerms(text: string, stopwords: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    for (const part of m[0].split(/(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u)) {
      const t = part.toLowerCase();
      if (t.length >= 2 && !stopwords.has(t)) out.push(t);
    }
  }
  return out;
}

test('bm25Terms and termCounts (a scan of character codes) give the terms of their regular-expression definition on real multilingual pages and code', () => {
  const pages = join(sharedDir, 'data', 'web-eval-trafilatura', 'pages');
  const texts = readdirSync(pages)
    .sort()
    .filter((_, i) => i % 10 === 0)
    .map((f) => gunzipSync(readFileSync(join(pages, f))).toString('utf8'));
  texts.push(readFileSync(join(repoRoot, 'src', 'stages', 'edits', 'bm25-terms.ts'), 'utf8'), 'ÀÉÎõü ǅemal ΣΑΣ straße 𝐀𝐁c 𝒜bc 𐐀𐐨 x²³ ٣٤ getHTTPResponseCode XMLHttpRequest');
  texts.push('fooÜber ÜberFoo ABCdef a1B2c3 The THE tHe \ud800lone x\ud83d\ude00y İstanbul \u212Aelvin');
  let terms = 0;
  for (const text of texts) {
    const want = referenceTerms(text, STOPWORDS);
    assert.deepEqual(bm25Terms(text), want);
    // termCounts counts as it scans: the same counts, in the order the terms first occur.
    const counts = new Map<string, number>();
    for (const t of want) counts.set(t, (counts.get(t) ?? 0) + 1);
    const got = termCounts(text);
    assert.deepEqual([...got.counts], [...counts]);
    assert.equal(got.length, want.length);
    terms += want.length;
  }
  assert.ok(texts.length > 100 && terms > 100_000, `${texts.length} texts, ${terms} terms`);
});
