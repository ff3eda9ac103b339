import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { cachedVerdict, FAST_CHECK_VERSION, verdictCacheDir } from '../../src/tokenize/verdict-cache.js';

test('the fast-backend verdict is checked once per tokenizer hash, then read back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-verdict-'));
  let runs = 0;
  const exact = () => (runs++, undefined);
  const notExact = () => (runs++, 'model WordPiece (only BPE)');
  assert.equal(cachedVerdict('aa', exact, dir), undefined);
  assert.equal(cachedVerdict('aa', exact, dir), undefined);
  assert.equal(cachedVerdict('bb', notExact, dir), 'model WordPiece (only BPE)');
  assert.equal(cachedVerdict('bb', notExact, dir), 'model WordPiece (only BPE)');
  assert.equal(runs, 2);
  assert.deepEqual(readdirSync(dir).sort(), [`fast-check-v${FAST_CHECK_VERSION}-aa.json`, `fast-check-v${FAST_CHECK_VERSION}-bb.json`]);
});

test('a verdict file that is damaged or names another hash is not trusted: the check runs again', () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-verdict-'));
  const file = join(dir, `fast-check-v${FAST_CHECK_VERSION}-cc.json`);
  let runs = 0;
  const check = () => (runs++, 'normalizer NFD (only NFC or none)');
  writeFileSync(file, '{"sha256": "cc", "ver');
  assert.equal(cachedVerdict('cc', check, dir), 'normalizer NFD (only NFC or none)');
  writeFileSync(file, JSON.stringify({ sha256: 'dd', version: FAST_CHECK_VERSION, reason: null }));
  assert.equal(cachedVerdict('cc', check, dir), 'normalizer NFD (only NFC or none)');
  assert.equal(runs, 2);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).sha256, 'cc');
});

test('the cache folder follows MIDPACK_CACHE_DIR, then XDG_CACHE_HOME; off turns it off', () => {
  assert.equal(verdictCacheDir({ MIDPACK_CACHE_DIR: '/c' }), join('/c', 'tokenizer'));
  assert.equal(verdictCacheDir({ XDG_CACHE_HOME: '/x' }), join('/x', 'midpack', 'tokenizer'));
  assert.equal(verdictCacheDir({ MIDPACK_CACHE_DIR: 'off' }), null);
  let runs = 0;
  cachedVerdict('ee', () => (runs++, undefined), null);
  cachedVerdict('ee', () => (runs++, undefined), null);
  assert.equal(runs, 2);
});
