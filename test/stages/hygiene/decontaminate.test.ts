import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { collect, defaultContext, fromArray } from '../../../src/core/stage.js';
import { Rng } from '../../../src/core/random.js';
import type { Doc } from '../../../src/doc/document.js';
import { formatRepoDocument, parseRepoDocument } from '../../../src/stages/repos/format.js';
import { readBenchmarkItems } from '../../../src/stages/hygiene/benchmarks.js';
import { decontaminateStage, findContamination, loadBenchmarks, resolveDecontaminateOptions, type ContaminationHit } from '../../../src/stages/hygiene/decontaminate.js';
import { repoRoot } from '../../helpers/paths.js';
import { HUMANEVAL, pythonFiles, STDLIB } from './helpers.js';

const options = resolveDecontaminateOptions({ benchmarks: [`${HUMANEVAL}:prompt,canonical_solution,test`] });

async function humanEval(): Promise<Record<string, string>[]> {
  const rows: Record<string, string>[] = [];
  for await (const it of readBenchmarkItems(`${HUMANEVAL}:prompt,canonical_solution`)) rows.push({ name: it.name, text: it.text });
  return rows;
}

/** Renames the function and its parameters and every local name of at least 3 letters the solution assigns. */
function renameVariables(code: string): string {
  const names = new Set<string>();
  for (const m of code.matchAll(/def (\w+)\(([^)]*)\)/g)) {
    names.add(m[1]!);
    for (const p of m[2]!.split(',')) names.add(p.split(':')[0]!.trim());
  }
  for (const m of code.matchAll(/^\s*(?:for )?([a-z_]\w{2,})(?:, *\w+)? *(?:=|in )/gm)) names.add(m[1]!);
  let out = code;
  for (const n of [...names].filter((n) => n.length >= 1)) out = out.replace(new RegExp(`\\b${n}\\b`, 'g'), `${n}_v2`);
  return out;
}

const reformat = (code: string) => code.replace(/^( {4})+/gm, (s) => '  '.repeat(s.length / 4)).replace(/([=<>+*-])/g, ' $1 ').replace(/\n/g, '\n\n');

function plant(host: string, snippet: string): string {
  const lines = host.split('\n');
  const at = Math.floor(lines.length / 2);
  return [...lines.slice(0, at), '', snippet, ...lines.slice(at)].join('\n');
}

test('HumanEval solutions planted in real code are found: verbatim, with changed whitespace, with renamed variables', async () => {
  const index = await loadBenchmarks(options);
  assert.equal(index.items.length, 164);
  const host = readFileSync(join(STDLIB, 'textwrap.py'), 'utf8');
  assert.deepEqual(findContamination(host, index, 0), [], 'the host file alone is clean');
  const rows = await humanEval();
  const rng = new Rng(0, 'plant');
  // A one-line item (HumanEval/23 is `return len(string)` under a two-line docstring) renamed
  // throughout has too few words left to tell from ordinary code; renamed copies are checked
  // on items of 80 words or more (92 of the 164).
  const sizable = rows.filter((r) => (r.text.match(/\w+/g) ?? []).length >= 80);
  assert.ok(sizable.length >= 90, `${sizable.length} items of 80 words or more`);
  const picked = rng.shuffle([...sizable]).slice(0, 30);
  for (const row of picked) {
    for (const [how, snippet] of [
      ['verbatim', row.text],
      ['whitespace', reformat(row.text)],
      ['renamed', renameVariables(row.text)],
    ] as const) {
      const hits = findContamination(plant(host, snippet!), index, 0);
      assert.ok(hits.some((h) => h.benchmark_item === row.name), `${row.name} ${how}: found`);
      assert.ok(hits.every((h) => h.matched.length > 0 && plant(host, snippet!).includes(h.matched)));
    }
  }
  // Without its docstring, a renamed solution is found by the long-run method alone when it is long enough.
  const long = rows.filter((r) => r.text.split('"""').pop()!.length > 400).slice(0, 10);
  let found = 0;
  for (const row of long) {
    const code = renameVariables(row.text.replace(/"""[\s\S]*?"""/, ''));
    if (findContamination(plant(host, code), index, 0).some((h) => h.benchmark_item === row.name && h.method === 'substring')) found++;
  }
  assert.ok(found >= long.length * 0.8, `${found} of ${long.length} renamed solutions without docstring found`);
});

test('clean real code (the Python standard library, node_modules) has hits in at most 0.1% of files', async () => {
  const index = await loadBenchmarks(options);
  const py = pythonFiles(STDLIB).slice(0, 400);
  const js = ['commander/lib', 'yaml/dist', 'semver/classes', 'semver/functions', 'debug/src', 'p-limit', 'hyparquet/src'].flatMap((d) =>
    readdirSync(resolve(repoRoot, 'node_modules', d)).filter((f) => /\.(js|ts)$/.test(f)).map((f) => resolve(repoRoot, 'node_modules', d, f)),
  );
  const files = [...py, ...js];
  assert.ok(files.length >= 450, `${files.length} files`);
  const hit = files.filter((f) => findContamination(readFileSync(f, 'utf8'), index, 0).length > 0);
  assert.ok(hit.length <= files.length * 0.001, `hits in ${hit.join(', ')}`);
});

test('in a repository document only the contaminated file is dropped or masked, and every hit is reported', async () => {
  const index = await loadBenchmarks(options);
  const row = (await humanEval())[7]!;
  const files = ['textwrap.py', 'colorsys.py', 'bisect.py'].map((f) => ({ path: `lib/${f}`, content: readFileSync(join(STDLIB, f), 'utf8') }));
  files[1] = { ...files[1]!, content: plant(files[1]!.content, row.text) };
  const r = formatRepoDocument('python/lib', files);
  const doc: Doc = { id: 'repo1', kind: 'repo', source: 'python/lib', text: r.text, meta: { files: 3, boundaries: r.boundaries }, special_spans: r.special_spans };
  const clean: Doc = { id: 'clean', kind: 'text', source: 'x', text: files[0]!.content, meta: {} };
  const solo: Doc = { id: 'solo', kind: 'text', source: 'y', text: files[1]!.content, meta: {} };

  const hits: ContaminationHit[] = [];
  const ctx = defaultContext({ log: () => {} });
  const out = await collect(decontaminateStage(options, index, (h) => hits.push(h))(fromArray([doc, clean, solo]), ctx));
  assert.deepEqual(out.map((d) => d.id), ['repo1', 'clean']);
  assert.deepEqual(parseRepoDocument(out[0]!).files, [files[0], files[2]]);
  assert.deepEqual(out[0]!.meta.boundaries, formatRepoDocument('python/lib', [files[0]!, files[2]!]).boundaries);
  assert.deepEqual(ctx.ledger.toJSON().dropped, { contaminated: 1 });
  assert.ok(hits.some((h) => h.document === 'repo1' && h.file === 'lib/colorsys.py' && h.benchmark_item === row.name && h.matched.length > 20));
  assert.ok(hits.some((h) => h.document === 'solo' && h.file === undefined));
  const s = ctx.stats.decontaminate as { hits_by_benchmark: Record<string, number>; files_removed: number };
  assert.equal(s.files_removed, 1);
  assert.equal(Object.values(s.hits_by_benchmark).reduce((a, b) => a + b, 0), hits.length);

  const masked = await collect(decontaminateStage({ ...options, action: 'mask' }, index)(fromArray([doc]), defaultContext({ log: () => {} })));
  assert.equal(masked[0]!.text, doc.text);
  const [a, b] = masked[0]!.loss_mask_spans![0]!;
  assert.equal(masked[0]!.text.slice(a, b), files[1]!.content);
});
