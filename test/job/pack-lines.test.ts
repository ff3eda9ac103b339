import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runPackJob, PACK_DEFAULTS } from '../../src/job/pack-job.js';
import { TokenizePool } from '../../src/tokenize/pool.js';
import { repoRoot } from '../helpers/paths.js';
import { slow } from '../helpers/tiers.js';

/**
 * Real documents (the sample packages' READMEs) and every kind of line a reader must count:
 * non-ASCII and astral characters, CRLF line ends, an escaped lone surrogate, bytes that are not
 * UTF-8, malformed JSON, blank lines (one of U+00A0 only), records without text or with empty
 * text, a bad kind, spans, a repository with boundaries, and a last line without its newline.
 */
function trickyCorpus(): Buffer {
  const real = readFileSync(join(repoRoot, 'data-samples', 'docs', 'packages.jsonl'), 'utf8').split('\n').filter(Boolean);
  const text = 'naïve café — 日本語 😀 \u{1F600}\r\nconst x = "É";\n';
  const lines: (string | Buffer)[] = [
    real[0]!,
    JSON.stringify({ id: 'unicode', kind: 'web', text, loss_mask_spans: [[0, 5]] }) + '\r',
    '{"id": "lone", "text": "a \\ud800 b"}',
    Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // {"t":"\xff\xfe"}
    '{"id": "broken", "text": "no closing brace"',
    '',
    '   \t',
    '\u00a0',
    JSON.stringify({ id: 'no-text', meta: {} }),
    JSON.stringify({ id: 'empty', text: '' }),
    JSON.stringify({ id: 'bad-kind', kind: 'nope', text: 'x' }),
    JSON.stringify({ id: 'bad-special', text: 'not a marker here', special_spans: [[0, 3]] }),
    repoLine(),
    ...real.slice(1),
  ];
  const bytes = Buffer.concat(lines.map((l) => Buffer.concat([typeof l === 'string' ? Buffer.from(l) : l, Buffer.from('\n')])));
  return Buffer.concat([bytes, Buffer.from(JSON.stringify({ id: 'last', text: 'the end, no newline' }))]);
}

/** A repository document: its markers as special spans, a boundary at each file. */
function repoLine(): string {
  const text = '<|repo_name|>r\n<|file_sep|>a.py\nprint("é")\n<|file_sep|>b.py\nprint(2)\n';
  const marks = [...text.matchAll(/<\|[a-z_]+\|>/g)].map((m): [number, number] => [m.index!, m.index! + m[0].length]);
  return JSON.stringify({ id: 'repo', kind: 'repo', text, special_spans: marks, meta: { boundaries: marks.slice(1).map(([a]) => a), language: 'Python' } });
}

/** The ledger as the manifest has it, with the input's name taken out of the messages. */
function ledgerOf(out: string, input: string): unknown {
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { ledger: unknown };
  return JSON.parse(JSON.stringify(manifest.ledger).split(input).join('INPUT'));
}

test('pack: JSONL read by the workers gives the bytes and the ledger of JSONL read on the main thread, on 1 and 2 workers', slow, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-pack-lines-'));
  const corpus = trickyCorpus();
  const plain = join(dir, 'docs.jsonl');
  const gz = join(dir, 'docs.jsonl.gz'); // compressed input is read on the main thread
  writeFileSync(plain, corpus);
  writeFileSync(gz, gzipSync(corpus));
  let byLines = 0;
  const mapLines = TokenizePool.prototype.mapLines;
  TokenizePool.prototype.mapLines = function (this: TokenizePool, ...args: Parameters<typeof mapLines>) {
    byLines++;
    return mapLines.apply(this, args);
  };
  try {
    const pack = async (input: string, workers: number) => {
      const out = join(dir, `out-${workers}-${input.endsWith('.gz') ? 'gz' : 'plain'}`);
      const s = await runPackJob({ ...PACK_DEFAULTS, inputs: [input], out, workers, forceWorkers: true, seqLen: 2048, chunkTokens: 3000 });
      return { fingerprint: s.manifest.shards_fingerprint, ledger: ledgerOf(out, input) };
    };
    const onMain = await pack(gz, 1);
    assert.equal(byLines, 0, 'a .jsonl.gz is read on the main thread');
    for (const workers of [1, 2]) {
      const inWorkers = await pack(plain, workers);
      assert.equal(byLines, workers, 'plain JSONL is read by the workers');
      assert.equal(inWorkers.fingerprint, onMain.fingerprint, `${workers} workers: the same shards`);
      assert.deepEqual(inWorkers.ledger, onMain.ledger, `${workers} workers: the same ledger`);
    }
    const ledger = onMain.ledger as { records_in: number; records_out: number; dropped: Record<string, number>; examples: Record<string, string[]> };
    assert.deepEqual(ledger.dropped, { bad_kind: 1, empty_text: 1, invalid_unicode: 1, invalid_utf8: 1, malformed_json: 1, missing_text: 1, tokenize_failed: 1 });
    assert.equal(ledger.records_in, ledger.records_out + 7);
    assert.match(ledger.examples.invalid_utf8![0]!, /^INPUT:4: line is not valid UTF-8$/);
    assert.match(ledger.examples.malformed_json![0]!, /^INPUT:5: /);
  } finally {
    TokenizePool.prototype.mapLines = mapLines;
  }
});
