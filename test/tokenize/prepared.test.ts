import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { prepareTokenizer, tokenizerCacheDir, tokenizerPath, PREPARED_VERSION } from '../../src/tokenize/prepared.js';
import { fastTables } from '../../src/tokenize/fast-bpe.js';
import { unmergedVocabulary } from '../../src/tokenize/native-bpe.js';
import { MidTokenizer } from '../../src/tokenize/tokenizer.js';
import { repoRoot } from '../helpers/paths.js';
import { nativeBinding } from '../../src/pack/packer.js';
import xxhash from 'xxhash-wasm';
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
  // The entry, and the file's sha256 remembered (the shipped file was written long ago).
  assert.deepEqual(readdirSync(dir).filter((f) => !f.startsWith('file-sha256-')), [`prepared-v${PREPARED_VERSION}-${qwenHash}.bin`]);
  const again = prepareTokenizer('qwen3', { check: true, tables: true, dir });
  const fromJson = fastTables(first.json());
  for (const k of ['byteLens', 'byteIds', 'pairs'] as const) assert.deepEqual(again.tables![k], fromJson[k], k);
  // The native core's check of the vocabulary, made once here and read back (none fail for Qwen3).
  assert.deepEqual(again.tables!.unmerged, unmergedVocabulary(fromJson, false));
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

const sha256Of = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const recordFiles = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('file-sha256-'));
/** A sha256 no file here has: found only through a remembered record. */
const FAKE = 'ab'.repeat(32);

/** A copy of an entry under another sha256 (its header renamed): which entry a hash finds, not its contents, is what these tests check. */
function entryUnder(dir: string, from: string, hash: string, fastReason: string): void {
  const to = join(dir, `prepared-v${PREPARED_VERSION}-${hash}.bin`);
  copyFileSync(join(dir, `prepared-v${PREPARED_VERSION}-${from}.bin`), to);
  editHeader(to, (h) => ((h.sha256 = hash), (h.fast_reason = fastReason)));
}

function editRecord(dir: string, edit: (r: Record<string, unknown>) => void): void {
  const [name] = recordFiles(dir);
  const record = JSON.parse(readFileSync(join(dir, name!), 'utf8'));
  edit(record);
  writeFileSync(join(dir, name!), JSON.stringify(record));
}

/** A copy of the Qwen3 tokenizer.json, last written an hour ago, with a cache whose entry for it is a small tokenizer's (prepared in milliseconds). */
function qwenCopy(): { path: string; cache: string } {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-remembered-'));
  const small = join(dir, 'small.json');
  writeFileSync(small, JSON.stringify({ added_tokens: [{ id: 0, content: '<|endoftext|>', special: true }], normalizer: null, pre_tokenizer: { type: 'Whitespace' }, model: { type: 'WordLevel', unk_token: '<|endoftext|>', vocab: { '<|endoftext|>': 0 } } }));
  const cache = join(dir, 'cache');
  const smallHash = prepareTokenizer(small, { check: true, tables: false, dir: cache }).hash;
  for (const f of recordFiles(cache)) unlinkSync(join(cache, f)); // the small file's (written just now: none)
  entryUnder(cache, smallHash, qwenHash, 'from the remembered-or-read hash');
  const path = join(dir, 'tokenizer.json');
  copyFileSync(tokenizerPath('qwen3'), path);
  const anHourAgo = Date.now() / 1000 - 3600;
  utimesSync(path, anHourAgo, anHourAgo);
  return { path, cache };
}

test("a tokenizer.json's sha256 is remembered: used while the file is unchanged, hashed again once it is written (same size, new content)", () => {
  const { path, cache } = qwenCopy();
  const prepare = () => prepareTokenizer(path, { check: true, tables: false, dir: cache });
  assert.equal(prepare().hash, qwenHash);
  assert.equal(recordFiles(cache).length, 1, 'remembered');
  // The record now names a sha256 the file does not have: a job that finds it did not read the file.
  editRecord(cache, (r) => (r.sha256 = FAKE));
  entryUnder(cache, qwenHash, FAKE, 'remembered');
  const remembered = prepare();
  assert.equal(remembered.hash, FAKE);
  assert.equal(remembered.fastReason, 'remembered');
  assert.throws(() => remembered.json(), /changed while the job ran/, 'json() still reads the file and checks it');
  // Touched (a new modification time, the same bytes): read and hashed again, and remembered again.
  utimesSync(path, Date.now() / 1000 - 1800, Date.now() / 1000 - 1800);
  assert.equal(prepare().hash, qwenHash);
  editRecord(cache, (r) => (r.sha256 = FAKE));
  assert.equal(prepare().hash, FAKE, 'the new version remembered');
  // New content of the same size, written half an hour ago in another tick: hashed again.
  const changed = Buffer.from(readFileSync(path).toString('latin1').replace('"version": "1.0"', '"version": "1.1"'), 'latin1');
  assert.equal(changed.length, readFileSync(path).length);
  writeFileSync(path, changed);
  utimesSync(path, Date.now() / 1000 - 1700, Date.now() / 1000 - 1700);
  entryUnder(cache, qwenHash, sha256Of(changed), 'changed');
  const again = prepare();
  assert.equal(again.hash, sha256Of(changed));
  assert.equal(again.fastReason, 'changed');
  assert.deepEqual(again.json().version, '1.1');
});

test('a garbled or foreign sha256 record is ignored and written again; a file written moments ago, a worker, an unwritable record or a switched-off cache remember nothing', () => {
  const { path, cache } = qwenCopy();
  const prepare = (dir: string | null = cache, check = true) => prepareTokenizer(path, { check, tables: false, dir });
  prepare();
  const [name] = recordFiles(cache);
  const good = readFileSync(join(cache, name!), 'utf8');
  for (const bad of ['{"path": "/elsewhere', 'null', '[]', JSON.stringify({ ...JSON.parse(good), sha256: 'not a sha256' }), JSON.stringify({ ...JSON.parse(good), sha256: FAKE, path: '/another/tokenizer.json' })]) {
    writeFileSync(join(cache, name!), bad);
    assert.equal(prepare().hash, qwenHash, bad);
    assert.equal(readFileSync(join(cache, name!), 'utf8'), good, 'written again');
  }
  unlinkSync(join(cache, name!));
  assert.equal(prepare(cache, false).hash, qwenHash);
  assert.deepEqual(recordFiles(cache), [], 'a worker writes nothing');
  utimesSync(path, new Date(), new Date());
  assert.equal(prepare().hash, qwenHash);
  assert.deepEqual(recordFiles(cache), [], 'written moments ago: it could be written again within the same tick');
  // A record that cannot be written (a folder in its place) costs only the hashing, every time.
  utimesSync(path, Date.now() / 1000 - 3600, Date.now() / 1000 - 3600);
  mkdirSync(join(cache, name!));
  assert.equal(prepare().hash, qwenHash);
  assert.equal(prepare().hash, qwenHash);
  // Off (the worker's way, to skip the checks a cache miss runs): read and hashed, nothing written anywhere.
  assert.equal(prepare(null, false).hash, qwenHash, 'cache off');
});

test("an entry's tables are checked by the native XXH64: the same 64 bits as xxhash-wasm's h64, on the Qwen3 file and on short and unaligned tails", async () => {
  const { h64Raw } = await xxhash();
  const bytes = qwenBytes();
  for (const b of [bytes, bytes.subarray(1, 4000), bytes.subarray(3, 3 + 31), bytes.subarray(5, 5 + 7), new Uint8Array(0)]) {
    assert.equal(nativeBinding().xxh64!(b), h64Raw(new Uint8Array(b)).toString(16).padStart(16, '0'));
  }
});
