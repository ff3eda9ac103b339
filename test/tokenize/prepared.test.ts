import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { prepareTokenizer, tokenizerCacheDir, tokenizerPath, PREPARED_VERSION } from '../../src/tokenize/prepared.js';
import { fastTables } from '../../src/tokenize/fast-bpe.js';
import { MidTokenizer } from '../../src/tokenize/tokenizer.js';
import { repoRoot } from '../helpers/paths.js';
import { slow } from '../helpers/tiers.js';

const qwenBytes = () => readFileSync(tokenizerPath('qwen3'));
const qwenHash = createHash('sha256').update(qwenBytes()).digest('hex');
const entryFile = (dir: string) => join(dir, `prepared-v${PREPARED_VERSION}-${qwenHash}.bin`);

/** Rewrites an entry's header with `edit`, keeping its tables as they are. */
function editHeader(file: string, edit: (h: Record<string, unknown>) => void): void {
  const b = readFileSync(file);
  const n = b.readUInt32LE(0);
  const header = JSON.parse(b.toString('utf8', 4, 4 + n));
  edit(header);
  const head = Buffer.from(JSON.stringify(header));
  const size = Buffer.alloc(4);
  size.writeUInt32LE(head.length);
  const tablesAt = 4 + n + ((4 - ((4 + n) % 4)) % 4);
  writeFileSync(file, Buffer.concat([size, head, Buffer.alloc((4 - ((4 + head.length) % 4)) % 4), b.subarray(tablesAt)]));
}

test('the Qwen3 tokenizer is prepared once: the entry holds the verdict and the tables, and is what later jobs read', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-prepared-'));
  const first = prepareTokenizer('qwen3', { check: true, tables: true, dir });
  assert.equal(first.hash, qwenHash, 'the hash is the sha256 of the tokenizer.json file');
  assert.equal(first.fastReason, null);
  assert.deepEqual(readdirSync(dir), [`prepared-v${PREPARED_VERSION}-${qwenHash}.bin`]);
  const again = prepareTokenizer('qwen3', { check: true, tables: true, dir });
  const fromJson = fastTables(first.json());
  for (const k of ['byteLens', 'byteIds', 'pairs'] as const) assert.deepEqual(again.tables![k], fromJson[k], k);
  assert.equal(again.tables!.ranks, fromJson.ranks);
  assert.deepEqual(again.parts.added_tokens, first.json().added_tokens);
  assert.equal((again.parts.model as Record<string, unknown>).vocab, undefined, 'the vocabulary lives in the tables, not the header');
  // Tokenizers built from the entry and from the JSON give the same ids on real code and prose.
  const text = readFileSync(join(repoRoot, 'src', 'tokenize', 'fast-bpe.ts'), 'utf8') + readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const cached = new MidTokenizer(again, 'fast');
  const built = new MidTokenizer({ ...first, tables: fromJson }, 'fast');
  assert.deepEqual(cached.encodePlain(text), built.encodePlain(text));
  assert.ok(cached.encodePlain(text).length > 5000);
});

test('a cached verdict is read back; a damaged entry, or one naming another file, is prepared again', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-prepared-'));
  prepareTokenizer('qwen3', { check: true, tables: false, dir });
  editHeader(entryFile(dir), (h) => (h.fast_reason = 'sentinel'));
  assert.equal(prepareTokenizer('qwen3', { check: true, tables: false, dir }).fastReason, 'sentinel');
  // One flipped byte in the tables: the checksum refuses the entry, which is written again.
  const b = readFileSync(entryFile(dir));
  b[b.length - 100] ^= 1;
  writeFileSync(entryFile(dir), b);
  assert.equal(prepareTokenizer('qwen3', { check: true, tables: true, dir }).fastReason, null);
  assert.notDeepEqual(readFileSync(entryFile(dir)), b);
  editHeader(entryFile(dir), (h) => ((h.fast_reason = 'sentinel'), (h.sha256 = 'another')));
  assert.equal(prepareTokenizer('qwen3', { check: true, tables: false, dir }).fastReason, null);
});

test('a tokenizer the fast backend cannot reproduce is cached with its reason and no tables', () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-prepared-'));
  const path = join(dir, 'tokenizer.json');
  const json = {
    added_tokens: [{ id: 0, content: '<|endoftext|>', special: true }],
    normalizer: null,
    pre_tokenizer: { type: 'Whitespace' },
    model: { type: 'WordLevel', unk_token: '<|endoftext|>', vocab: { '<|endoftext|>': 0, hello: 1 } },
  };
  writeFileSync(path, JSON.stringify(json));
  const cacheDir = join(dir, 'cache');
  const p = prepareTokenizer(path, { check: true, tables: false, dir: cacheDir });
  assert.match(p.fastReason!, /pre-tokenizer Whitespace/);
  assert.equal(p.tables, undefined);
  assert.deepEqual(p.json(), json);
  assert.equal(readdirSync(cacheDir).length, 1);
  assert.equal(prepareTokenizer(path, { check: true, tables: false, dir: cacheDir }).fastReason, p.fastReason);
});

test('a worker told the backend neither checks nor writes; the cache folder follows MIDPACK_CACHE_DIR, then XDG_CACHE_HOME; off turns it off', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-prepared-'));
  const worker = prepareTokenizer('qwen3', { check: false, tables: true, dir });
  assert.equal(worker.fastReason, undefined);
  assert.ok(worker.tables && worker.tables.pairs.length > 0);
  assert.deepEqual(readdirSync(dir), []);
  assert.equal(tokenizerCacheDir({ MIDPACK_CACHE_DIR: '/c' }), join('/c', 'tokenizer'));
  assert.equal(tokenizerCacheDir({ XDG_CACHE_HOME: '/x' }), join('/x', 'midpack', 'tokenizer'));
  assert.equal(tokenizerCacheDir({ MIDPACK_CACHE_DIR: 'off' }), null);
  assert.equal(prepareTokenizer('qwen3', { check: true, tables: false, dir: null }).fastReason, null);
});
