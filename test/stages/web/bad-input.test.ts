import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fixtureDir, runWeb } from './helpers.js';
import { slow } from '../../helpers/tiers.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'midpack-web-'));
const paragraph = (i: number) => `<p>Paragraph ${i} explains, in plain words, how the parser keeps going when the markup is broken, and why that matters.</p>`;
const article = (n: number) => `<html><head><title>T</title></head><body><nav><a href="/">Home</a></nav><article>${Array.from({ length: n }, (_, i) => paragraph(i)).join('\n')}</article></body></html>`;

test('an HTML bomb (100k nested elements) is counted as too_deep, quickly and without a stack overflow', async () => {
  const dir = tmp();
  writeFileSync(join(dir, 'bomb.html'), '<html><body>' + '<div>'.repeat(100_000) + 'x' + '</span>'.repeat(100_000) + '</body></html>');
  writeFileSync(join(dir, 'bomb2.html'), '<html><body>' + '<div><b>'.repeat(50_000) + 'x</body></html>');
  const { docs, ctx } = await runWeb([dir]);
  assert.equal(docs.length, 0);
  assert.deepEqual(ctx.ledger.toJSON().dropped, { too_deep: 2 });
  assert.ok(ctx.ledger.balanced());
});

test('a 20 MB page is rewritten whole', slow, async () => {
  const dir = tmp();
  const n = Math.ceil((20 << 20) / paragraph(0).length);
  writeFileSync(join(dir, 'big.html'), article(n));
  const { docs, ctx } = await runWeb([dir]);
  assert.equal(docs.length, 1);
  assert.ok(ctx.ledger.balanced());
  const text = docs[0]!.text;
  assert.ok(text.includes(`Paragraph 0 explains`) && text.includes(`Paragraph ${n - 1} explains`));
  assert.ok(!text.includes('Home'), 'navigation is dropped');
});

test('broken markup still gives the text in order', async () => {
  const dir = tmp();
  writeFileSync(
    join(dir, 'broken.html'),
    '<html><body><div class="content"><p>First paragraph with enough words to count as real prose, truly.<p>Second <b>bold <i>nested</b> text</i> goes on and on, more words here.' +
      '<div>Unclosed division with a long sentence of text that keeps going for a while<table><tr><td>cell one<td>cell two</table>' +
      // Not &copy;: a short last paragraph with a "©" reads as the site's copyright line, which every pass trims.
      '<p>Third &amp; last &eacute; paragraph &#x263A; &unknown; <a href="x">link text</a> with more words to pass the limit of two hundred characters.',
  );
  const { docs } = await runWeb([dir]);
  assert.equal(docs.length, 1);
  const t = docs[0]!.text;
  const order = ['First paragraph', 'Second **bold *nested**', 'Unclosed division', 'Third & last é paragraph ☺ &unknown; link text'];
  let at = -1;
  for (const s of order) {
    const i = t.indexOf(s);
    assert.ok(i > at, `"${s}" in order in:\n${t}`);
    at = i;
  }
});

test('a page in windows-1251 declared by <meta charset> or http-equiv is decoded', async () => {
  const dir = tmp();
  const privet = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // "Привет" in windows-1251
  const body = (meta: string) =>
    Buffer.concat([Buffer.from(`<html><head>${meta}<title>x</title></head><body><article><p>`), privet, Buffer.from(' ' + 'word, '.repeat(60) + meta.length + '</p></article></body></html>')]);
  writeFileSync(join(dir, 'a.html'), body('<meta charset="windows-1251">'));
  writeFileSync(join(dir, 'b.html'), body('<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">'));
  const { docs } = await runWeb([dir], { minTextChars: 10 });
  assert.equal(docs.length, 2);
  for (const d of docs) {
    assert.ok(d.text.includes('Привет word'), d.text.slice(0, 80));
    assert.equal(d.meta.charset, 'windows-1251');
  }
});

test('a charset declared in the <head> after 1024 bytes of inserted scripts (an archived page) is used, not windows-1252', async () => {
  // From the multilingual set: a web archive puts its own scripts before the page's gb2312
  // declaration, and the Chinese text came out as "Ò»¸öÔ¼¶¨" (F1 0).
  const dir = tmp();
  const zhongwen = Buffer.from([0xd6, 0xd0, 0xce, 0xc4]); // "中文" in gb2312
  const archiveScripts = `<script type="text/javascript">${'var archive = 1; '.repeat(80)}</script>`;
  const head = `<html><head>${archiveScripts}<meta http-equiv="Content-Type" content="text/html; charset=gb2312"/><title>x</title></head>`;
  writeFileSync(join(dir, 'a.html'), Buffer.concat([Buffer.from(`${head}<body><article><p>`), zhongwen, Buffer.from(` ${'word, '.repeat(60)}</p></article></body></html>`)]));
  // A declaration in the body is not the page's: a quoted snippet of another page's head.
  writeFileSync(join(dir, 'b.html'), `<html><head>${archiveScripts}<title>y</title></head><body><article><p>été ${'mot, '.repeat(60)}</p><pre>&lt;meta charset="gb2312"&gt;</pre><!-- <meta charset="gb2312"> --></article></body></html>`);
  const { docs } = await runWeb([dir], { minTextChars: 10 });
  assert.equal(docs.length, 2);
  assert.ok(docs[0]!.text.includes('中文 word'), docs[0]!.text.slice(0, 80));
  assert.equal(docs[0]!.meta.charset, 'gbk');
  assert.ok(docs[1]!.text.includes('été mot'), docs[1]!.text.slice(0, 80));
  assert.equal(docs[1]!.meta.charset, 'utf-8');
});

function warcRecord(type: string, uri: string, block: Buffer): Buffer {
  const head = `WARC/1.0\r\nWARC-Type: ${type}\r\nWARC-Target-URI: ${uri}\r\nWARC-Record-ID: <urn:uuid:${uri.length}>\r\nContent-Length: ${block.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), block, Buffer.from('\r\n\r\n')]);
}

function httpResponse(html: string, contentType = 'text/html; charset=utf-8'): Buffer {
  return Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: ${contentType}\r\n\r\n${html}`);
}

test('WARC: response records become pages, other records are skipped, a truncated record is counted (plain and gzip)', async () => {
  const dir = tmp();
  const records = [
    warcRecord('warcinfo', 'x', Buffer.from('software: test\r\n')),
    warcRecord('request', 'https://example.org/a', Buffer.from('GET /a HTTP/1.1\r\n\r\n')),
    warcRecord('response', 'https://example.org/a', httpResponse(article(5))),
    warcRecord('response', 'https://example.org/logo.png', httpResponse('\x89PNG', 'image/png')),
  ];
  const truncated = warcRecord('response', 'https://example.org/b', httpResponse(article(6))).subarray(0, 300);
  writeFileSync(join(dir, 'plain.warc'), Buffer.concat([...records, truncated]));
  // Per-record gzip members, the last one cut short.
  const gz = Buffer.concat([...records.map((r) => gzipSync(r)), gzipSync(warcRecord('response', 'https://example.org/c', httpResponse(article(7)))).subarray(0, 100)]);
  writeFileSync(join(dir, 'z.warc.gz'), gz);
  const { docs, ctx } = await runWeb([join(dir, 'plain.warc'), join(dir, 'z.warc.gz')], { dedupWindow: 10 });
  const j = ctx.ledger.toJSON();
  assert.equal(j.records_in, 6);
  assert.deepEqual(j.dropped, { duplicate: 1, not_text: 2, truncated_warc_record: 2 });
  assert.equal(docs.length, 1);
  assert.equal(docs[0]!.source, 'https://example.org/a');
  assert.equal(docs[0]!.meta.url, 'https://example.org/a');
  assert.ok(ctx.ledger.balanced());
});

test('JSONL input: html and url fields; records without html are counted', async () => {
  const dir = tmp();
  const lines = [JSON.stringify({ url: 'https://example.org/p', html: article(4) }), JSON.stringify({ text: 'no html' }), '{not json'];
  writeFileSync(join(dir, 'pages.jsonl'), lines.join('\n') + '\n');
  const { docs, ctx } = await runWeb([dir]);
  assert.equal(docs.length, 1);
  assert.equal(docs[0]!.source, 'https://example.org/p');
  assert.deepEqual(ctx.ledger.toJSON().dropped, { malformed_json: 1, missing_html: 1 });
  assert.ok(ctx.ledger.balanced());
});

test('pages without enough text are counted as too_little_text; the fixture license note is not a page', async () => {
  const dir = tmp();
  writeFileSync(join(dir, 'short.html'), '<html><body><p>Too short.</p></body></html>');
  writeFileSync(join(dir, 'binary.html'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]));
  const { ctx } = await runWeb([dir]);
  assert.deepEqual(ctx.ledger.toJSON().dropped, { not_text: 1, too_little_text: 1 });
  assert.ok(readFileSync(join(fixtureDir, 'python-docs', 'README.md'), 'utf8').includes('PSF'));
});

test('a text page with a few stray NULs past its head is rewritten without them; NULs in the first bytes still mean binary', async () => {
  const dir = tmp();
  const prose = '<p>' + 'A paragraph of ordinary article text, with commas, that goes on for a while. '.repeat(12) + '</p>';
  const filler = '<!-- ' + 'x'.repeat(5000) + ' -->';
  writeFileSync(join(dir, 'stray.html'), `<html><body>${filler}<article>${prose}<p>Broken\u0000\u0000 field.</p>${prose}</article></body></html>`);
  writeFileSync(join(dir, 'early.html'), `<html>\u0000<body><article>${prose}</article></body></html>`);
  const { docs, ctx } = await runWeb([dir]);
  assert.equal(docs.length, 1);
  assert.ok(!docs[0]!.text.includes('\u0000') && docs[0]!.text.includes('Broken field.'));
  assert.deepEqual(ctx.ledger.toJSON().dropped, { not_text: 1 });
});
