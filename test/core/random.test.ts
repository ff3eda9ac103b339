import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng, stableId } from '../../src/core/random.js';
import { Ledger } from '../../src/core/ledger.js';
import { TextBuilder } from '../../src/doc/text-builder.js';

test('Rng depends only on its identity', () => {
  const a = new Rng(7, 'repo-a');
  const b = new Rng(7, 'repo-a');
  const c = new Rng(7, 'repo-b');
  const xs = Array.from({ length: 8 }, () => a.nextU32());
  assert.deepEqual(Array.from({ length: 8 }, () => b.nextU32()), xs);
  assert.notDeepEqual(Array.from({ length: 8 }, () => c.nextU32()), xs);
  assert.equal(stableId(1, 'x'), stableId(1, 'x'));
  assert.notEqual(stableId(1, 'x'), stableId(2, 'x'));
});

test('Rng.weighted follows the weights', () => {
  const r = new Rng(1);
  const n = { a: 0, b: 0, c: 0 };
  for (let i = 0; i < 20000; i++) n[r.weighted({ a: 0.2, b: 0.8, c: 0 })]++;
  assert.equal(n.c, 0);
  assert.ok(Math.abs(n.a / 20000 - 0.2) < 0.02, `a share ${n.a / 20000}`);
});

test('Ledger balances and merges', () => {
  const l = new Ledger();
  l.input(5);
  l.output(3);
  l.drop('bad', 'f:1: bad');
  assert.equal(l.balanced(), false);
  l.drop('bad', 'f:2: bad');
  assert.equal(l.balanced(), true);
  const m = new Ledger();
  m.merge(l.toJSON());
  m.merge(l.toJSON());
  assert.deepEqual(m.toJSON().dropped, { bad: 4 });
  assert.equal(m.balanced(), true);
});

test('TextBuilder records special and masked spans', () => {
  const b = new TextBuilder().special('<|repo_name|>').text('r\n').special('<|file_sep|>', true).text('a.py\n', true).text('x');
  const out = b.build();
  assert.equal(out.text, '<|repo_name|>r\n<|file_sep|>a.py\nx');
  assert.deepEqual(out.special_spans, [[0, 13], [15, 27]]);
  assert.deepEqual(out.loss_mask_spans, [[15, 32]]);
  for (const [a, z] of out.special_spans) assert.match(out.text.slice(a, z), /^<\|[a-z_]+\|>$/);
});
