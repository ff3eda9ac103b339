import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadTokenizer, resolveTokenizerBackend, type MidTokenizer } from '../../src/tokenize/tokenizer.js';
import { encodeForPacking } from '../../src/tokenize/encode.js';
import { checkNativePipeline, NativeBpe } from '../../src/tokenize/native-bpe.js';
import { prepareTokenizer } from '../../src/tokenize/prepared.js';
import { TokenBuffer } from '../../src/tokenize/token-buffer.js';
import { Rng } from '../../src/core/random.js';
import { repoRoot, readabilityPages } from '../helpers/paths.js';
import { rustReference, TOKENIZERS, wellFormed } from '../helpers/reference-tokenizer.js';
import { unicodeFuzz } from '../helpers/unicode-fuzz.js';
import { slow } from '../helpers/tiers.js';

const reference = rustReference('qwen3');

/** Native ids equal the Rust reference's, and its ranges, mask and ids equal the fast backend's. */
async function assertNative(native: MidTokenizer, fast: MidTokenizer, text: string, label: string): Promise<void> {
  const enc = native.encodeDoc({ text });
  const ids = Array.from(enc.ids).slice(0, -1);
  const want = await reference(wellFormed(text));
  if (ids.length !== want.length || ids.some((v, k) => v !== want[k])) {
    const at = ids.findIndex((v, k) => v !== want[k]);
    assert.fail(`${label}: native ids differ from the Rust reference at token ${at}: ${JSON.stringify(ids.slice(at, at + 4))} vs ${JSON.stringify(want.slice(at, at + 4))}`);
  }
  const other = fast.encodeDoc({ text });
  assert.deepEqual(enc.starts, other.starts, `${label}: token starts differ from the fast backend's`);
  assert.deepEqual(enc.ends, other.ends, `${label}: token ends differ from the fast backend's`);
  const spans: [number, number][] = text.length > 4 ? [[1, text.length >> 1]] : [];
  assert.deepEqual(encodeForPacking(native, { text, loss_mask_spans: spans }), encodeForPacking(fast, { text, loss_mask_spans: spans }), `${label}: loss masks differ`);
}

function* files(dir: string): Iterable<string> {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.isFile()) yield p;
  }
}

test('auto picks the native backend for Qwen3 and Llama-3-style patterns; DeepSeek-V3 and GPT-4o patterns fall back with a reason', async () => {
  assert.deepEqual(await resolveTokenizerBackend('qwen3', 'auto'), { backend: 'native' });
  assert.deepEqual(await resolveTokenizerBackend('qwen3', 'fast'), { backend: 'fast' });
  for (const name of ['deepseek_v3', 'gpt4o']) {
    const parts = prepareTokenizer(TOKENIZERS[name]!, { check: false, tables: false, dir: null }).parts;
    assert.match(checkNativePipeline(parts) ?? '', /has no native splitter/, name);
  }
});

test('native backend: the Rust reference\'s ids and the fast backend\'s ranges and masks on the sample repositories and seeded Unicode fuzz', slow, async () => {
  const native = await loadTokenizer('qwen3', 'native', true);
  const fast = await loadTokenizer('qwen3', 'fast', true);
  let n = 0;
  for (const path of files(join(repoRoot, 'data-samples', 'repos'))) {
    const text = readFileSync(path, 'utf8');
    if (text.includes('\0') || n++ > 120) continue;
    await assertNative(native, fast, text, path);
  }
  for (let seed = 0; seed < 30; seed++) await assertNative(native, fast, unicodeFuzz(`native-${seed}`, 6000), `fuzz ${seed}`);
});

test('native backend: pages of the readability set, long runs (a piece over 1 MB) and digits', slow, async () => {
  const native = await loadTokenizer('qwen3', 'native', true);
  const fast = await loadTokenizer('qwen3', 'fast', true);
  const rng = new Rng('native-pages', 1);
  const pages = [...files(readabilityPages)].filter((p) => p.endsWith('.html'));
  for (const path of rng.shuffle(pages).slice(0, 12)) await assertNative(native, fast, readFileSync(path, 'utf8'), path);
  for (const text of ['a'.repeat(1 << 20) + ' end', ' '.repeat(3000) + 'x', '\n\n\r\n '.repeat(500), '1234567890'.repeat(300), "don't WE'LL it's 'RE"]) await assertNative(native, fast, text, `${JSON.stringify(text.slice(0, 12))} x${text.length}`);
});

test('native backend: the table of encoded pieces stays within its configured size', async () => {
  const prepared = prepareTokenizer('qwen3', { check: false, tables: true });
  const core = new NativeBpe(prepared.parts, prepared.tables!, 64);
  const out = new TokenBuffer();
  const rng = new Rng('native-cache', 1);
  for (let i = 0; i < 2000; i++) core.encodeInto(`zq${rng.int(0, 1e9).toString(36)}x `, out, 0, null);
  assert.ok(core.cacheSize() > 0 && core.cacheSize() <= 64, `cache size ${core.cacheSize()}`);
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
