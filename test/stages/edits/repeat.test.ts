import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { collect, defaultContext } from '../../../src/core/stage.js';
import { editsSource } from '../../../src/stages/edits/source.js';
import { resolveEditsOptions } from '../../../src/stages/edits/options.js';
import { repoRoot } from '../../helpers/paths.js';
import { slow } from '../../helpers/tiers.js';

const bundle = join(repoRoot, 'data-samples', 'history', 'p-limit.bundle');

/** The edits of p-limit's real history, read as repeat `repeat` of a mixture (0: the first use). */
async function read(repeat: number) {
  const ctx = defaultContext({ seed: 7, log: () => {}, ...(repeat ? { repeat } : {}) });
  return collect(editsSource([bundle], resolveEditsOptions({ formats: 'sr=1,diff=1,sr_diff=1' }), ctx));
}

test('edits read again for a mixture repeat: the same units under their first ids, formats drawn afresh', slow, async () => {
  const first = await read(0);
  assert.ok(first.length >= 10, `${first.length} samples`);
  const byId = new Map(first.map((d) => [d.id, d]));
  let redrawn = 0;
  for (const repeat of [1, 2]) {
    const again = await read(repeat);
    assert.deepEqual(again.map((d) => d.id), first.map((d) => d.id), `repeat ${repeat} keeps the first use's ids`);
    for (const d of again) {
      const f = byId.get(d.id)!;
      assert.equal(d.meta.source_id, f.meta.source_id);
      if (d.meta.format !== f.meta.format) {
        redrawn++;
        assert.notEqual(d.text, f.text);
      } else assert.equal(d.text, f.text, `${d.id}: the same format renders the same sample`);
    }
  }
  assert.ok(redrawn > first.length / 4, `${redrawn} of ${2 * first.length} repeats in another format`);
  // The first use is what it was before repeats existed: reading it again gives the same bytes.
  assert.deepEqual(await read(0), first);
});
