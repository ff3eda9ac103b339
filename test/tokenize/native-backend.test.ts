import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTokenizer, resolveTokenizerBackend, type MidTokenizer } from '../../src/tokenize/tokenizer.js';
import { encodeForPacking } from '../../src/tokenize/encode.js';
import { checkNativePipeline, nativeClasses, NativeBpe, unmergedVocabulary } from '../../src/tokenize/native-bpe.js';
import { REFERENCE_CLASSES } from '../../src/tokenize/unicode-classes-table.js';
import { prepareTokenizer } from '../../src/tokenize/prepared.js';
import { checkNativeModel, fastTables, type FastTables, type TokenizerJson } from '../../src/tokenize/fast-bpe.js';
import { BYTE_TO_CHAR } from '../../src/tokenize/byte-level.js';
import { TokenBuffer } from '../../src/tokenize/token-buffer.js';
import { Rng } from '../../src/core/random.js';
import { repoRoot, readabilityPages } from '../helpers/paths.js';
import { rustReference, TOKENIZERS, wellFormed } from '../helpers/reference-tokenizer.js';
import { unicodeFuzz } from '../helpers/unicode-fuzz.js';
import { slow } from '../helpers/tiers.js';

/** Native ids equal the Rust reference's, and its ranges, mask and ids equal the other backend's (fast for Qwen3, else hf). */
async function assertNative(native: MidTokenizer, other: MidTokenizer, reference: (text: string) => Promise<number[]>, text: string, label: string): Promise<void> {
  const enc = native.encodeDoc({ text });
  const ids = Array.from(enc.ids).slice(0, -1);
  const want = await reference(wellFormed(text));
  if (ids.length !== want.length || ids.some((v, k) => v !== want[k])) {
    const at = ids.findIndex((v, k) => v !== want[k]);
    assert.fail(`${label}: native ids differ from the Rust reference at token ${at}: ${JSON.stringify(ids.slice(at, at + 4))} vs ${JSON.stringify(want.slice(at, at + 4))}`);
  }
  const theirs = other.encodeDoc({ text });
  assert.deepEqual(enc.starts, theirs.starts, `${label}: token starts differ from the ${other.backend} backend's`);
  assert.deepEqual(enc.ends, theirs.ends, `${label}: token ends differ from the ${other.backend} backend's`);
  const spans: [number, number][] = text.length > 4 ? [[1, text.length >> 1]] : [];
  assert.deepEqual(encodeForPacking(native, { text, loss_mask_spans: spans }), encodeForPacking(other, { text, loss_mask_spans: spans }), `${label}: loss masks differ`);
}

function* files(dir: string): Iterable<string> {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.isFile()) yield p;
  }
}

/** Where the hand-written splitters could part ways with the regexes: each pattern's alternatives and their backtracking. */
const EDGES = [
  "don't WE'LL it's 'RE 'ſt x'ſ DON'ſ", // contractions; the reference folds ſ to s
  'HELLOworld ǅemal ABCdéf aBC XMLHttpRequest ʰʲab ABʰ A\u0301B a\u0301\u0302b \u0301abc', // o200k's two letter alternatives
  '_foo $abc .Net (é #include <stdio.h> @Override x/y//\n//\r\n a/', // DeepSeek-V3's ASCII punctuation + letters; o200k's [\r\n/]*
  'x\u200by \u200b\u200b z\u00ad\u0301 \u2028 \u0085a', // characters no alternative of DeepSeek-V3's third Split takes
  '漢字かなカナ・ー123漢字４５６ｱｲ 中文。テスト！ ゝゞ\u3099\u309a', // DeepSeek-V3's CJK Split, numbers first
  '1234567 ١٢٣٤٥ 12a34 ²³¹x', // \p{N}{1,K}
];

const backends = new Map<string, Promise<[MidTokenizer, MidTokenizer]>>();
/** The native backend and the one its ranges are compared with, per tokenizer, loaded once. */
function pair(name: string): Promise<[MidTokenizer, MidTokenizer]> {
  let p = backends.get(name);
  if (!p) {
    const spec = TOKENIZERS[name]!;
    p = Promise.all([loadTokenizer(spec, 'native', true), loadTokenizer(spec, name === 'qwen3' ? 'fast' : 'hf', true)]);
    backends.set(name, p);
  }
  return p;
}

test('auto picks the native backend for Qwen3, Llama-3, DeepSeek-V3 and GPT-4o; a pattern it has no splitter for falls back to fast with the reason', async () => {
  for (const name of Object.keys(TOKENIZERS)) assert.deepEqual(await resolveTokenizerBackend(TOKENIZERS[name]!, 'auto'), { backend: 'native' }, name);
  assert.deepEqual(await resolveTokenizerBackend('qwen3', 'fast'), { backend: 'fast' });
  // Llama-3's ignore_merges: not the fast backend's, so asking for it gets hf.
  assert.match((await resolveTokenizerBackend(TOKENIZERS.llama3!, 'fast')).reason ?? '', /ignore_merges/);
  const parts = prepareTokenizer('qwen3', { check: false, tables: false, dir: null }).parts;
  const pre = structuredClone(parts.pre_tokenizer) as { pretokenizers: { pattern: { Regex: string } }[] };
  pre.pretokenizers[0]!.pattern.Regex = pre.pretokenizers[0]!.pattern.Regex.replace('\\p{N}', '\\p{N}{1,2}');
  assert.match(checkNativePipeline({ ...parts, pre_tokenizer: pre }) ?? '', /^pre-tokenizer pattern ".*" has no native splitter$/);
  assert.equal(checkNativePipeline(parts), undefined);
});

test('a model past the native merge table (ids of 2^20 or more, 2^24 merges) is refused with the reason; Llama-3, DeepSeek-V3 and GPT-4o are not', () => {
  for (const name of ['llama3', 'deepseek_v3', 'gpt4o']) assert.equal(checkNativeModel(JSON.parse(readFileSync(TOKENIZERS[name]!, 'utf8'))), undefined, name);
  const parts = JSON.parse(readFileSync(TOKENIZERS.gpt4o!, 'utf8')) as Record<string, unknown>;
  const model = parts.model as { vocab: Record<string, number>; merges: unknown[] };
  const wide = { ...parts, model: { ...model, vocab: { ...model.vocab, '<|far|>': 1 << 20 } } };
  assert.equal(checkNativeModel(wide), 'token id 1048576 (the native core holds ids below 2^20)');
  const long = { ...parts, model: { ...model, merges: { length: (1 << 24) - 1 } } };
  assert.equal(checkNativeModel(long), '16777215 merges (the native core holds fewer than 2^24)');
});

for (const name of Object.keys(TOKENIZERS)) {
  const reference = rustReference(TOKENIZERS[name]!);

  test(`native backend, ${name}: the Rust reference's ids and the same ranges and masks on the sample repositories, seeded Unicode fuzz and each splitter's edge cases`, slow, async () => {
    const [native, other] = await pair(name);
    let n = 0;
    for (const path of files(join(repoRoot, 'data-samples', 'repos'))) {
      const text = readFileSync(path, 'utf8');
      if (text.includes('\0') || n++ > 120) continue;
      await assertNative(native, other, reference, text, path);
    }
    for (let seed = 0; seed < 30; seed++) await assertNative(native, other, reference, unicodeFuzz(`native-${seed}`, 6000), `fuzz ${seed}`);
    for (const text of EDGES) await assertNative(native, other, reference, text, JSON.stringify(text));
  });

  test(`native backend, ${name}: pages of the readability set, long runs (a piece over 1 MB) and digits`, slow, async () => {
    const [native, other] = await pair(name);
    const rng = new Rng('native-pages', 1);
    const pages = [...files(readabilityPages)].filter((p) => p.endsWith('.html'));
    for (const path of rng.shuffle(pages).slice(0, 12)) await assertNative(native, other, reference, readFileSync(path, 'utf8'), path);
    const long = ['a'.repeat(1 << 20) + ' end', ' '.repeat(3000) + 'x', '\n\n\r\n '.repeat(500), '1234567890'.repeat(300), '中'.repeat(5000)];
    for (const text of long) await assertNative(native, other, reference, text, `${JSON.stringify(text.slice(0, 12))} x${text.length}`);
  });
}

test('the native class bits are the reference classes of every code point; every letter is in one of o200k\'s two letter classes', () => {
  const t = nativeClasses();
  const sets = Object.fromEntries(Object.entries(REFERENCE_CLASSES).map(([name, r]) => {
    const m = new Uint8Array(0x110000);
    for (let i = 0; i < r.length; i += 2) m.fill(1, r[i]!, r[i + 1]! + 1);
    return [name, m];
  }));
  const has = (name: string, c: number) => sets[name]![c] === 1;
  for (let c = 0; c < 0x110000; c++) {
    const want = (has('L', c) ? 1 : 0) | (has('N', c) ? 2 : 0) | (has('s', c) ? 4 : 0) | (has('M', c) ? 8 : 0) | (has('P', c) ? 16 : 0) | (has('S', c) ? 32 : 0) |
      (has('Lu', c) || has('Lt', c) || has('Lm', c) || has('Lo', c) ? 64 : 0) | (has('Ll', c) || has('Lm', c) || has('Lo', c) ? 128 : 0);
    if (t[c] !== want) assert.fail(`U+${c.toString(16)}: native class bits ${t[c]}, the reference's ${want}`);
    // o200k's letter alternatives take every \p{L} (so its Split removes nothing the other alternatives leave).
    if (has('L', c) && !(want & (64 | 128))) assert.fail(`U+${c.toString(16)} is \\p{L} but in none of Lu, Ll, Lt, Lm, Lo`);
  }
});

test('native backend: the table of encoded pieces stays within its configured size', async () => {
  const prepared = prepareTokenizer('qwen3', { check: false, tables: true });
  const core = new NativeBpe(prepared.parts, prepared.tables!, 64);
  const out = new TokenBuffer();
  const rng = new Rng('native-cache', 1);
  for (let i = 0; i < 2000; i++) core.encodeInto(`zq${rng.int(0, 1e9).toString(36)}x `, out, 0, null);
  assert.ok(core.cacheSize() > 0 && core.cacheSize() <= 64, `cache size ${core.cacheSize()}`);
});

test('encodeDoc returns arrays of its own: a later call does not change an earlier result', async () => {
  const t = await loadTokenizer('qwen3', 'native', true);
  const code = readFileSync(join(repoRoot, 'src', 'tokenize', 'tokenizer.ts'), 'utf8');
  const first = t.encodeDoc({ text: code });
  const copy = { ids: first.ids.slice(), starts: first.starts.slice(), ends: first.ends.slice() };
  const second = t.encodeDoc({ text: 'naïve 😀 ' + code.slice(0, 500) });
  assert.ok(second.ids.length > 100 && second.ids[0] !== first.ids[0], 'a different text');
  assert.deepEqual(first, copy, 'the first result is unchanged');
  for (const a of [first.ids, first.starts, first.ends]) assert.equal(a.buffer.byteLength, a.byteLength, 'exact length, nothing else in its buffer');
});

test('native backend: tokens go straight into the batch buffer, growing it when they do not fit, with ranges offset and mapped', async () => {
  const prepared = prepareTokenizer('qwen3', { check: false, tables: true });
  const core = new NativeBpe(prepared.parts, prepared.tables!);
  const texts = ['const x = 1;\r\n// naïve café 😀 \u{1F600}x', 'a'.repeat(5000) + ' ' + '日本語のテキスト'.repeat(50), unicodeFuzz('native-into', 3000)].map(wellFormed);
  for (const text of texts) {
    const roomy = new TokenBuffer(1 << 16);
    core.encodeInto(text, roomy, 0, null);
    const n = roomy.length;
    assert.ok(n > 2, 'tokens');
    // A buffer holding two tokens already, far too small: the tokens land after them, each range plus the base.
    const tight = new TokenBuffer(2);
    tight.push(7, 0, 1);
    tight.push(8, 1, 2);
    core.encodeInto(text, tight, 100, null);
    assert.equal(tight.length, n + 2);
    assert.deepEqual(Array.from(tight.ids.subarray(0, 2)), [7, 8], 'earlier tokens kept when the buffer grows');
    assert.deepEqual(tight.ids.subarray(2, n + 2), roomy.ids.subarray(0, n), 'ids');
    assert.deepEqual(Array.from(tight.starts.subarray(2, n + 2)), Array.from(roomy.starts.subarray(0, n), (s) => s + 100), 'starts plus base');
    assert.deepEqual(Array.from(tight.ends.subarray(2, n + 2)), Array.from(roomy.ends.subarray(0, n), (e) => e + 100), 'ends plus base');
    // Through a map (NFC's offsets back to the original): the base is added after the map.
    const mapped = new TokenBuffer(1);
    core.encodeInto(text, mapped, 10, (x, up) => 2 * x + (up ? 1 : 0));
    assert.deepEqual(Array.from(mapped.starts.subarray(0, n)), Array.from(roomy.starts.subarray(0, n), (s) => 10 + 2 * s), 'mapped starts');
    assert.deepEqual(Array.from(mapped.ends.subarray(0, n)), Array.from(roomy.ends.subarray(0, n), (e) => 10 + 2 * e + 1), 'mapped ends');
  }
});

test('--tokenizer-cache bounds the native piece table and changes no byte: 0 and 16 pieces pack what the default packs', async () => {
  const { runPackJob, PACK_DEFAULTS } = await import('../../src/job/pack-job.js');
  const { parseRunConfig } = await import('../../src/job/run-config.js');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'midpack-tokenizer-cache-'));
  try {
    const input = join(repoRoot, 'data-samples', 'docs', 'packages.jsonl');
    const pack = (tokenizerCache?: number) => runPackJob({ ...PACK_DEFAULTS, inputs: [input], out: join(dir, `out-${tokenizerCache}`), workers: 1, seqLen: 8192, tokenizerBackend: 'native', ...(tokenizerCache === undefined ? {} : { tokenizerCache }) });
    const [whole, none, tiny] = [await pack(), await pack(0), await pack(16)];
    assert.ok(whole.report.packing.tokens > 10_000, 'tokens');
    assert.equal(none.manifest.shards_fingerprint, whole.manifest.shards_fingerprint);
    assert.equal(tiny.manifest.shards_fingerprint, whole.manifest.shards_fingerprint);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const base = { sources: [{ type: 'documents', inputs: ['x.jsonl'] }] };
  assert.equal(parseRunConfig({ ...base, pack: { tokenizerCache: 4096 } }, 'c.yaml').pack.tokenizerCache, 4096);
  assert.throws(() => parseRunConfig({ ...base, pack: { tokenizerCache: -1 } }, 'c.yaml'), /pack\.tokenizerCache/);
  const prepared = prepareTokenizer('qwen3', { check: false, tables: true });
  assert.throws(() => new NativeBpe(prepared.parts, prepared.tables!, 1.5), RangeError);
});

test('countPlain is the length of encodePlain on every backend: real code, web pages, text NFC changes, lone surrogates', async () => {
  const code = readFileSync(join(repoRoot, 'src', 'tokenize', 'tokenizer.ts'), 'utf8');
  const page = readFileSync(join(readabilityPages, readdirSync(readabilityPages).sort()[0]!, 'source.html'), 'utf8');
  // A decomposed é (NFC composes it), a lone surrogate, an emoji, CRLF lines.
  const texts = [code, page, code.slice(0, 3000), 'cafe\u0301 \ud800 😀 x\r\n  y', '', ' '];
  for (const backend of ['native', 'fast', 'hf'] as const) {
    const t = await loadTokenizer('qwen3', backend, true);
    for (const [i, text] of texts.entries()) assert.equal(t.countPlain(text), t.encodePlain(text).length, `${backend}, text ${i}`);
  }
});

/** A byte-level BPE on Qwen3's pipeline whose vocabulary holds "abc", which its merges never make ("ab" first, then nothing joins "ab" and "c"). */
function unreachedTokenTables(): { parts: TokenizerJson; tables: FastTables; abc: number } {
  const qwen = prepareTokenizer('qwen3', { check: false, tables: false, dir: null }).parts;
  const vocab: Record<string, number> = Object.fromEntries(BYTE_TO_CHAR.map((c, i) => [c, i]));
  Object.assign(vocab, { ab: 256, bc: 257, abc: 258 });
  const parts = { ...qwen, model: { type: 'BPE', vocab, merges: ['a b', 'b c'] } } as TokenizerJson;
  return { parts, tables: fastTables(parts), abc: 258 };
}

test("the native core's check of its vocabulary is done once and kept with the prepared tables: a core given it encodes as one that checks", () => {
  const { parts, tables, abc } = unreachedTokenTables();
  assert.deepEqual([...unmergedVocabulary(tables, false)], [abc], '"abc" is not what its bytes merge to');
  assert.deepEqual([...unmergedVocabulary(tables, true)], [], 'under ignore_merges a token is its bytes: nothing is checked');
  const encode = (unmerged?: Int32Array) => {
    const out = new TokenBuffer(64);
    new NativeBpe(parts, { ...tables, unmerged }, 0).encodeInto('abc abcd', out, 0, null);
    return [...out.ids.subarray(0, out.length)];
  };
  const checked = encode(undefined);
  assert.deepEqual(checked, [256, 99, 32, 256, 99, 100], 'ab c, space, ab c d: the merges, not the vocabulary entry');
  assert.deepEqual(encode(Int32Array.of(abc)), checked);
  // The list is what decides: told that nothing is left out, the core takes "abc" whole.
  assert.deepEqual(encode(new Int32Array(0)), [abc, 32, 256, 99, 100]);
  assert.throws(() => encode(Int32Array.of(abc + 5)), /known unmerged tokens/);
});

test("the shipped tokenizers' checks, as their prepared tables keep them: only GPT-4o's two special tokens' texts are left out (Llama-3 checks nothing: ignore_merges)", slow, () => {
  const expected: Record<string, number[]> = { qwen3: [], llama3: [], deepseek_v3: [], gpt4o: [199_999, 200_018] };
  for (const [name, ids] of Object.entries(expected)) {
    const dir = mkdtempSync(join(tmpdir(), 'midpack-unmerged-'));
    assert.deepEqual([...prepareTokenizer(TOKENIZERS[name]!, { check: true, tables: true, dir }).tables!.unmerged!], ids, name);
    // Read back from the entry, as later jobs take it.
    assert.deepEqual([...prepareTokenizer(TOKENIZERS[name]!, { check: true, tables: true, dir }).tables!.unmerged!], ids, `${name}, from the cache`);
    rmSync(dir, { recursive: true, force: true });
  }
  // Without a cache folder nothing is kept, so nothing is computed ahead: the core checks for itself.
  assert.equal(prepareTokenizer('qwen3', { check: true, tables: true, dir: null }).tables!.unmerged, undefined);
});
