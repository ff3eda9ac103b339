import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/random.js';
import { compareStrategies, compareStrategiesFrom, mixtureLengths } from '../../src/pack/index.js';
import { slow } from '../helpers/tiers.js';

const PAD = -1;

/**
 * The baselines simulated token by token: each bin is an array of L slots holding the unit index
 * of every token (PAD for padding). Figures are then read off the bins, independently of the
 * arithmetic in strategies.ts.
 */
function simulate(units: number[], L: number, strategy: 'concat_split' | 'rld' | 'pld') {
  const bins: number[][] = [];
  let cur: number[] = [];
  const close = () => {
    if (cur.length) bins.push(cur);
    cur = [];
  };
  units.forEach((n, u) => {
    const own = Array<number>(n).fill(u);
    if (strategy === 'concat_split') {
      for (const t of own) {
        cur.push(t);
        if (cur.length === L) close();
      }
      return;
    }
    if (n > L - cur.length && cur.length > 0) {
      if (strategy === 'rld') cur.push(...own.slice(0, L - cur.length)); // its head fills the bin
      else cur.push(...Array<number>(L - cur.length).fill(PAD));
      close();
    }
    cur.push(...own);
    if (cur.length === L) close();
  });
  close();
  let fragmented = 0;
  units.forEach((n, u) => {
    if (bins.some((b) => { const k = b.filter((t) => t === u).length; return k > 0 && k < n; })) fragmented++;
  });
  const held = bins.reduce((s, b) => s + b.filter((t) => t !== PAD).length, 0);
  return {
    bins: bins.length,
    padding_tokens: bins.length * L - held,
    fragmented_units: fragmented,
    duplicated_tokens: held - units.reduce((s, n) => s + n, 0),
  };
}

test('concat-then-split, restart-last-document and pad-last-document equal a token-by-token simulation', async () => {
  const rng = new Rng('baselines');
  for (let round = 0; round < 60; round++) {
    const L = rng.int(1, 80);
    const lengths = Array.from({ length: rng.int(0, 60) }, () => [0, 1, L - 1, L, L + 1, 10 * L][rng.int(0, 6)]! * (rng.int(0, 2)) + rng.int(0, 2 * L));
    for (const overlong of ['split', 'drop'] as const) {
      const units = lengths.flatMap((len) => {
        if (len <= L) return [len];
        if (overlong === 'drop') return [];
        return Array.from({ length: Math.ceil(len / L) }, (_, k) => Math.min(L, len - k * L));
      });
      const fig = await compareStrategies(lengths, { capacity: L, overlong });
      for (const s of ['concat_split', 'rld', 'pld'] as const) {
        const want = simulate(units, L, s);
        const got = fig[s]!;
        const dropped = overlong === 'drop' ? lengths.filter((x) => x > L).reduce((a, b) => a + b, 0) : 0;
        assert.deepEqual(
          { bins: got.bins, padding_tokens: got.padding_tokens, fragmented_units: got.fragmented_units, duplicated_tokens: got.duplicated_tokens },
          want,
          `${s}, L=${L}, ${overlong}, lengths ${lengths.join(',')}`,
        );
        assert.equal(got.units, units.length);
        assert.equal(got.dropped_tokens, dropped);
        assert.equal(got.fragmentation_rate, units.length ? want.fragmented_units / units.length : 0);
        assert.equal(got.padding_rate, want.bins ? want.padding_tokens / (want.bins * L) : 0);
      }
    }
  }
});

test('Table 13 by hand: four documents at L=10', async () => {
  // concat: 6+4 | 3+3+4 | 6 (the 7 and the 10 cut); RLD: the 7's head fills bin 1 and it restarts
  // (4 tokens twice), the 10 starts a fresh bin; PLD pads those 4 instead
  const f = await compareStrategies([6, 7, 3, 10], { capacity: 10, overlong: 'split' });
  assert.deepEqual([f.concat_split!.bins, f.concat_split!.fragmented_units, f.concat_split!.padding_tokens], [3, 2, 4]);
  assert.deepEqual([f.rld!.bins, f.rld!.fragmented_units, f.rld!.duplicated_tokens, f.rld!.padding_tokens], [3, 1, 4, 0]);
  assert.deepEqual([f.pld!.bins, f.pld!.padding_tokens, f.pld!.fragmentation_rate], [3, 4, 0]);
  // best fit: 10 | 7+3 | 6 -> 3 bins, 4 padding, nothing fragmented
  assert.deepEqual([f.bfp_split!.bins, f.bfp_split!.padding_tokens, f.bfp_split!.fragmentation_rate, f.bfp_split!.lower_bound], [3, 4, 0, 3]);
});

test('on a realistic 1,000,000-document mixture best fit meets its targets: padding <= 0.01%, bins within 0.1% of the bound, no fragmentation', slow, async () => {
  const lengths = mixtureLengths(1_000_000, 1);
  const f = await compareStrategies(lengths, { capacity: 262144, overlong: 'split' });
  const bfp = f.bfp_split!;
  assert.ok(bfp.overlong_docs > 1000, `the mixture has overlong documents (${bfp.overlong_docs})`);
  assert.equal(bfp.fragmentation_rate, 0);
  assert.ok(bfp.padding_rate <= 0.0001, `padding rate ${bfp.padding_rate}`);
  assert.ok(bfp.bins <= bfp.lower_bound * 1.001, `bins ${bfp.bins} vs lower bound ${bfp.lower_bound}`);
  assert.ok(f.concat_split!.fragmentation_rate > 0 && f.pld!.padding_rate > 0.01, 'the baselines show what best fit avoids');
  // streamed in batches, the figures are the same
  const batches = function* () {
    for (let i = 0; i < lengths.length; i += 77_777) yield lengths.subarray(i, i + 77_777);
  };
  assert.deepEqual(await compareStrategiesFrom(batches, { capacity: 262144, overlong: 'split' }), f);
});
