import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Doc } from '../../../src/doc/document.js';
import { docToJson } from '../../../src/doc/document.js';
import { collect, defaultContext, fromArray } from '../../../src/core/stage.js';
import { ownedBy } from '../../../src/core/ranks.js';
import { stableId } from '../../../src/core/random.js';
import { countDedup } from '../../../src/stages/hygiene/dedup-count.js';
import { checkIndexCovers, mergeIndexes, readIndexHeader } from '../../../src/stages/hygiene/dedup-index.js';
import { dedupApply, dedupStage, loadDedupTables } from '../../../src/stages/hygiene/dedup-apply.js';
import { resolveDedupOptions } from '../../../src/stages/hygiene/dedup-options.js';
import { itemsOf } from '../../../src/stages/hygiene/items.js';
import { formatRepoDocument, parseRepoDocument } from '../../../src/stages/repos/format.js';
import { corpusDocs, listPackages } from '../../../scripts/build-mask-corpus.js';
import { buildTruthCorpus } from '../../../scripts/build-hygiene-corpus.js';
import { evaluateNearDedup } from '../../../scripts/eval-near-dedup.js';
import { repoRoot } from '../../helpers/paths.js';
import { slow } from '../../helpers/tiers.js';

const tmp = mkdtempSync(join(tmpdir(), 'midpack-dedup-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

/**
 * Real packages as repository documents, and per-file documents of a few of them: node_modules
 * repeats itself (nested copies of @types/node, the same license texts), and a copied package
 * and a reformatted file add known duplicates.
 */
function corpus(): Doc[] {
  const pkgs = listPackages(resolve(repoRoot, 'node_modules')).filter((p) => /^(yocto-queue|p-limit|ansi-regex|ansi-styles|strip-ansi|escalade|ms|commander|debug|semver)$/.test(p.name));
  const docs = [...corpusDocs(pkgs, 'package', 0)];
  const copy = docs.find((d) => d.source === 'npm:p-limit')!;
  docs.push({ ...copy, id: stableId('fork', 'p-limit'), source: 'npm:p-limit-fork' });
  docs.push(...corpusDocs(pkgs.slice(0, 3), 'file', 1));
  const ms = pkgs.find((p) => p.name === 'ms')!.files.find((f) => f.path === 'index.js')!;
  docs.push({ id: 'ms-crlf', kind: 'text', source: 'ms-crlf', text: ms.content.replace(/\n/g, '  \r\n') + '\n\n', meta: {} });
  return docs;
}

async function runRanks(docs: Doc[], world: number, near: boolean): Promise<{ index: Buffer; out: string[] }> {
  const options = resolveDedupOptions({ near });
  const dir = mkdtempSync(join(tmp, `w${world}-`));
  const indexes: string[] = [];
  for (let r = 0; r < world; r++) {
    const owns = ownedBy({ rank: r, worldSize: world }) ?? (() => true);
    const path = join(dir, `rank${r}.index`);
    await countDedup(fromArray(docs.filter((d) => owns(d.id))), path, { ...options, memoryMb: 8 }, defaultContext({ log: () => {} }));
    indexes.push(path);
  }
  const merged = join(dir, 'merged.index');
  mergeIndexes(indexes, merged);
  const tables = loadDedupTables(merged, options);
  const out: string[] = [];
  for (let r = 0; r < world; r++) {
    const owns = ownedBy({ rank: r, worldSize: world }) ?? (() => true);
    const ctx = defaultContext({ log: () => {} });
    const kept = await collect(dedupApply(tables, options)(fromArray(docs.filter((d) => owns(d.id))), ctx));
    out.push(...kept.map(docToJson));
  }
  return { index: readFileSync(merged), out: out.sort() };
}

test('exact dedup over 1, 2 and 4 ranks with merge keeps the same documents and files as one rank, byte for byte', slow, async () => {
  const docs = corpus();
  for (const near of [false, true]) {
    const one = await runRanks(docs, 1, near);
    for (const world of [2, 4]) {
      const many = await runRanks(docs, world, near);
      assert.ok(one.index.equals(many.index), `near=${near}: the merged index of ${world} ranks has the same bytes`);
      assert.deepEqual(many.out, one.out, `near=${near}: ${world} ranks keep the same documents`);
    }
    // The copied package is a duplicate of p-limit file by file: it is dropped whole, p-limit stays.
    const kept = one.out.map((l) => JSON.parse(l) as Doc);
    const plimit = kept.filter((d) => d.source.startsWith('npm:p-limit'));
    assert.equal(plimit.length, 1);
  }
});

test('dedup drops are counted by reason and name the kept copy; documents keep their other files', async () => {
  const docs = corpus();
  const ctx = defaultContext({ log: () => {}, workDir: tmp });
  const options = resolveDedupOptions({});
  const out = await collect(dedupStage(options)(fromArray(docs), ctx));
  const dropped = ctx.ledger.toJSON();
  assert.equal(docs.length, out.length + ctx.ledger.droppedTotal);
  assert.ok((dropped.dropped.duplicate ?? 0) >= 1);
  // The CRLF copy with trailing spaces of ms/index.js is the same file once normalized.
  const msRepo = docs.find((d) => d.source === 'npm:ms')!;
  const crlfKept = out.some((d) => d.id === 'ms-crlf');
  const msIndexKept = out.some((d) => d.id === msRepo.id && itemsOf(d).some((i) => i.path === 'index.js'));
  assert.ok(crlfKept !== msIndexKept, 'exactly one copy of ms/index.js stays');
  const stats = ctx.stats.dedup as { examples: { item: string; kept: string; reason: string }[]; items_removed: { duplicate: number } };
  for (const e of stats.examples) assert.notEqual(e.item, e.kept);
  assert.ok(dropped.examples.duplicate!.every((m) => /kept/.test(m)));
  // Every repository document that lost files is still a valid document of the files it keeps.
  let shrunk = 0;
  for (const d of out.filter((x) => x.kind === 'repo')) {
    const parsed = parseRepoDocument(d);
    const again = formatRepoDocument(parsed.repo, parsed.files);
    assert.equal(d.text, again.text);
    assert.deepEqual(d.special_spans, again.special_spans);
    if (d.text !== docs.find((x) => x.id === d.id)!.text) shrunk++;
  }
  assert.ok(shrunk >= 1 && stats.items_removed.duplicate >= 1, 'some repositories lost duplicate files and stayed');
  // Rerun: the same bytes.
  const again = await collect(dedupStage(options)(fromArray(docs), defaultContext({ log: () => {}, workDir: tmp })));
  assert.deepEqual(again.map(docToJson), out.map(docToJson));
});

test('near-dedup finds the near-duplicate pairs of a truth corpus of real files with controlled edits', slow, async () => {
  const truth = buildTruthCorpus(resolve(repoRoot, 'node_modules'), 120, 4);
  const r = await evaluateNearDedup(truth);
  assert.ok(r.true_pairs >= 100, `${r.true_pairs} true pairs`);
  assert.ok(r.recall >= 0.9, `recall ${r.recall}`);
  assert.ok(r.precision >= 0.95, `precision ${r.precision}`);
  for (const edit of ['rename', 'reformat', 'lines', 'copy']) assert.ok(r.constructed[edit]!.found > 0, `${edit} pairs found`);
});

test('dedup indexes of ranks carry rank and world size: dedup merge refuses a missing rank naming it, --allow-missing-ranks records it, apply on that rank refuses the index', async () => {
  const docs = corpus().slice(0, 20);
  const options = resolveDedupOptions({});
  const dir = mkdtempSync(join(tmp, 'ranked-'));
  const index = async (r: number) => {
    const path = join(dir, `rank${r}.index`);
    const rank = { rank: r, worldSize: 3 };
    await countDedup(fromArray(docs.filter((d) => ownedBy(rank)!(d.id))), path, { ...options, memoryMb: 8 }, defaultContext({ log: () => {} }), rank);
    return path;
  };
  const [i0, i1, i2] = [await index(0), await index(1), await index(2)];
  assert.deepEqual(readIndexHeader(i2).ranks, [2]);
  assert.throws(() => mergeIndexes([i0, i2], join(dir, 'no1.index')), /dedup merge: missing rank 1 of 0\.\.2/);
  assert.throws(() => mergeIndexes([i0, i1, i2, i1], join(dir, 'twice.index')), /rank 1 is given twice/);
  const partial = mergeIndexes([i0, i2], join(dir, 'partial.index'), true);
  assert.deepEqual([partial.ranks, partial.missing_ranks], [[0, 2], [1]]);
  checkIndexCovers('partial.index', partial, { rank: 0, worldSize: 3 });
  assert.throws(() => checkIndexCovers('partial.index', partial, { rank: 1, worldSize: 3 }), /does not include this rank \(1\)/);
  assert.deepEqual(mergeIndexes([i2, i1, i0], join(dir, 'all.index')).ranks, [0, 1, 2]);
});
