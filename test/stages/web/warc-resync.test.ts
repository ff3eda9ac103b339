import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fixtureDir, devSetDir, runWeb } from './helpers.js';

/** Real pages: the Python docs fixtures and, when present, pages of the Readability test set. */
function realPages(): { uri: string; html: string }[] {
  const pages = ['json.html', 'datastructures.html'].map((f) => ({ uri: `https://docs.python.org/3/${f}`, html: readFileSync(join(fixtureDir, 'python-docs', f), 'utf8') }));
  if (devSetDir) {
    for (const d of readdirSync(devSetDir).sort().slice(0, 4)) pages.push({ uri: `https://readability.example/${d}`, html: readFileSync(join(devSetDir, d, 'source.html'), 'utf8') });
  }
  return pages;
}

/** One WARC response record; `lengthDelta` makes its Content-Length wrong by that many bytes. */
function record(uri: string, html: string, lengthDelta = 0): Buffer {
  const block = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}`);
  const head = `WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: ${uri}\r\nWARC-Record-ID: <urn:uuid:${uri.length}-${html.length}>\r\nContent-Length: ${block.length + lengthDelta}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), block, Buffer.from('\r\n\r\n')]);
}

for (const [name, delta] of [
  ['too long (runs into the next record)', 700],
  ['too short (stops inside its block)', -300],
] as const) {
  for (const gzip of [false, true]) {
    test(`WARC: a Content-Length ${name} costs its record alone (${gzip ? 'gzip per record' : 'plain'})`, async () => {
      const pages = realPages();
      const broken = 1;
      const records = pages.map((p, i) => record(p.uri, p.html, i === broken ? delta : 0));
      const dir = mkdtempSync(join(tmpdir(), 'midpack-warc-'));
      const file = join(dir, gzip ? 'crawl.warc.gz' : 'crawl.warc');
      writeFileSync(file, gzip ? Buffer.concat(records.map((r) => gzipSync(r))) : Buffer.concat(records));
      const { docs, ctx } = await runWeb([file], { minTextChars: 50, dedupWindow: 100 });
      const expected = pages.filter((_, i) => i !== broken).map((p) => p.uri);
      assert.deepEqual(docs.map((d) => d.meta.url), expected, 'every record after the broken one is read');
      const ledger = ctx.ledger.toJSON();
      assert.deepEqual(ledger.dropped, { broken_warc_record: 1 });
      assert.match(ledger.examples.broken_warc_record![0]!, new RegExp(`crawl\\.warc.*record ${broken}: Content-Length`));
      assert.ok(ctx.ledger.balanced());
    });
  }
}
