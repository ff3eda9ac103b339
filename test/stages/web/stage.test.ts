import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { docToJson } from '../../../src/doc/document.js';
import { stableId } from '../../../src/core/random.js';
import { devSetDir, runWeb } from './helpers.js';

const pages = ['mozilla-1', 'wikipedia', 'medium-1', 'ars-1', 'nytimes-1'];

test('real pages of the development set: balanced ledger, seeded ids, byte-identical reruns, boilerplate gone', { skip: devSetDir ? false : 'the readability test pages (shared/data) are not present' }, async () => {
  const inputs = pages.map((p) => join(devSetDir!, p, 'source.html'));
  const a = await runWeb(inputs, {}, 7);
  const b = await runWeb(inputs, {}, 7);
  assert.ok(a.ctx.ledger.balanced());
  assert.equal(a.docs.length, pages.length);
  assert.deepEqual(a.docs.map(docToJson), b.docs.map(docToJson));
  for (const d of a.docs) {
    assert.equal(d.id, stableId(7, 'web', d.source));
    assert.equal(d.kind, 'web');
    assert.equal(d.meta.method, 'rules');
    assert.equal(d.special_spans, undefined);
    assert.ok(!/<script|<\/?div|cookie policy/i.test(d.text), d.source);
  }
  const other = await runWeb(inputs, {}, 8);
  assert.notEqual(other.docs[0]!.id, a.docs[0]!.id);
});
