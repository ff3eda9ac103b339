import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/random.js';
import { planBins, resolvePackerOptions, UnitTally, OVERLONG_POLICIES, binOrder, type ClosedBins, type PlanBatch, type OverlongPolicy } from '../../src/pack/index.js';
import { cutDocument } from './cut.js';
import { slow } from '../helpers/tiers.js';

interface Doc {
  len: number;
  boundaries: number[];
  header: number;
  key: number;
}

function randomDocs(rng: Rng, L: number, count: number): Doc[] {
  const special = [0, 1, L - 1, L, L + 1, 7 * L];
  return Array.from({ length: count }, () => {
    const len = rng.int(0, 4) === 0 ? special[rng.int(0, special.length)]! : rng.int(1, 2 * L);
    const bs = new Set<number>();
    const want = len > 1 ? rng.int(0, Math.min(6, len - 1)) : 0;
    while (bs.size < want) bs.add(rng.int(1, len));
    const boundaries = [...bs].sort((a, b) => a - b);
    return { len, boundaries, header: boundaries.length ? Math.min(boundaries[0]!, rng.int(0, L + 2)) : 0, key: rng.nextU32() };
  });
}

/** The documents in batches of random sizes (seeded by `split`; 0 = one batch). */
function batches(docs: Doc[], split: number, withKeys: boolean): () => PlanBatch[] {
  const rng = new Rng('plan-batches', split);
  const out: PlanBatch[] = [];
  for (let i = 0; i < docs.length; ) {
    const n = split === 0 ? docs.length : Math.min(docs.length - i, 1 + rng.int(0, 3 * split));
    const part = docs.slice(i, i + n);
    out.push({
      lengths: Uint32Array.from(part, (d) => d.len),
      boundaryCounts: Uint32Array.from(part, (d) => d.boundaries.length),
      boundaryOffsets: Uint32Array.from(part.flatMap((d) => d.boundaries)),
      headerLens: Uint32Array.from(part, (d) => d.header),
      keys: withKeys ? Uint32Array.from(part, (d) => d.key) : undefined,
    });
    i += n;
  }
  return () => out;
}

type Bins = [number, number, number, number][][];

async function plan(source: () => PlanBatch[], L: number, overlong: OverlongPolicy, passUnits: number, windowUnits: number, maxOpenBins: number) {
  const bins: Bins = [];
  const onBins = (c: ClosedBins) => {
    for (let b = 0; b < c.binCount; b++) {
      const bin: Bins[number] = [];
      for (let u = c.binUnitStart[b]!; u < c.binUnitStart[b + 1]!; u++) bin.push([c.unitDoc[u]!, c.unitStart[u]!, c.unitEnd[u]!, c.unitHeader[u]!]);
      bins.push(bin);
    }
  };
  const stats = await planBins(source, { capacity: L, overlong, slideStride: Math.max(1, Math.floor(L / 3)), passUnits, windowUnits, maxOpenBins, seed: 7 }, onBins);
  return { bins, stats };
}

test('planner property: every unit of the cut in exactly one bin, no bin over L, the same bins for any batch size', slow, async () => {
  const rng = new Rng('planner-property');
  let cases = 0;
  for (let round = 0; round < 12; round++) {
    const L = rng.int(1, 300);
    const docs = randomDocs(rng, L, rng.int(0, 400));
    for (const overlong of OVERLONG_POLICIES) {
      const passUnits = 1 + rng.int(0, 200);
      const windowUnits = rng.int(0, 1) === 0 ? 0 : 1 + rng.int(0, 64); // 0: whole-pass placement
      const maxOpenBins = 1 + rng.int(0, 16);
      const ref = await plan(batches(docs, 0, true), L, overlong, passUnits, windowUnits, maxOpenBins);
      // the units the policy makes (the TypeScript reference cut), each exactly once
      const o = resolvePackerOptions({ capacity: L, overlong, slideStride: Math.max(1, Math.floor(L / 3)) });
      const want: string[] = [];
      docs.forEach((d, i) => cutDocument(d.len, o, (s, e, h) => want.push(`${i}:${s}:${e}:${h}`), d.boundaries, 0, d.boundaries.length, d.header));
      const got = ref.bins.flat().map(([d, s, e, h]) => `${d}:${s}:${e}:${h}`);
      assert.deepEqual(got.slice().sort(), want.slice().sort(), `L=${L} ${overlong}: the bins hold the cut's units, each once`);
      assert.equal(new Set(got).size, got.length, 'no unit placed twice');
      for (const bin of ref.bins) assert.ok(bin.reduce((s, [, st, e, h]) => s + h + e - st, 0) <= L, 'a bin over L');
      assert.equal(ref.stats.fragmentedUnits, 0);
      assert.equal(ref.stats.bins, ref.bins.length);
      assert.equal(ref.stats.paddingTokens, ref.bins.reduce((s, b) => s + L - b.reduce((t, [, st, e, h]) => t + h + e - st, 0), 0));
      for (const split of [1, 5, 40]) assert.deepEqual((await plan(batches(docs, split, true), L, overlong, passUnits, windowUnits, maxOpenBins)).bins, ref.bins, `batch split ${split}`);
      cases++;
    }
  }
  assert.equal(cases, 12 * OVERLONG_POLICIES.length);
});

test('planner: the same documents in another order give the same bins (documents keyed by identity)', async () => {
  const rng = new Rng('planner-order');
  const L = 1000;
  const docs = randomDocs(rng, L, 3000);
  const orders = [docs, docs.slice().sort((a, b) => a.len - b.len), docs.slice().sort((a, b) => b.len - a.len)];
  // bins as multisets of (document key, unit range), whatever each document's position
  const canonical = (bins: Bins, order: Doc[]) => bins.map((bin) => bin.map(([d, s, e, h]) => `${order[d]!.key}:${s}:${e}:${h}`).sort().join(' ')).sort();
  for (const windowUnits of [0, 256]) {
    const results = await Promise.all(orders.map((d) => plan(batches(d, 3, true), L, 'split', 700, windowUnits, 32)));
    const ref = canonical(results[0]!.bins, orders[0]!);
    for (let k = 1; k < orders.length; k++) assert.deepEqual(canonical(results[k]!.bins, orders[k]!), ref, `window ${windowUnits}, order ${k}`);
  }
});

test('planner: a source that gives other documents on a later pass is refused', async () => {
  let calls = 0;
  const source = () => (calls++ === 0 ? [{ lengths: Uint32Array.of(5, 6) }] : [{ lengths: Uint32Array.of(5) }]);
  await assert.rejects(planBins(source, { capacity: 10, overlong: 'split' }, () => {}), /must give the same documents each time/);
});

test('UnitTally counts units held by more than one bin and units no bin holds', () => {
  const t = new UnitTally(5);
  const bins = (ids: number[]): ClosedBins => ({
    binCount: 1,
    binUnitStart: Uint32Array.of(0, ids.length),
    unitDoc: new Uint32Array(ids.length),
    unitStart: new Uint32Array(ids.length),
    unitEnd: new Uint32Array(ids.length),
    unitHeader: new Uint32Array(ids.length),
    unitId: Uint32Array.from(ids),
  });
  t.add(bins([0, 1]));
  t.add(bins([1, 2]));
  t.add(bins([1]));
  assert.equal(t.fragmented, 1, 'unit 1 is in three bins: one fragmented unit');
  assert.equal(t.missing, 2, 'units 3 and 4 are in no bin');
  assert.throws(() => t.addUnit(5), /out of range/);
});

test('binOrder is a seeded permutation: every bin once, the same for the same seed, plan order without one', () => {
  for (const n of [0, 1, 2, 3, 17, 1000, 4097]) {
    const a = Array.from({ length: n }, (_, i) => binOrder(n, 3).at(i));
    assert.deepEqual(a.slice().sort((x, y) => x - y), Array.from({ length: n }, (_, i) => i), `n=${n}`);
    assert.deepEqual(Array.from({ length: n }, (_, i) => binOrder(n, 3).at(i)), a);
    assert.deepEqual(Array.from({ length: n }, (_, i) => binOrder(n, undefined).at(i)), Array.from({ length: n }, (_, i) => i));
    if (n >= 17) assert.notDeepEqual(Array.from({ length: n }, (_, i) => binOrder(n, 4).at(i)), a, 'another seed, another order');
  }
});
