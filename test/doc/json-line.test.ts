import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { Rng } from '../../src/core/random.js';
import { docToJson, type Doc } from '../../src/doc/document.js';
import { appendDocLine, LineBuffer } from '../../src/doc/json-line.js';

/** What a JSONL writer wrote before: docToJson's string and a newline, in UTF-8. */
const expected = (doc: Doc) => Buffer.from(docToJson(doc) + '\n');

function lineOf(doc: Doc, initialBytes: number): Buffer {
  const sink = new LineBuffer(initialBytes);
  appendDocLine(doc, sink);
  return sink.take();
}

/** Every file under a folder of data-samples (real code, pages, prose), as texts. */
function sampleTexts(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sampleTexts(path, out);
    else out.push(readFileSync(path, 'utf8'));
  }
  return out;
}

test("a document's JSONL line is docToJson's bytes and a newline: real files of data-samples, with spans and meta", () => {
  const texts = sampleTexts(join(repoRoot, 'data-samples'));
  assert.ok(texts.length > 50 && texts.some((t) => /[^\x00-\xff]/.test(t)), 'real texts, some beyond Latin-1');
  for (const [i, text] of texts.entries()) {
    const doc: Doc = { id: `id-${i}"\\`, kind: 'repo', source: `data-samples/${i}\u00e9`, text, meta: { path: `a\tb\u2028`, n: i, nested: { ok: true } } };
    if (i % 3 === 0) doc.loss_mask_spans = [[0, Math.min(3, text.length)]];
    if (i % 5 === 0) doc.special_spans = [[0, 0]];
    // A first buffer of 16 bytes: the text's bytes never fit at once, so the native call says how many it needs first.
    for (const initial of [16, 1 << 20]) assert.deepEqual(lineOf(doc, initial), expected(doc), `file ${i}, buffer ${initial}`);
  }
});

test('random texts of every kind of UTF-16 unit: quotes, backslashes, control characters, pairs and lone surrogates', () => {
  const rng = new Rng(7, 'json-line');
  // Every control character, and runs of plain ASCII longer than the native writer's 16-byte steps.
  const controls = Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c));
  const pool = ['"', '\\', '/', ...controls, ' ', 'a', 'abcdefghijklmnopqrstuvwxyz0123', '\u007f', '\u0080', '\u00e9', '\u07ff', '\u0800', '\u2028', '\u2029', '\ufeff', '\uffff', '\ud83d\ude00', '\ud800', '\udbff', '\udc00', '\udfff'];
  // Half the texts without lone surrogates (written natively), half with them (docToJson's string: \udxxx has no UTF-8).
  const paired = pool.filter((u) => u.length === 2 || !/[\ud800-\udfff]/.test(u));
  for (let round = 0; round < 2000; round++) {
    const from = round % 2 ? pool : paired;
    let text = '';
    const n = rng.int(0, 60);
    for (let i = 0; i < n; i++) text += from[rng.int(0, from.length)];
    const doc: Doc = { id: `r${round}`, kind: 'text', source: 'fuzz', text, meta: {} };
    assert.deepEqual(lineOf(doc, 8), expected(doc), JSON.stringify(text));
  }
});

test('a document docToJson writes differently (no meta) takes its string as it is', () => {
  const doc = { id: 'x', kind: 'text', source: 's', text: 'a"b', meta: undefined } as unknown as Doc;
  assert.deepEqual(lineOf(doc, 4), expected(doc));
  assert.equal(lineOf(doc, 4).toString(), '{"id":"x","kind":"text","source":"s","text":"a\\"b"}\n');
});
