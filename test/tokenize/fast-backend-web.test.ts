import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTokenizer } from '../../src/tokenize/tokenizer.js';
import { identitySweep, referenceTokenizer, samplePages, webSetPages } from '../helpers/web-pages.js';
import { slow } from '../helpers/tiers.js';

/**
 * A seeded sample of the shared web development sets (many languages and scripts, as real
 * pages carry them): the same sample every run, drawn from both sets. Every page is swept by
 * `npm run bench:tokenize`, which fails if one differs; this test keeps the loop fast.
 */
const SAMPLE = { seed: 29, perSet: [100, 10] };

test('fast backend: identical ids to @huggingface/tokenizers on a seeded sample of pages of both shared web development sets', slow, async (t) => {
  const sets = webSetPages();
  if (!sets) return t.skip('the shared web sets are not on this machine');
  assert.ok(sets.flat().length > 1100, `only ${sets.flat().length} pages in the sets`);
  const paths = sets.flatMap((pages, i) => samplePages(pages, SAMPLE.perSet[i]!, SAMPLE.seed + i));
  const fast = await loadTokenizer('qwen3', 'fast');
  const r = identitySweep(paths, referenceTokenizer(), fast);
  assert.deepEqual(r.mismatches, []);
  assert.ok(r.pages > 100, `only ${r.pages} pages of the sample are well-formed text`);
  t.diagnostic(`${r.pages} pages (seed ${SAMPLE.seed}), ${r.chars} characters`);
});
