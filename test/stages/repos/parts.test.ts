import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SPECIAL } from '../../../src/doc/specials.js';
import { parseRepoDocument } from '../../../src/stages/repos/index.js';
import { serialize } from './helpers.js';

// A real package: yaml's dist and docs, several hundred KB of source.
const REPO = 'node_modules/yaml';

for (const ordering of ['alpha', 'dependency', 'random'] as const) {
  test(`a repository over --max-doc-chars becomes parts in the chosen order (${ordering})`, async () => {
    const whole = (await serialize([REPO], { order: { [ordering]: 1 } })).docs;
    assert.equal(whole.length, 1);
    assert.equal(whole[0]!.meta.parts, undefined, 'a repository under the default limit is one document, as before');
    const max = 60_000;
    assert.ok(whole[0]!.text.length > 4 * max, `the repository is large enough to split (${whole[0]!.text.length})`);
    const { docs, ctx } = await serialize([REPO], { order: { [ordering]: 1 }, maxDocChars: max });
    assert.ok(docs.length > 4, `${docs.length} parts`);
    const header = `${SPECIAL.repoName}yaml\n`;
    const paths: string[] = [];
    const contents: string[] = [];
    docs.forEach((d, i) => {
      assert.equal(d.meta.part, i + 1);
      assert.equal(d.meta.parts, docs.length);
      assert.equal(d.meta.ordering, ordering);
      assert.ok(d.text.startsWith(header), 'each part starts with the repository header');
      const parsed = parseRepoDocument(d);
      assert.equal(parsed.repo, 'yaml');
      assert.ok(d.text.length <= max || parsed.files.length === 1, `part ${i + 1} is within the limit (${d.text.length})`);
      assert.equal(d.meta.files, parsed.files.length);
      assert.deepEqual(d.meta.boundaries, d.special_spans!.slice(1).map(([a]) => a), 'boundaries are this part\'s own file starts');
      assert.equal(d.text.slice(0, (d.meta.boundaries as number[])[0]), header);
      for (const f of parsed.files) (paths.push(f.path), contents.push(f.content));
    });
    const wholeFiles = parseRepoDocument(whole[0]!).files;
    assert.deepEqual(paths, wholeFiles.map((f) => f.path), 'the parts hold every file once, in the order of the whole document');
    assert.deepEqual(contents, wholeFiles.map((f) => f.content));
    assert.equal(new Set(docs.map((d) => d.id)).size, docs.length, 'distinct ids');
    assert.ok(ctx.ledger.balanced());
    assert.equal(ctx.ledger.produced.get('repos'), 1);
    assert.equal(ctx.ledger.produced.get('repo_parts'), docs.length);
    const again = (await serialize([REPO], { order: { [ordering]: 1 }, maxDocChars: max })).docs;
    assert.deepEqual(again, docs, 'the same parts on a rerun');
  });
}
