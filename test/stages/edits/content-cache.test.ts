import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContentCache, ENTRY_BYTES } from '../../../src/stages/edits/content-cache.js';

test('the content cache keeps the most recently used values within its budget of bytes', () => {
  const entry = (key: string, bytes: number) => bytes + ENTRY_BYTES + 2 * key.length;
  const cache = new ContentCache(entry('a', 100) + entry('b', 100) + entry('c', 50));
  cache.set('a', 'A', 100);
  cache.set('b', null, 100);
  assert.equal(cache.get('b'), null, 'a null value is kept (a blob that is not text)');
  assert.equal(cache.get('a'), 'A');
  cache.set('c', 3, 100); // over the budget: the least recently used (b) goes
  assert.equal(cache.get('b'), undefined);
  assert.equal(cache.get('a'), 'A');
  assert.equal(cache.get('c'), 3);
  assert.ok(cache.bytes <= cache.budgetBytes);
  cache.set('c', 4, 10);
  assert.equal(cache.bytes, entry('a', 100) + entry('c', 10), 'a value set again is counted once');
  cache.set('huge', 'x', 10 * cache.budgetBytes);
  assert.equal(cache.get('huge'), undefined, 'a value over the whole budget is not kept');
  assert.equal(cache.get('a'), 'A', 'and evicts nothing');
});
