import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { nfcWithMap, referenceNfc } from '../../src/tokenize/nfc.js';
import { differingCodePoints } from '../../scripts/gen-unicode-tables.js';
import { unicodeFuzz } from '../helpers/unicode-fuzz.js';
import { slow } from '../helpers/tiers.js';

// The Rust reference (HF tokenizers' crate, through its npm binding): a devDependency.
const reference = createRequire(import.meta.url)('tokenizers') as { nfcNormalizer(): { normalizeString(s: string): string } };
const refNfc = (s: string) => reference.nfcNormalizer().normalizeString(s);

test('referenceNfc equals the Rust reference on the probes of every code point (nfc-reference-table.ts is current)', slow, () => {
  const nfc = reference.nfcNormalizer();
  const wrong = differingCodePoints((s) => nfc.normalizeString(s), referenceNfc);
  assert.deepEqual([...wrong].map((c) => c.toString(16)), [], 'code points missing from nfc-reference-table.ts: run scripts/gen-unicode-tables.ts');
});

test('referenceNfc equals the Rust reference on seeded fuzz text with runs of combining marks', () => {
  const nfc = reference.nfcNormalizer();
  for (let seed = 0; seed < 40; seed++) {
    // Lone surrogates become U+FFFD on the way into the reference: compare well-formed text.
    const text = unicodeFuzz(seed, 4000).replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
    const got = referenceNfc(text);
    const want = nfc.normalizeString(text);
    if (got !== want) {
      let at = 0;
      while (got[at] === want[at]) at++;
      assert.fail(`seed ${seed}: differs at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 8), at + 8))}`);
    }
  }
});

test('the reference keeps a combining mark it does not know where it is; V8 reorders it', () => {
  const text = 'a\u0316\u1ac4\u0301'; // U+1AC4 (Unicode 14) has ccc 230 in V8, is unknown to the reference
  assert.equal(referenceNfc(text), refNfc(text));
  assert.notEqual(text.normalize('NFC'), refNfc(text));
  const { normalized, toOriginal } = nfcWithMap(`x ${text} y`);
  assert.equal(normalized, refNfc(`x ${text} y`));
  assert.equal(toOriginal?.(normalized.length, true) ?? normalized.length, `x ${text} y`.length);
});
