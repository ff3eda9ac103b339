import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/random.js';
import { DocGroups, planBatchOf, planBins, UnitTally, type ClosedBins, type GroupableDoc, type OverlongPolicy, type PlanChunk } from '../../src/pack/index.js';

/** Random documents in random batches; about half in runs of 2..6 sharing a group, some runs longer than L. */
function randomCorpus(seed: number, L: number): GroupableDoc[][] {
  const rng = new Rng('doc-groups', seed);
  const docs: GroupableDoc[] = [];
  for (let r = 0; docs.length < 400; r++) {
    const grouped = rng.int(0, 2) === 0;
    const n = grouped ? rng.int(2, 7) : 1;
    for (let j = 0; j < n; j++) {
      const len = rng.int(0, 10) === 0 ? rng.int(L + 1, 3 * L) : rng.int(1, Math.floor(L / 3));
      const b = len > L ? [Math.floor(len / 4), Math.floor(len / 2)] : undefined;
      docs.push({ len, key: rng.nextU32(), ...(grouped ? { group: `g${r}` } : {}), ...(b ? { boundaries: b } : {}) });
    }
  }
  const out: GroupableDoc[][] = [];
  for (let i = 0; i < docs.length; ) {
    const n = rng.int(1, 40);
    out.push(docs.slice(i, i + n));
    i += n;
  }
  return out;
}

async function plan(input: GroupableDoc[][], L: number, overlong: OverlongPolicy, grouped: boolean) {
  const groups = new DocGroups(L);
  const bins: ClosedBins[] = [];
  const plain = () => input.map((docs) => docs.map(({ group: _g, ...d }) => d));
  const result = await planBins(() => groups.batches(grouped ? input : plain()), { capacity: L, overlong, passUnits: 97 }, (b) => void bins.push(groups.expand(b)));
  return { bins, result, groups };
}

test('groups: a run that fits in L is in one bin, adjacent and in order; a longer run is counted split; every unit once, ids as if planned alone', async () => {
  const L = 1000;
  for (const overlong of ['split', 'boundary'] as OverlongPolicy[]) {
    for (const seed of [1, 2, 3]) {
      const input = randomCorpus(seed, L);
      const docs = input.flat();
      const { bins, result, groups } = await plan(input, L, overlong, true);
      // The runs, as the input declares them.
      const runs: number[][] = [];
      docs.forEach((d, i) => {
        const last = runs[runs.length - 1];
        if (d.group !== undefined && last && docs[last[0]!]!.group === d.group) last.push(i);
        else runs.push([i]);
      });
      const fits = runs.filter((r) => r.length > 1 && r.reduce((s, i) => s + docs[i]!.len, 0) <= L);
      const split = runs.filter((r) => r.length > 1 && r.reduce((s, i) => s + docs[i]!.len, 0) > L);
      assert.ok(fits.length > 10 && split.length > 0, `seed ${seed}: ${fits.length} runs fit, ${split.length} do not`);
      assert.deepEqual(groups.figures(), { groups: fits.length, grouped_docs: fits.reduce((s, r) => s + r.length, 0), groups_split: split.length });
      // Where each document's units are: (bin, position in the bin).
      const at = new Map<number, { bin: number; pos: number }[]>();
      const tally = new UnitTally(result.units + groups.extraDocs);
      let bin = 0;
      for (const c of bins) {
        tally.add(c);
        for (let b = 0; b < c.binCount; b++, bin++) {
          let room = L;
          for (let u = c.binUnitStart[b]!; u < c.binUnitStart[b + 1]!; u++) {
            const d = c.unitDoc[u]!;
            at.set(d, [...(at.get(d) ?? []), { bin, pos: u - c.binUnitStart[b]! }]);
            room -= c.unitHeader[u]! + c.unitEnd[u]! - c.unitStart[u]!;
          }
          assert.ok(room >= 0, `bin ${bin} over L`);
        }
      }
      assert.equal(tally.missing, 0);
      assert.equal(tally.fragmented, result.fragmentedUnits);
      for (const r of fits) {
        const places = r.map((i) => at.get(i)!);
        assert.ok(places.every((p) => p.length === 1 && p[0]!.bin === places[0]![0]!.bin), `run ${r} in one bin`);
        assert.deepEqual(places.map((p) => p[0]!.pos), r.map((_, j) => places[0]![0]!.pos + j), `run ${r} adjacent, in order`);
      }
      // Each document is whole (or, overlong, tiled by its units) exactly as without groups.
      const plain = await plan(input, L, overlong, false);
      const covered = (all: ClosedBins[]) => {
        const per = new Map<number, string[]>();
        for (const c of all) for (let u = 0; u < c.unitDoc.length; u++) per.set(c.unitDoc[u]!, [...(per.get(c.unitDoc[u]!) ?? []), `${c.unitId[u]}:${c.unitStart[u]}-${c.unitEnd[u]}+${c.unitHeader[u]}`]);
        return [...per.entries()].sort((a, b) => a[0] - b[0]).map(([d, u]) => [d, u.sort()]);
      };
      assert.deepEqual(covered(bins), covered(plain.bins), `seed ${seed} ${overlong}: the same units, ids and ranges with and without groups`);
      assert.equal(result.tokens, plain.result.tokens);
      assert.equal(result.units + groups.extraDocs, plain.result.units);
    }
  }
});

test('groups: a corpus without groups gives the planner the same batches and the bins come back untouched', async () => {
  const input = randomCorpus(7, 1000).map((docs) => docs.map(({ group: _g, ...d }) => d));
  const groups = new DocGroups(1000);
  const batches = [...groups.batches(input)];
  assert.equal(batches.length, input.length);
  batches.forEach((b, k) => {
    assert.deepEqual(Array.from(b.lengths), input[k]!.map((d) => d.len));
    assert.deepEqual(Array.from(b.keys!), input[k]!.map((d) => d.key));
    assert.deepEqual(Array.from(b.boundaryOffsets!), input[k]!.flatMap((d) => d.boundaries ?? []));
  });
  assert.equal(groups.active, false);
  assert.deepEqual(groups.figures(), { groups: 0, grouped_docs: 0, groups_split: 0 });
  const bins: ClosedBins = { binCount: 0, binUnitStart: new Uint32Array(1), unitDoc: new Uint32Array(0), unitStart: new Uint32Array(0), unitEnd: new Uint32Array(0), unitHeader: new Uint32Array(0), unitId: new Uint32Array(0) };
  assert.equal(groups.expand(bins), bins);
});

test('groups: a batch given as its PlanBatch (planBatchOf: no document of it grouped) plans as its documents do, a run ending at it included; the bins are the same', async () => {
  const L = 1000;
  for (const seed of [4, 5, 6]) {
    // Every other batch without groups; a run still open at the end of the batch before one ends at it.
    const input: GroupableDoc[][] = randomCorpus(seed, L).map((docs, i) => (i % 2 ? docs.map(({ group: _g, ...d }) => d) : docs));
    const made = input.map((docs) => planBatchOf(docs) ?? docs);
    const asBatches = made.filter((x) => !Array.isArray(x)).length;
    const runEndsAtBatch = input.filter((docs, i) => i % 2 === 1 && input[i - 1]!.at(-1)!.group !== undefined).length;
    assert.ok(asBatches > 3 && runEndsAtBatch > 0, `seed ${seed}: ${asBatches} batches without a grouped document, ${runEndsAtBatch} after an open run`);
    const walk = (source: readonly PlanChunk[]) => [...new DocGroups(L).batches(source)];
    assert.deepEqual(walk(made), walk(input), `seed ${seed}: the planner's batches`);
    for (const overlong of ['split', 'boundary'] as OverlongPolicy[]) {
      const planned = async (source: readonly PlanChunk[]) => {
        const groups = new DocGroups(L);
        const bins: ClosedBins[] = [];
        await planBins(() => groups.batches(source), { capacity: L, overlong, passUnits: 97 }, (b) => void bins.push(groups.expand(b)));
        return { bins, figures: groups.figures() };
      };
      assert.deepEqual(await planned(made), await planned(input), `seed ${seed}, ${overlong}: bins`);
    }
  }
  assert.equal(planBatchOf([]), undefined);
  assert.equal(planBatchOf([{ len: 3, key: 1 }, { len: 4, key: 2, group: 'g' }]), undefined);
});
