import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatFile } from '../../../src/stages/edits/git.js';
import { readTexts } from '../../../src/stages/edits/blob-texts.js';
import { ContentCache } from '../../../src/stages/edits/content-cache.js';
import { repoRoot } from '../../helpers/paths.js';

test("readTexts with a cache: a blob's text read once is the same text again without git, and too large under a lower limit", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-blob-texts-'));
  const repo = join(dir, 'r');
  execFileSync('git', ['clone', '-q', '--no-checkout', join(repoRoot, 'data-samples', 'history', 'p-limit.bundle'), repo]);
  const sha = (path: string) => execFileSync('git', ['-C', repo, 'rev-parse', `HEAD:${path}`], { encoding: 'utf8' }).trim();
  const [readme, index] = [sha('readme.md'), sha('index.js')];
  const cat = new CatFile(repo);
  try {
    const cache = new ContentCache(1 << 20);
    const first = await readTexts(cat, [readme, index, readme], 256 * 1024, cache);
    const plain = await readTexts(cat, [readme, index], 256 * 1024);
    assert.deepEqual([...first.keys()], [readme, index], 'each blob once, in the order asked');
    assert.deepEqual(first, plain, 'the same texts as without a cache');
    const want = execFileSync('git', ['-C', repo, 'cat-file', 'blob', readme], { encoding: 'utf8' });
    assert.deepEqual(first.get(readme), { text: want, asBytes: true });
    cat.close(); // from here on git answers nothing: the texts come from the cache
    const again = await readTexts(cat, [index, readme], 256 * 1024, cache);
    assert.deepEqual(again.get(readme), first.get(readme));
    assert.deepEqual(again.get(index), first.get(index));
    const size = Buffer.byteLength(want);
    assert.deepEqual((await readTexts(cat, [readme], size, cache)).get(readme), { text: want, asBytes: true }, 'a limit of its size exactly: still its text');
    await assert.rejects(readTexts(cat, [readme], size - 1, cache), 'under its size the cached text is not given: git is asked (and is gone)');
  } finally {
    cat.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
