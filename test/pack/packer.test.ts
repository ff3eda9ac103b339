import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/random.js';
import {
  compareStrategies,
  OVERLONG_POLICIES,
  planBins,
  StreamingPacker,
  type OverlongPolicy,
  type PackerOptions,
  type PackerStats,
} from '../../src/pack/index.js';
import { collect, runPacker, unitLength, type Assignment, type Docs } from './helpers.js';
import { TsStreamingPacker } from './ts-packer.js';

/** Random lengths with the edge cases 0, 1, L-1, L, L+1, 10L mixed in, and random boundaries. */
function randomDocs(rng: Rng, L: number, count: number): Docs {
  const special = [0, 1, L - 1, L, L + 1, 10 * L];
  const lengths: number[] = [];
  const boundaries: number[][] = [];
  const headers: number[] = [];
  for (let i = 0; i < count; i++) {
    const len = rng.int(0, 3) === 0 ? special[rng.int(0, special.length)]! : rng.int(0, 3 * L + 1);
    lengths.push(len);
    const bs = new Set<number>();
    const want = len > 1 ? rng.int(0, Math.min(8, len - 1)) : 0;
    while (bs.size < want) bs.add(rng.int(1, len));
    const sorted = [...bs].sort((a, b) => a - b);
    boundaries.push(sorted);
    headers.push(sorted.length ? Math.min(sorted[0]!, rng.int(0, L + 2)) : 0);
  }
  return { lengths, boundaries, headers };
}

/** Figures recomputed from the bins alone. */
function recompute(bins: Assignment, L: number) {
  let padding = 0;
  let units = 0;
  for (const bin of bins) {
    const fill = bin.reduce((s, u) => s + unitLength(u), 0);
    assert.ok(fill <= L, `a bin holds ${fill} > L=${L} tokens`);
    padding += L - fill;
    units += bin.length;
  }
  return { bins: bins.length, padding, units };
}

/** Checks per document that its units cover it as the policy says; returns dropped and duplicated tokens. */
function checkCoverage(docs: Docs, bins: Assignment, opts: Required<Pick<PackerOptions, 'capacity' | 'overlong' | 'slideStride'>>) {
  const L = opts.capacity;
  const byDoc = new Map<number, [number, number, number][]>();
  const seen = new Set<string>();
  for (const bin of bins) {
    for (const [doc, start, end, header] of bin) {
      const key = `${doc}:${start}:${end}`;
      assert.ok(!seen.has(key), `unit ${key} is in more than one bin`);
      seen.add(key);
      if (!byDoc.has(doc)) byDoc.set(doc, []);
      byDoc.get(doc)!.push([start, end, header]);
    }
  }
  let dropped = 0;
  let duplicated = 0;
  docs.lengths.forEach((len, doc) => {
    const units = (byDoc.get(doc) ?? []).sort((a, b) => a[0] - b[0]);
    const policy: OverlongPolicy = opts.overlong === 'boundary' && docs.boundaries![doc]!.length === 0 ? 'split' : opts.overlong;
    if (len <= L) {
      assert.deepEqual(units, [[0, len, 0]], `doc ${doc} (len ${len} <= L) is one whole unit`);
      return;
    }
    if (policy === 'drop') {
      assert.equal(units.length, 0, `overlong doc ${doc} dropped`);
      dropped += len;
      return;
    }
    if (policy === 'truncate') {
      assert.deepEqual(units, [[0, L, 0]]);
      dropped += len - L;
      return;
    }
    assert.equal(units[0]![0], 0, `doc ${doc} starts at token 0`);
    assert.equal(units.at(-1)![1], len, `doc ${doc} ends at its last token`);
    const tokens = units.reduce((s, [a, z, h]) => s + h + z - a, 0);
    if (policy === 'slide') {
      for (const [a, z] of units) assert.equal(z - a, L, 'every slide window is exactly L');
      for (let k = 1; k < units.length; k++) assert.ok(units[k]![0] <= units[k - 1]![1], 'slide windows leave no gap');
    } else {
      // split and boundary tile the document: every token in exactly one unit
      for (let k = 1; k < units.length; k++) assert.equal(units[k]![0], units[k - 1]![1], `doc ${doc} chunks tile`);
      if (policy === 'split') {
        assert.equal(tokens, len, 'split chunks sum to the document');
        units.slice(0, -1).forEach(([a, z]) => assert.equal(z - a, L, 'split chunks are exactly L but the last'));
      } else {
        const header = docs.headers![doc]! < L ? docs.headers![doc]! : 0;
        units.forEach(([a, , h]) => assert.equal(h, a === 0 ? 0 : header, 'the header repeats on every later chunk'));
        const cuts = new Set(docs.boundaries![doc]);
        // a chunk starts at a boundary unless no boundary fitted (then it is full)
        for (let k = 1; k < units.length; k++) {
          const [a, z, h] = units[k - 1]!;
          assert.ok(cuts.has(units[k]![0]) || h + z - a === L, `chunk at ${units[k]![0]} starts at a boundary, or no boundary fitted and the chunk before is full`);
        }
      }
    }
    duplicated += tokens - len;
  });
  return { dropped, duplicated };
}

const FIELDS: (keyof PackerStats)[] = ['docs', 'units', 'overlongDocs', 'droppedDocs', 'droppedTokens', 'duplicatedTokens', 'bins', 'paddingTokens', 'tokens'];

test('best fit, native and TypeScript, over many random length sets: identical bins, none over L, every kept token in exactly one bin', () => {
  const rng = new Rng('packer-property');
  let sets = 0;
  for (const L of [1, 7, 64, 1000, 262144]) {
    for (const overlong of OVERLONG_POLICIES) {
      for (let round = 0; round < 8; round++, sets++) {
        const docs = randomDocs(rng, L, rng.int(0, L === 262144 ? 40 : 150));
        const opts: PackerOptions = {
          capacity: L,
          overlong,
          slideStride: rng.int(1, L + 1),
          windowUnits: rng.int(1, 50),
          maxOpenBins: rng.int(1, 12),
          maxHeldUnits: rng.int(1, 100),
        };
        const native = new StreamingPacker(opts);
        const ts = new TsStreamingPacker(opts);
        const a = runPacker(native, docs, sets);
        const b = runPacker(ts, docs, sets + 1000); // other batch sizes: the bins must not change
        assert.deepEqual(a, b, `L=${L} ${overlong}: native and TypeScript differ`);
        assert.deepEqual(native.stats(), ts.stats());

        const r = recompute(a, L);
        const { dropped, duplicated } = checkCoverage(docs, a, { capacity: L, overlong, slideStride: opts.slideStride! });
        const s = native.stats();
        const tokens = docs.lengths.reduce((x, y) => x + y, 0);
        assert.deepEqual(
          { bins: s.bins, padding: s.paddingTokens, units: s.units, dropped: s.droppedTokens, duplicated: s.duplicatedTokens, tokens: s.tokens, docs: s.docs },
          { bins: r.bins, padding: r.padding, units: r.units, dropped, duplicated, tokens, docs: docs.lengths.length },
          `L=${L} ${overlong}: reported figures equal the recomputed ones`,
        );
        assert.equal(s.overlongDocs, docs.lengths.filter((x) => x > L).length);
        for (const f of FIELDS) assert.ok(Number.isInteger(s[f]), f);
      }
    }
  }
  assert.equal(sets, 5 * 5 * 8);
});

test('compareStrategies: BFP figures equal those recomputed from the planned bins, fragmentation 0', async () => {
  const rng = new Rng('compare-bfp');
  for (const overlong of ['split', 'slide', 'drop'] as const) {
    const L = 500;
    const docs = randomDocs(rng, L, 400);
    const lengths = Uint32Array.from(docs.lengths);
    const fig = await compareStrategies(lengths, { capacity: L, overlong, slideStride: 200 });
    assert.deepEqual(Object.keys(fig), ['concat_split', 'rld', 'pld', 'bfp', `bfp_${overlong}`]);
    for (const [key, policy] of [['bfp', 'truncate'], [`bfp_${overlong}`, overlong]] as const) {
      const bins: Assignment = [];
      await planBins(() => [{ lengths }], { capacity: L, overlong: policy, slideStride: 200 }, (c) => collect(bins, c));
      const r = recompute(bins, L);
      const tokens = docs.lengths.reduce((x, y) => x + y, 0);
      const f = fig[key]!;
      assert.equal(f.fragmentation_rate, 0);
      assert.equal(f.bins, r.bins);
      assert.equal(f.units, r.units);
      assert.equal(f.padding_tokens, r.padding);
      assert.equal(f.padding_rate, r.padding / (r.bins * L));
      assert.equal(f.lower_bound, Math.ceil(tokens / L));
      assert.equal(f.tokens, tokens);
    }
  }
});

test('bins close while documents stream in: held units stay within the window and the open-bin bounds', () => {
  const rng = new Rng('streaming');
  const opts = { capacity: 4096, overlong: 'split' as const, windowUnits: 256, maxOpenBins: 8, maxHeldUnits: 4096 };
  const packer = new StreamingPacker(opts);
  const all: Assignment = [];
  let pushed = 0;
  for (let round = 0; round < 200; round++) {
    const lengths = Uint32Array.from({ length: 500 }, () => rng.int(1, 3000));
    pushed += lengths.length;
    collect(all, packer.push({ lengths }));
    const emitted = all.reduce((s, b) => s + b.length, 0);
    assert.ok(pushed - emitted <= opts.windowUnits + opts.maxHeldUnits, `${pushed - emitted} units held after ${pushed}`);
  }
  collect(all, packer.finish());
  assert.equal(all.reduce((s, b) => s + b.length, 0), pushed);
});

test('zero-length documents and L=1 do not break anything', async () => {
  for (const opts of [{ capacity: 1, overlong: 'split' as const }, { capacity: 10, overlong: 'slide' as const, slideStride: 3 }]) {
    const docs = { lengths: [0, 0, 1, 0, 25, 0, 1, 1] };
    const a = runPacker(new StreamingPacker(opts), docs, 3);
    assert.deepEqual(runPacker(new TsStreamingPacker(opts), docs, 4), a);
    const kept = a.flat();
    assert.equal(kept.filter(([d]) => d === 0).length, 1, 'a zero-length document is still one unit in one bin');
    assert.equal(new Set(kept.map(([d]) => d)).size, docs.lengths.length);
  }
  assert.deepEqual((await compareStrategies([0, 0, 0], { capacity: 8, overlong: 'split' })).concat_split!.bins, 0);
});

test('bad options and mismatched boundary arrays are rejected with a message naming them', async () => {
  assert.throws(() => new StreamingPacker({ capacity: 0, overlong: 'split' }), /capacity must be an integer/);
  assert.throws(() => new StreamingPacker({ capacity: 10, overlong: 'spilt' as OverlongPolicy }), /unknown overlong policy "spilt"/);
  assert.throws(() => new TsStreamingPacker({ capacity: 10, overlong: 'slide', slideStride: 11 }), /slideStride must be an integer in \[1, 10\]/);
  const p = new StreamingPacker({ capacity: 10, overlong: 'boundary' });
  assert.throws(() => p.push({ lengths: Uint32Array.of(30), boundaryCounts: Uint32Array.of(2), boundaryOffsets: Uint32Array.of(5) }), /sum\(boundaryCounts\)/);
  assert.throws(() => p.push({ lengths: Uint32Array.of(30, 2), headerLens: Uint32Array.of(1) }), /headerLens needs one entry per document/);
  await assert.rejects(async () => compareStrategies([1, -2], { capacity: 10, overlong: 'split' }), /document 1: length must be an integer/);
});
