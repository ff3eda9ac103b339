import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { register } from '../../../src/cli/commands/mask.js';
import { readCountsHeader, SAMPLE_CHARS } from '../../../src/stages/mask/index.js';

const tmp = mkdtempSync(join(tmpdir(), 'midpack-mask-cli-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

async function midpack(...args: string[]): Promise<void> {
  const program = new Command().exitOverride();
  register(program);
  process.exitCode = 0;
  await program.parseAsync(['node', 'midpack', ...args]);
  const code = process.exitCode;
  process.exitCode = 0;
  assert.equal(code, 0, `midpack ${args.join(' ')} failed`);
}

test('mask count, merge and apply from the command line, with manifests that balance', async () => {
  // Real files as two ranks' inputs: three packages with the same MIT license text, and a source file.
  const files = ['node_modules/ansi-regex/license', 'node_modules/commander/index.js', 'node_modules/ansi-styles/license', 'node_modules/escalade/license'];
  const docs = files.map((f, i) => JSON.stringify({ id: `d${i}`, kind: 'text', source: f, text: readFileSync(f, 'utf8') }));
  writeFileSync(join(tmp, 'a.jsonl'), [docs[0], docs[1], 'not json'].join('\n') + '\n');
  writeFileSync(join(tmp, 'b.jsonl'), [docs[2], docs[3]].join('\n') + '\n');
  const a = join(tmp, 'a.counts');
  const b = join(tmp, 'b.counts');
  const all = join(tmp, 'all.counts');
  await midpack('mask', 'count', join(tmp, 'a.jsonl'), '--out', a, '--quiet');
  await midpack('mask', 'count', join(tmp, 'b.jsonl'), '--out', b, '--quiet');
  await midpack('mask', 'merge', a, b, '--out', all);
  assert.equal(readCountsHeader(all).documents, 4);
  const countManifest = JSON.parse(readFileSync(`${a}.manifest.json`, 'utf8'));
  assert.deepEqual(countManifest.ledger.dropped, { malformed_json: 1 });
  assert.equal(countManifest.ledger.records_in, 3);
  assert.equal(countManifest.ledger.records_out, 2);

  const out = join(tmp, 'masked.jsonl');
  await midpack('mask', 'apply', join(tmp, 'a.jsonl'), join(tmp, 'b.jsonl'), '--counts', all, '--out', out, '--min-docs', '3', '--min-frac', '0', '--quiet');
  const masked = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(masked.length, 4);
  // The MIT license text the three packages share is masked in each of them; their own copyright line is not.
  const licenseLine = readFileSync(files[0]!, 'utf8').split('\n').find((l) => l.startsWith('THE SOFTWARE IS PROVIDED'))!;
  for (const d of [masked[0], masked[2], masked[3]]) {
    const spans: [number, number][] = d.loss_mask_spans;
    const at = d.text.indexOf(licenseLine);
    assert.ok(at >= 0 && spans.some(([s, e]) => s <= at && at + licenseLine.length < e), `${d.source}: license line masked`);
    const copyright = d.text.indexOf('Copyright');
    assert.ok(!spans.some(([s, e]) => s <= copyright && copyright < e), `${d.source}: copyright line kept`);
  }
  assert.equal(masked[1].loss_mask_spans, undefined);
  const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'));
  assert.equal(manifest.stats.mask.threshold_docs, 3);
  assert.equal(manifest.ledger.records_in, manifest.ledger.records_out + 1);
  assert.ok(manifest.stats.mask.top_segments.some((t: { text: string }) => t.text === licenseLine.slice(0, SAMPLE_CHARS)));
});
