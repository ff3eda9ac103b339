import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLASSES, referenceClass } from '../../scripts/gen-unicode-tables.js';
import { REFERENCE_CLASSES } from '../../src/tokenize/unicode-classes-table.js';
import { referenceRegex } from '../../src/tokenize/unicode-classes.js';
import { slow } from '../helpers/tiers.js';

test('each Unicode class of the table equals the Rust reference regex engine\'s on every code point', slow, () => {
  for (const [name, regex] of Object.entries(CLASSES)) assert.deepEqual(REFERENCE_CLASSES[name], referenceClass(regex).flat(), `class ${name}: run scripts/gen-unicode-tables.ts`);
});

test('referenceRegex writes the classes out: a mark newer than the reference is no \\p{M} to it', () => {
  const v8 = /[\p{L}\p{M}]+/gu;
  const { regex, reason } = referenceRegex(v8);
  assert.equal(reason, undefined);
  assert.deepEqual('ab\u{10efa}cd'.match(v8), ['ab\u{10efa}cd']);
  assert.deepEqual('ab\u{10efa}cd'.match(regex), ['ab', 'cd']);
  assert.deepEqual(' x\u00a0\n'.match(referenceRegex(/\s+(?!\S)|\P{White_Space}/gu).regex), ['x', '\u00a0\n']);
  assert.match(referenceRegex(/[^\S]/gu).reason ?? '', /inside a bracket/);
});
