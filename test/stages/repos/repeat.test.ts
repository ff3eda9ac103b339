import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { collect, defaultContext } from '../../../src/core/stage.js';
import { reposSource } from '../../../src/stages/sources.js';
import { resolveReposOptions } from '../../../src/stages/repos/options.js';
import { repoRoot } from '../../helpers/paths.js';
import { slow } from '../../helpers/tiers.js';

/** data-samples' eight real repositories, as repeat `repeat` of a mixture (0: the first use). */
async function read(repeat: number, raw: Record<string, unknown> = {}) {
  const ctx = defaultContext({ seed: 11, log: () => {}, ...(repeat ? { repeat } : {}) });
  return collect(reposSource([join(repoRoot, 'data-samples', 'repos')], resolveReposOptions({ treeRate: 0.5, ...raw }), ctx));
}


test('repositories read again for a mixture repeat: the same ids and files, ordering and tree drawn afresh', async () => {
  const first = await read(0);
  assert.ok(first.length >= 8, `${first.length} documents`);
  const again = await read(1);
  assert.deepEqual(again.map((d) => d.id), first.map((d) => d.id));
  let changed = 0;
  again.forEach((d, i) => {
    const f = first[i]!;
    assert.equal(d.meta.files, f.meta.files, `${d.id}: the same files`);
    if (d.text !== f.text) changed++;
  });
  assert.ok(changed >= 2, `${changed} of ${first.length} repositories laid out afresh`);
  assert.deepEqual(await read(0), first, 'the first use is unchanged');
});

test('a repeat whose new layout would cut a repository into another number of parts keeps the first layout', slow, async () => {
  const raw = { maxDocChars: 40_000 };
  const first = await read(0, raw);
  assert.ok(first.some((d) => d.meta.parts !== undefined), 'some repositories are cut into parts');
  for (const repeat of [1, 2, 3]) assert.deepEqual((await read(repeat, raw)).map((d) => d.id), first.map((d) => d.id), `repeat ${repeat}`);
});
