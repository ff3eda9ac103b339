import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docsOfLines, type LineBatchJob } from '../../src/tokenize/line-docs.js';
import { encodeBatch } from '../../src/tokenize/batch.js';
import { packRequest } from '../../src/tokenize/encode.js';
import { loadTokenizer } from '../../src/tokenize/tokenizer.js';
import { repoRoot } from '../helpers/paths.js';

/**
 * Lines a JSON reader can get wrong: escapes of every kind, a text that is ASCII only once
 * unescaped or not ASCII only because of an escape, `text` keys nested, repeated or spelled with
 * an escape, values of every type before the text, backslashes right before a quote, bytes
 * JSON does not allow in a string, trailing bytes, CRLF, and records dropped after the text.
 */
const TRICKY = [
  String.raw`{"id":"esc","text":"a\u0041\n\t\"q\" \\ \/ \b\f\r b\u007f\u0000"}`,
  String.raw`{ "id" : "spaced" , "text" : "spaced out" , "meta" : { } }`,
  String.raw`{"text":"ends with a backslash \\","id":"bs1"}`,
  String.raw`{"text":"a quote after backslashes \\\"","id":"bs2"}`,
  String.raw`{"meta":{"text":"inner","a":["text","}",{"text":1}]},"n":-1.5e3,"t":true,"z":null,"text":"outer"}`,
  String.raw`{"text":"first","text":"second"}`,
  String.raw`{"te\u0078t":"an escaped key","id":"key"}`,
  String.raw`{"id":"u","text":"caf\u00e9"}`,
  String.raw`{"id":"raw","text":"café"}`,
  String.raw`{"id":"lone","text":"a \ud800 b"}`,
  String.raw`{"id":"num","text":5}`,
  String.raw`{"id":"empty","text":""}`,
  String.raw`{"id":"bad-escape","text":"a \x b"}`,
  '{"id":"tab","text":"a raw\ttab"}',
  String.raw`{"id":"junk","text":"x"} junk`,
  String.raw`{"id":"crlf","text":"crlf line"}` + '\r',
  String.raw`{"id":"comma","text":"trailing comma",}`,
  String.raw`["text","not an object"]`,
  String.raw`{"id":"kind","kind":"nope","text":"bad kind"}`,
  String.raw`{"id":"spans","text":"masked here","loss_mask_spans":[[0,6]]}`,
  String.raw`{"id":"special","text":"<|file_sep|>a","special_spans":[[0,12]]}`,
  String.raw`{"id":"repo","kind":"repo","text":"header\nfile a\nfile b\n","meta":{"boundaries":[7,14]}}`,
  String.raw`{"meta":{"note":"a \"text\":\"fake\" and a \\\" inside"},"id":"fake","text":"the real one"}`,
  String.raw`{"id":"deep","meta":{"a":[[["\\"]],{"b":"]}"}]},"text":"after nesting \\\" end"}`,
];

function job(lines: string[], textField?: string): LineBatchJob {
  const bytes = Buffer.from(lines.map((l) => l + '\n').join(''));
  return { bytes, lines: lines.length, firstLineNo: 1, file: 'docs.jsonl', name: 'docs.jsonl', textField };
}

test('line docs: a text read from its JSON literal gives the records, ledger messages, ids, ranges and masks of the text read as a string', async () => {
  const tokenizer = await loadTokenizer('qwen3', 'native', true, {});
  assert.ok(tokenizer.readsAsciiLiterals);
  const real = readFileSync(join(repoRoot, 'data-samples', 'docs', 'packages.jsonl'), 'utf8').split('\n').filter(Boolean);
  const renamed = (lines: string[]) => lines.map((l) => l.replace(/"text"(\s*):/g, '"content"$1:'));
  for (const [label, lines, textField] of [
    ['tricky lines', TRICKY, undefined],
    ['sample documents', real, undefined],
    ['--text-field content', renamed([...TRICKY, ...real.slice(0, 20)]), 'content'],
  ] as const) {
    const usual = docsOfLines(job([...lines], textField));
    const read = docsOfLines(job([...lines], textField), true);
    const emptied = (o: (typeof usual.outcomes)[number]) => ('doc' in o ? { doc: { ...o.doc, text: '' } } : o);
    assert.equal(read.records, usual.records, `${label}: records`);
    assert.deepEqual(read.outcomes.map(emptied), usual.outcomes.map(emptied), `${label}: outcomes`);
    const fromLiterals = read.docs.filter((_, i) => read.literals[i]).map((d) => d.id);
    if (label === 'sample documents') assert.ok(fromLiterals.length >= lines.length / 2, `${label}: ${fromLiterals.length} texts read from their literals`);
    else assert.deepEqual(fromLiterals.slice(0, 9), ['esc', 'spaced', 'bs1', 'bs2', 'docs.jsonl:5', 'crlf', 'repo', 'fake', 'deep'], `${label}: the texts read from their literals`);
    assert.equal(usual.literals.filter(Boolean).length, 0);
    const requests = read.docs.map((d, i) => (read.literals[i] ? { ...packRequest(d), asciiLiteral: read.literals[i] } : packRequest(d)));
    assert.deepEqual(encodeBatch(tokenizer, requests, true), encodeBatch(tokenizer, usual.docs.map(packRequest), true), `${label}: tokens`);
  }
});

test('line docs: a text read from its JSON literal tokenizes alike on a backend that needs it as a string', async () => {
  const native = await loadTokenizer('qwen3', 'native', true, {});
  const fast = await loadTokenizer('qwen3', 'fast', true, {});
  assert.equal(fast.readsAsciiLiterals, false);
  const read = docsOfLines(job(TRICKY), true);
  const requests = read.docs.map((d, i) => (read.literals[i] ? { ...packRequest(d), asciiLiteral: read.literals[i] } : packRequest(d)));
  assert.deepEqual(encodeBatch(fast, requests, true), encodeBatch(native, requests, true));
});
