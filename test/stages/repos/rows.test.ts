import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { docToJson } from '../../../src/doc/document.js';
import { parseRepoDocument } from '../../../src/stages/repos/index.js';
import { serialize, tempDir } from './helpers.js';
import { slow } from '../../helpers/tiers.js';

const FIXTURES = 'test/fixtures/repos';

/** What the Parquet fixtures hold (see make_parquet.py), by repository, in alphabetical order. */
const ALPHA = [
  { path: 'README.md', content: '# alpha\n\nUnicode: caf\u00e9 \u{1F600}\n' },
  { path: 'pkg/__init__.py', content: 'from .core import run\n' },
  { path: 'pkg/core.py', content: 'from pkg import helpers\n\ndef run():\n    return helpers.VALUE\n' },
  { path: 'pkg/helpers.py', content: 'VALUE = 42\n' },
];
const BETA = [
  { path: 'go.mod', content: 'module example.com/beta\n\ngo 1.21\n' },
  { path: 'main.go', content: 'package main\n\nimport "example.com/beta/util"\n\nfunc main() { util.Hello() }\n' },
  { path: 'util/util.go', content: 'package util\n\nimport "fmt"\n\nfunc Hello() { fmt.Println("hi <|file_sep|> not a marker") }\n' },
];

function byRepo(docs: Awaited<ReturnType<typeof serialize>>['docs']) {
  return Object.fromEntries(docs.map((d) => [d.meta.repo as string, parseRepoDocument(d).files.sort((a, b) => (a.path < b.path ? -1 : 1))]));
}

test('Parquet written by pyarrow with its defaults (snappy): rows of a repository spread over the file are grouped', async () => {
  const { docs, ctx } = await serialize([join(FIXTURES, 'rows-default.parquet')], { order: { dependency: 1 } });
  assert.deepEqual(byRepo(docs), { 'octo/alpha': ALPHA, 'octo/beta': BETA });
  const alpha = docs.find((d) => d.meta.repo === 'octo/alpha')!;
  const order = parseRepoDocument(alpha).files.map((f) => f.path);
  // pkg/__init__.py and pkg/core.py import each other (a cycle, broken alphabetically); helpers comes first.
  assert.deepEqual(order, ['README.md', 'pkg/helpers.py', 'pkg/__init__.py', 'pkg/core.py']);
  const beta = docs.find((d) => d.meta.repo === 'octo/beta')!;
  assert.equal(beta.special_spans!.length, 4, 'the marker inside util.go content is not a special span');
  assert.ok(ctx.ledger.balanced());
  assert.equal(ctx.ledger.recordsIn, 7);
});

test('Parquet with zstd, several row groups and binary content: invalid UTF-8 is counted, not replaced', async () => {
  const { docs, ctx } = await serialize([join(FIXTURES, 'rows-zstd.parquet')]);
  assert.deepEqual(byRepo(docs), { 'octo/alpha': ALPHA, 'octo/beta': BETA });
  assert.deepEqual(ctx.ledger.toJSON().dropped, { invalid_utf8: 1 });
  assert.match(ctx.ledger.toJSON().examples.invalid_utf8![0]!, /rows-zstd\.parquet: row 8: bad\.txt/);
  assert.ok(ctx.ledger.balanced());
});

test('JSONL rows over several files, with bad lines, and grouping through spill files gives the same bytes', slow, async () => {
  const dir = tempDir();
  const rows = (repo: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ repo_name: repo, path: `src/m${i}.py`, content: i ? `import src.m${i - 1}\nV${i} = ${i}\n` : 'V0 = 0\n' }));
  const all = [...rows('r/one', 30), ...rows('r/two', 20), ...rows('r/three', 10)];
  // Interleave the repositories and spread them over two files, one gzip-compressed.
  const mixed = all.map((r, i) => ({ r, k: (i * 7919) % all.length })).sort((a, b) => a.k - b.k).map((x) => x.r);
  const lines = mixed.map((r) => JSON.stringify(r));
  lines.splice(5, 0, '{not json');
  lines.splice(9, 0, JSON.stringify({ repo_name: 'r/one', path: 'no-content.py' }));
  lines.splice(12, 0, JSON.stringify({ repo_name: 'r/two', path: 'src/m3.py', content: 'duplicate\n' }));
  lines.splice(14, 0, JSON.stringify({ repo_name: 'r/two', path: '../escape.py', content: 'x\n' }));
  writeFileSync(join(dir, 'a.jsonl'), lines.slice(0, 30).join('\n') + '\n');
  writeFileSync(join(dir, 'b.jsonl.gz'), gzipSync(lines.slice(30).join('\n') + '\n'));
  const inputs = [join(dir, 'a.jsonl'), join(dir, 'b.jsonl.gz')];

  const inMemory = await serialize(inputs, { order: { dependency: 1 } });
  assert.deepEqual(inMemory.docs.map((d) => [d.meta.repo, d.meta.files]).sort(), [['r/one', 30], ['r/three', 10], ['r/two', 20]]);
  for (const d of inMemory.docs) {
    const files = parseRepoDocument(d).files;
    files.forEach((f, i) => assert.equal(f.path, `src/m${i}.py`, 'a chain of imports comes out in dependency order'));
  }
  const ledger = inMemory.ctx.ledger.toJSON();
  assert.deepEqual(ledger.dropped, { bad_path: 1, bad_row: 1, duplicate_path: 1, malformed_json: 1 });
  assert.equal(ledger.records_in, 64);
  assert.ok(inMemory.ctx.ledger.balanced());

  const work = tempDir();
  const spilled = await serialize(inputs, { order: { dependency: 1 }, groupMemoryBytes: 1000, workDir: work });
  assert.equal(spilled.docs.map(docToJson).join('\n'), inMemory.docs.map(docToJson).join('\n'));
  assert.deepEqual(spilled.ctx.ledger.toJSON(), ledger);
  assert.deepEqual(readdirSync(work), [], 'spill files are removed');
});

test('a corrupt Parquet file is counted with a message naming it, not a crash', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'broken.parquet'), 'PAR1 this is not parquet PAR1');
  const { docs, ctx } = await serialize([join(dir, 'broken.parquet')]);
  assert.equal(docs.length, 0);
  assert.deepEqual(ctx.ledger.toJSON().dropped, { corrupt_parquet: 1 });
  assert.match(ctx.ledger.toJSON().examples.corrupt_parquet![0]!, /broken\.parquet: .*cannot read Parquet/);
});

test('as a pipeline stage with token counts: markers inside content stay ordinary text when tokenized', slow, async () => {
  const { loadTokenizer } = await import('../../../src/tokenize/index.js');
  const { collect, defaultContext, fromArray } = await import('../../../src/core/stage.js');
  const { serializeReposStage } = await import('../../../src/stages/repos/index.js');
  const tokenizer = await loadTokenizer();
  const ctx = defaultContext({ seed: 7, log: () => {} });
  const upstream = { id: 'x', kind: 'text' as const, source: 'u', text: 'upstream', meta: {} };
  const stage = serializeReposStage([join(FIXTURES, 'rows-default.parquet')], { countTokens: (d) => tokenizer.encodeDoc(d).ids.length });
  const docs = await collect(stage(fromArray([upstream]), ctx));
  assert.deepEqual(docs[0], upstream);
  const beta = docs.find((d) => d.meta.repo === 'octo/beta')!;
  const ids = [...tokenizer.encodeDoc(beta).ids];
  const fileSep = tokenizer.specialId('<|file_sep|>')!;
  assert.equal(ids.filter((i) => i === fileSep).length, 3, 'one <|file_sep|> id per file, none from the content');
  assert.equal(ids.filter((i) => i === tokenizer.specialId('<|repo_name|>')).length, 1);
  const stats = ctx.stats.serialize_repos as { by_ordering: Record<string, { tokens: number }>; by_language: Record<string, { tokens?: number }> };
  const total = docs.slice(1).reduce((s, d) => s + tokenizer.encodeDoc(d).ids.length, 0);
  assert.equal(Object.values(stats.by_ordering).reduce((s, o) => s + o.tokens, 0), total);
  assert.equal(Object.values(stats.by_language).reduce((s, l) => s + (l.tokens ?? 0), 0), total);
});
