import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupedNumber } from '../../src/core/format.js';
import { Rng } from '../../src/core/random.js';

test("groupedNumber writes what toLocaleString('en-US') writes: whole numbers of every length and sign, and the numbers it leaves to ICU", () => {
  const rng = new Rng(3, 'format');
  const xs = [0, -0, 1, -1, 999, 1000, -1000, 999_999, 1_000_000, 262_144, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 60, 0.5, 1234.5678, -0.25, Number.NaN, Number.POSITIVE_INFINITY];
  for (let i = 0; i < 20000; i++) xs.push(rng.int(0, 2 ** 31) * (i % 3 === 0 ? -1 : 1) * 10 ** rng.int(0, 6));
  for (const x of xs) assert.equal(groupedNumber(x), x.toLocaleString('en-US'), String(x));
});
