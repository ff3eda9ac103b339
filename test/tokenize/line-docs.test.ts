import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docsOfLines, type LineBatchJob } from '../../src/tokenize/line-docs.js';
import { encodeBatch } from '../../src/tokenize/batch.js';
import { packRequest } from '../../src/tokenize/encode.js';
import { loadTokenizer } from '../../src/tokenize/tokenizer.js';
import { repoRoot } from '../helpers/paths.js';
import { nativeBinding } from '../../src/pack/packer.js';
import { pageText, samplePages, webSetPages } from '../helpers/web-pages.js';

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
    // A document read from an ASCII literal has an empty text (the tokenizer reads the literal); any other, its whole text.
    const fromLiteral = new Set(read.docs.filter((_, i) => read.literals[i]));
    const emptied = (o: (typeof usual.outcomes)[number], k: number) => {
      const r = read.outcomes[k];
      return 'doc' in o && r && 'doc' in r && fromLiteral.has(r.doc) ? { doc: { ...o.doc, text: '' } } : o;
    };
    assert.equal(read.records, usual.records, `${label}: records`);
    assert.deepEqual(read.outcomes, usual.outcomes.map(emptied), `${label}: outcomes`);
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

/** A JSONL line of raw bytes: a record whose text literal holds `literal` as it is (not escaped, not re-encoded). */
function rawLine(id: string, literal: Buffer, rest = ''): Buffer {
  return Buffer.concat([Buffer.from(`{"id":${JSON.stringify(id)},"text":"`), literal, Buffer.from(`"${rest}}`)]);
}

test('line docs: a text that is not ASCII, or has spans, is read from its literal as JSON.parse of the decoded line reads it; bytes a fatal decoder refuses are read the usual way', () => {
  const bytes = (...xs: number[]) => Buffer.from(xs);
  const lines: Buffer[] = [
    rawLine('latin1', Buffer.from('café, naïve, ©')),
    rawLine('bmp', Buffer.from('数据 — “quoted” → ok')),
    rawLine('astral', Buffer.from('emoji 😀 and 𝔘')),
    rawLine('escapes', Buffer.from(String.raw`pair \ud83d\ude00, \u00e9, tab\t, quote \" é`)),
    rawLine('lone-escape', Buffer.from(String.raw`a lone \udc00 one é`)),
    rawLine('spans', Buffer.from('masked é here'), ',"loss_mask_spans":[[0,6]]'),
    rawLine('ascii-spans', Buffer.from('masked here'), ',"loss_mask_spans":[[0,6]]'),
    rawLine('special', Buffer.from('<|file_sep|>é'), ',"special_spans":[[0,12]]'),
    rawLine('overlong', Buffer.concat([Buffer.from('a '), bytes(0xc0, 0xaf), Buffer.from(' é')])),
    rawLine('surrogate-utf8', Buffer.concat([Buffer.from('é '), bytes(0xed, 0xa0, 0x80)])),
    rawLine('f8-lead', Buffer.concat([Buffer.from('é '), bytes(0xf8, 0x90, 0x80, 0x80)])),
    rawLine('past-10ffff', Buffer.concat([Buffer.from('é '), bytes(0xf4, 0x90, 0x80, 0x80)])),
    rawLine('truncated', Buffer.concat([Buffer.from('é '), bytes(0xe2, 0x82)])),
    rawLine('continuation', Buffer.concat([Buffer.from('é '), bytes(0x80)])),
    rawLine('control', Buffer.concat([Buffer.from('é '), bytes(0x01), Buffer.from(' x')])),
    rawLine('bad-escape', Buffer.from(String.raw`é \x`)),
    Buffer.concat([rawLine('crlf', Buffer.from('crlf é')), bytes(0x0d)]),
  ];
  const data = Buffer.concat(lines.flatMap((l) => [l, bytes(0x0a)]));
  const lineJob: LineBatchJob = { bytes: data, lines: lines.length, firstLineNo: 1, file: 'raw.jsonl', name: 'raw.jsonl' };
  const usual = docsOfLines(lineJob);
  const read = docsOfLines(lineJob, true);
  assert.equal(read.records, usual.records);
  assert.deepEqual(read.outcomes, usual.outcomes, 'the same documents, texts and drops (messages too)');
  const drops = usual.outcomes.filter((o) => 'drop' in o).map((o) => (o as { drop: string }).drop);
  assert.deepEqual(drops, ['invalid_unicode', 'invalid_utf8', 'invalid_utf8', 'invalid_utf8', 'invalid_utf8', 'invalid_utf8', 'invalid_utf8', 'malformed_json', 'malformed_json'], 'what a fatal decoder refuses and what JSON does not allow are dropped');
  assert.equal(read.literals.filter(Boolean).length, 0, 'no ASCII literal among them');
  // The native reader itself on every line: the text JSON.parse of the decoded line gives, or undefined where that fails.
  const native = nativeBinding();
  const at = new Float64Array(2);
  const textOf = (line: Buffer): string | undefined => {
    at.fill(-1);
    native.jsonAsciiText(line, 'text', at);
    return native.jsonTextString!(line, at[0]!, at[1]!);
  };
  for (const line of lines.slice(0, -1)) {
    let want: string | undefined;
    try {
      want = (JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(line)) as { text: string }).text;
    } catch {
      want = undefined;
    }
    assert.equal(textOf(line), want, line.toString('latin1'));
  }
  // Real texts: the sample documents, and a seeded sample of both web sets' pages (multilingual) written as JSON lines.
  const real = readFileSync(join(repoRoot, 'data-samples', 'docs', 'packages.jsonl'), 'utf8').split('\n').filter(Boolean);
  const pages = webSetPages();
  const texts = [...real.map((l) => (JSON.parse(l) as { text: string }).text), ...(pages ? pages.flatMap((set) => samplePages(set, 40, 11)).map(pageText) : [])];
  assert.ok(texts.filter((t) => /[^\x00-\x7f]/.test(t)).length >= (pages ? 40 : 5), 'texts beyond ASCII among them');
  for (const text of texts) assert.equal(textOf(Buffer.from(JSON.stringify({ id: 'p', text }))), text);
});
