import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docToJson } from '../../../src/doc/document.js';
import { SPECIAL } from '../../../src/doc/specials.js';
import { parseRepoDocument } from '../../../src/stages/repos/index.js';
import { serialize } from './helpers.js';

// Real installed packages: each folder under node_modules is one repository.
const REAL = ['node_modules/commander', 'node_modules/yaml', 'node_modules/p-limit', 'node_modules/fzstd'];

for (const ordering of ['alpha', 'dependency', 'random'] as const) {
  test(`round trip (${ordering}): every kept file of real packages parses back byte-identical`, async () => {
    const { docs, ctx } = await serialize(REAL, { order: { [ordering]: 1 }, layout: 'repo' });
    assert.equal(docs.length, REAL.length);
    let files = 0;
    docs.forEach((doc, i) => {
      assert.equal(doc.kind, 'repo');
      assert.equal(doc.meta.ordering, ordering);
      const parsed = parseRepoDocument(doc);
      assert.equal(parsed.repo, REAL[i]!.split('/')[1]);
      assert.equal(parsed.files.length, doc.meta.files);
      for (const f of parsed.files) {
        assert.ok(!f.path.startsWith('/') && !f.path.includes('\\'), `relative /-separated path: ${f.path}`);
        assert.ok(readFileSync(join(REAL[i]!, f.path)).equals(Buffer.from(f.content)), `${REAL[i]}/${f.path} is byte-identical`);
      }
      // Only the stage's markers are special: one <|repo_name|> and one <|file_sep|> per file.
      assert.equal(doc.special_spans!.length, parsed.files.length + 1);
      assert.deepEqual(doc.meta.boundaries, doc.special_spans!.slice(1).map(([a]) => a));
      assert.equal(doc.text.slice(0, (doc.meta.boundaries as number[])[0]), `${SPECIAL.repoName}${parsed.repo}\n`);
      files += parsed.files.length;
    });
    assert.ok(files > 100, `a real amount of files (${files})`);
    assert.equal(ctx.ledger.recordsOut, files);
    assert.ok(ctx.ledger.balanced(), JSON.stringify(ctx.ledger.toJSON().dropped));
  });
}

test('orderings differ, and a rerun writes identical bytes with the same ids', async () => {
  const run = async (seed: number) => (await serialize(REAL, { layout: 'repo' }, seed)).docs.map(docToJson).join('\n');
  const a = await run(11);
  assert.equal(await run(11), a);
  const alpha = (await serialize(['node_modules/yaml'], { order: { alpha: 1 } })).docs[0]!;
  const random = (await serialize(['node_modules/yaml'], { order: { random: 1 } })).docs[0]!;
  const dependency = (await serialize(['node_modules/yaml'], { order: { dependency: 1 } })).docs[0]!;
  const paths = (d: typeof alpha) => parseRepoDocument(d).files.map((f) => f.path);
  assert.deepEqual(paths(alpha), [...paths(alpha)].sort());
  assert.notDeepEqual(paths(random), paths(alpha));
  assert.notDeepEqual(paths(dependency), paths(alpha));
  assert.deepEqual([...paths(random)].sort(), paths(alpha));
  assert.equal(alpha.id, random.id, 'the id derives from the seed and the repository, not the ordering');
});

test('a folder of repositories: node_modules as a collection, per-repository metadata and stats', async () => {
  const { docs, ctx } = await serialize(['node_modules'], { layout: 'collection', minFiles: 2 });
  assert.ok(docs.length > 20);
  const names = docs.map((d) => d.meta.repo as string);
  assert.deepEqual(names, [...names].sort(), 'repositories in sorted folder order');
  const yaml = docs.find((d) => d.meta.repo === 'yaml')!;
  assert.equal(yaml.source, 'yaml');
  assert.ok((yaml.meta.languages as Record<string, number>).JavaScript! > 10);
  assert.equal(yaml.meta.language, 'JavaScript', "Linguist's name");
  const ledger = ctx.ledger.toJSON();
  assert.ok(ledger.dropped.vendored! > 0, 'nested node_modules are vendored');
  assert.ok(ledger.dropped.generated! > 0, 'source maps and generated parsers are dropped');
  // A package over --max-doc-chars (typescript) is several documents: repositories count once.
  const repos = new Set(names).size;
  assert.equal(ledger.produced.repos, repos);
  assert.equal(repos + (ledger.produced.repo_parts ?? 0) - docs.filter((d) => d.meta.part === 1).length, docs.length);
  assert.ok(ctx.ledger.balanced());
  const stats = ctx.stats.serialize_repos as { repos: number; by_ordering: Record<string, { documents: number }> };
  assert.equal(stats.repos, repos);
  assert.equal(Object.values(stats.by_ordering).reduce((s, o) => s + o.documents, 0), docs.length);
});

test('directory-tree header: listed after the repository name, part of the header, parsed back', async () => {
  const { docs } = await serialize(['node_modules/p-limit'], { treeRate: 1, order: { alpha: 1 } });
  const doc = docs[0]!;
  assert.equal(doc.meta.tree, true);
  const parsed = parseRepoDocument(doc);
  const header = doc.text.slice(0, (doc.meta.boundaries as number[])[0]);
  assert.equal(header, `${SPECIAL.repoName}p-limit\n${parsed.tree}\n`);
  assert.match(parsed.tree!, /^\.\n(├|└)── /);
  for (const f of parsed.files) assert.ok(parsed.tree!.includes(f.path.split('/').pop()!));
});
