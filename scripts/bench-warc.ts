/**
 * Our WARC reader against webrecorder's warcio (npm) on the same WARC files:
 *   npm run bench:warc
 * Builds WARCs from the readability test pages (plain, and gzip per record as crawlers write
 * them), reads every response block with both readers, and reports records/s and MB/s within one
 * run. Then the faults: a Content-Length too long or too short on one record, a truncated
 * gzip member: how many of the other records each reader still returns, and whether it throws.
 */
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { readWarc } from '../src/stages/web/warc.js';

const dir = process.argv[2] ?? ['../shared/data/readability-test-pages', '/work/shared/data/readability-test-pages'].find((d) => existsSync(d));
if (!dir) throw new Error('usage: bench-warc DIR (a folder of page folders with source.html)');
const pages = readdirSync(dir).filter((d) => existsSync(join(dir, d, 'source.html'))).sort().map((d) => ({ uri: `https://pages.example/${d}`, html: readFileSync(join(dir, d, 'source.html')) }));

function record(uri: string, html: Buffer, lengthDelta = 0): Buffer {
  const block = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n'), html]);
  const head = `WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: ${uri}\r\nWARC-Record-ID: <urn:uuid:${uri.length}-${html.length}>\r\nContent-Length: ${block.length + lengthDelta}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), block, Buffer.from('\r\n\r\n')]);
}

const work = mkdtempSync(join(tmpdir(), 'midpack-bench-warc-'));
const write = (name: string, records: Buffer[], gzip: boolean) => {
  const file = join(work, name);
  writeFileSync(file, gzip ? Buffer.concat(records.map((r) => gzipSync(r))) : Buffer.concat(records));
  return file;
};
const ROUNDS = 4; // the 130 pages 4 times over: a WARC of about 100 MB
const all = Array.from({ length: ROUNDS }, (_, r) => pages.map((p) => record(`${p.uri}?r=${r}`, p.html))).flat();

async function ours(file: string): Promise<{ records: number; bytes: number; error?: string }> {
  let records = 0;
  let bytes = 0;
  for await (const item of readWarc(file, 64 << 20)) {
    if (item.kind !== 'record') continue;
    records++;
    bytes += item.record.blockBytes;
  }
  return { records, bytes };
}

async function warcio(file: string): Promise<{ records: number; bytes: number; error?: string }> {
  let records = 0;
  let bytes = 0;
  try {
    for await (const rec of WARCParser.iterRecords(createReadStream(file))) {
      if (rec.warcType !== 'response') continue;
      bytes += (await rec.readFully(false)).length;
      records++;
    }
  } catch (e) {
    return { records, bytes, error: (e as Error).message.slice(0, 80) };
  }
  return { records, bytes };
}

async function timed(name: string, file: string, read: typeof ours): Promise<number> {
  await read(file); // warm-up
  const t0 = performance.now();
  const r = await read(file);
  const s = (performance.now() - t0) / 1000;
  const mb = statSync(file).size / 1e6;
  console.log(`  ${name.padEnd(8)} ${String(r.records).padStart(5)} records  ${(r.records / s).toFixed(0).padStart(6)} records/s  ${(mb / s).toFixed(1).padStart(6)} MB/s (file)`);
  return s;
}

for (const gzip of [false, true]) {
  const file = write(gzip ? 'all.warc.gz' : 'all.warc', all, gzip);
  console.log(`${gzip ? 'gzip per record' : 'plain'}: ${all.length} records, ${(statSync(file).size / 1e6).toFixed(1)} MB`);
  const a = await timed('midpack', file, ours);
  const b = await timed('warcio', file, warcio);
  console.log(`  midpack / warcio time ratio ${(a / b).toFixed(3)}`);
}

console.log('faults (one bad record among the 130 pages; records the reader still returns):');
const faults: [string, Buffer[]][] = [
  ['Content-Length +700', pages.map((p, i) => record(p.uri, p.html, i === 10 ? 700 : 0))],
  ['Content-Length -300', pages.map((p, i) => record(p.uri, p.html, i === 10 ? -300 : 0))],
];
for (const [name, records] of faults) {
  for (const gzip of [false, true]) {
    const file = write(`fault.warc${gzip ? '.gz' : ''}`, records, gzip);
    const [o, w] = [await ours(file), await warcio(file)];
    const show = (r: Awaited<ReturnType<typeof ours>>) => `${r.records}${r.error ? ` (threw: ${r.error})` : ''}`;
    console.log(`  ${name.padEnd(20)} ${gzip ? 'gzip ' : 'plain'}  midpack ${show(o)}  warcio ${show(w)}`);
  }
}
const cut = Buffer.concat(pages.map((p) => gzipSync(record(p.uri, p.html))));
const truncFile = join(work, 'cut.warc.gz');
writeFileSync(truncFile, cut.subarray(0, Math.floor(cut.length * 0.5)));
const [o, w] = [await ours(truncFile), await warcio(truncFile)];
console.log(`  truncated gzip (half the file)  midpack ${o.records}${o.error ?? ''}  warcio ${w.records}${w.error ? ` (threw: ${w.error})` : ''}`);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
rmSync(work, { recursive: true, force: true });
