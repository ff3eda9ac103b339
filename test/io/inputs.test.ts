import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect, defaultContext } from '../../src/core/stage.js';
import type { Doc } from '../../src/doc/document.js';
import { portableNamer } from '../../src/io/inputs.js';
import { fimInputDocs } from '../../src/stages/fim/inputs.js';
import { resolveTrajectoriesOptions, trajectoriesSource } from '../../src/stages/trajectories/index.js';
import { readWebInputs } from '../../src/stages/web/sources.js';
import { repoRoot } from '../helpers/paths.js';

const samples = join(repoRoot, 'data-samples');

test('portableNamer: an input is named by the shortest tail of its path no other input shares', () => {
  const nameOf = portableNamer(['/data/a/repo', '/data/b/repo', '/data/web', '/data/web/page.html']);
  assert.equal(nameOf('/data/a/repo/src/x.py'), 'a/repo/src/x.py');
  assert.equal(nameOf('/data/b/repo/src/x.py'), 'b/repo/src/x.py');
  assert.equal(nameOf('/data/web/other.html'), 'web/other.html');
  // A file under two inputs takes the innermost one.
  assert.equal(nameOf('/data/web/page.html'), 'page.html');
  assert.equal(nameOf('-'), '-');
});

/** The data-samples folders copied under two unrelated roots, one of them nested deeper. */
function twoCopies(folders: string[]): [string[], string[]] {
  const a = mkdtempSync(join(tmpdir(), 'midpack-where-a-'));
  const b = join(mkdtempSync(join(tmpdir(), 'midpack-where-b-')), 'deeper', 'still');
  mkdirSync(b, { recursive: true });
  const copies = (root: string) => folders.map((f) => {
    cpSync(join(samples, f), join(root, f), { recursive: true });
    return join(root, f);
  });
  return [copies(a), copies(b)];
}

// `source` says where a document was read from on this machine; ids and meta must not.
const idsAndMeta = (docs: Doc[]) => docs.map((d) => [d.id, JSON.stringify(d.meta ?? {})]);

test('code files, web pages and trajectories get the same ids and meta wherever the inputs sit', async () => {
  const [a, b] = twoCopies(['repos/p-limit', 'web', 'trajectories']);
  const code = async (inputs: string[]) => idsAndMeta(await collect(fimInputDocs([inputs[0]!], defaultContext({ log: () => {} }).ledger, 3, 1 << 20)));
  const web = async (inputs: string[]) => idsAndMeta(await collect(readWebInputs([inputs[1]!], defaultContext({ seed: 3, log: () => {} }), { maxPageBytes: 64 << 20 })));
  const trajectories = async (inputs: string[]) => {
    const docs = await collect(trajectoriesSource([inputs[2]!], resolveTrajectoriesOptions({}), defaultContext({ seed: 3, log: () => {} })));
    return docs.map((d) => [d.id, d.text]);
  };
  for (const read of [code, web, trajectories]) {
    const here = await read(a);
    assert.ok(here.length >= 4, `${read.name}: ${here.length} documents`);
    assert.deepEqual(await read(b), here, read.name);
    assert.ok(!JSON.stringify(here).includes(tmpdir()), `${read.name}: no document names where its input sits`);
  }
});
