import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTokenizer, resolveTokenizerBackend } from '../../src/tokenize/tokenizer.js';
import { encodeForPacking } from '../../src/tokenize/encode.js';
import { rustReference, TOKENIZERS, wellFormed } from '../helpers/reference-tokenizer.js';
import { unicodeFuzz } from '../helpers/unicode-fuzz.js';
import { slow } from '../helpers/tiers.js';

/**
 * The pack path's ids (encodeForPacking: what lands in the shards) against the Rust reference,
 * for the four tokenizers on the backend `auto` picks. Regression: NFC was applied whatever the
 * tokenizer.json said (Llama-3 and GPT-4o have no normalizer, DeepSeek-V3 an empty Sequence), and
 * V8's NFC reordered marks the reference's older tables do not know; and o200k's `(?i:'s)` did not
 * match "'ſ" after a word.
 */
const TEXTS = [
  'E\u0301cole de Montre\u0301al, cafe\u0301 — written in NFD, as macOS writes it.',
  'a\u0316\u1ac4\u0301 x\u0301\u0316 \u1100\u1161\u11a8 Å Å',
  "def f(x):\n    return x  # it's 'ſ and the ﬁle\r\n\u0085\ufeff",
  // o200k's contractions after a word, matched case-insensitively by simple case folding (ſ is s,
  // U+212A is k): from the fuzz sweep, where GPT-4o's hf backend gave "e" + "'ſ'LL" + "a".
  "the'ſ'LLa 've\u212a function'ſ'REStraße we'ſ'dx ab'ſ'vex IT'ſ'LL x'\u212a",
];

for (const [name, spec] of Object.entries(TOKENIZERS)) {
  test(`${name}: the pack path's ids equal the Rust reference's on NFD text and combining marks`, slow, async () => {
    const { backend } = await resolveTokenizerBackend(spec, 'auto');
    const tokenizer = await loadTokenizer(spec, backend, true);
    const reference = rustReference(spec);
    const texts = [...TEXTS, ...[0, 1, 2].map((seed) => unicodeFuzz(`reference-ids-${seed}`, 3000))];
    for (const [i, text] of texts.entries()) {
      const got = encodeForPacking(tokenizer, { text });
      assert.equal(got.error, undefined);
      const ids = Array.from(got.ids!).slice(0, -1); // the end-of-text id the pack path appends
      const want = await reference(wellFormed(text));
      if (ids.length !== want.length || ids.some((v, k) => v !== want[k])) {
        const at = ids.findIndex((v, k) => v !== want[k]);
        assert.fail(`${name} (${backend}) text ${i}: ids differ from the reference at token ${at}: ${JSON.stringify(ids.slice(at, at + 6))} vs ${JSON.stringify(want.slice(at, at + 6))}`);
      }
    }
  });
}
