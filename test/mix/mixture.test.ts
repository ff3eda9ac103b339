import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRunConfig } from '../../src/job/run-config.js';
import { MixtureCounts } from '../../src/mix/counts.js';
import { planMixture, targetTokens, usesOf } from '../../src/mix/plan.js';
import { MixtureTally, blendLine, mergeMixtureReports, mixtureReport } from '../../src/mix/report.js';
import { Rng } from '../../src/core/random.js';

const source = (extra: Record<string, unknown> = {}) => ({ name: 'a', type: 'documents', inputs: ['x.jsonl'], ...extra });

test('config: mixture keys are checked, errors name the path and the value', () => {
  const refused = (raw: Record<string, unknown>, message: string) => assert.throws(() => parseRunConfig(raw, 'run.yaml'), (e: Error) => e.message === message);
  refused({ sources: [source({ share: 1.5 })] }, 'run.yaml: sources[0].share: must be a number in 0..1, got 1.5');
  refused({ sources: [source({ share: 0.5, tokens: 100 })] }, 'run.yaml: sources[0].tokens: give share or tokens, not both, got 100');
  refused({ sources: [source({ maxRepeat: 0.5 })] }, 'run.yaml: sources[0].maxRepeat: must be a number in 1..∞, got 0.5');
  refused({ sources: [source({ share: 0.7 }), source({ name: 'b', share: 0.5 })] }, 'run.yaml: sources: the shares of the sources add up to 1.2, more than 1 (a 0.7, b 0.5)');
  refused({ sources: [source({ share: 1 }), source({ name: 'b' })] }, 'run.yaml: sources: the shares add up to 1 (a 1), which leaves no room for the sources without a target (b)');
  refused({ sources: [source()], pack: { perSource: 'yes' } }, 'run.yaml: pack.perSource: must be true or false, got "yes"');
  refused({ sources: [source()], pack: { tokens: 0 } }, 'run.yaml: pack.tokens: must be a number in 1..∞, got 0');
  assert.throws(() => parseRunConfig({ sources: [source()], pack: { token: 5 } }, 'run.yaml'), /pack\.token: unknown key \(allowed: .*tokens, perSource\)/);
  // No target anywhere: no mixture, today's behaviour; the pack keys reach the packer without the mixture's.
  assert.equal(parseRunConfig({ sources: [source()] }, 'run.yaml').mixture, undefined);
  const c = parseRunConfig({ sources: [source({ share: 0.25, maxRepeat: 2 }), source({ name: 'b', tokens: 1e6 })], pack: { seqLen: 4096, tokens: 4e6, perSource: true } }, 'run.yaml');
  assert.deepEqual(c.mixture, { sources: [{ name: 'a', share: 0.25, maxRepeat: 2 }, { name: 'b', tokens: 1e6, maxRepeat: 1 }], tokens: 4e6, perSource: true });
  assert.deepEqual(c.pack, { seqLen: 4096 });
});

test('targets: pack.tokens, the sum of the sources, or the largest total the shares allow', () => {
  const avail = (n: string) => ({ a: 1000, b: 3000, c: 500 })[n]!;
  // Shares only: the largest total every source can give within maxRepeat (here a limits it: 1000 / 0.5).
  let t = targetTokens([{ name: 'a', share: 0.5, maxRepeat: 1 }, { name: 'b', share: 0.5, maxRepeat: 1 }], avail);
  assert.deepEqual([t.total, t.from, t.targets.get('a'), t.targets.get('b')], [2000, 'shares', 1000, 1000]);
  // A budget and an untargeted source fix the rest: T = (200 + 3000) / (1 - 0.2).
  t = targetTokens([{ name: 'a', share: 0.2, maxRepeat: 1 }, { name: 'b', maxRepeat: 1 }, { name: 'c', tokens: 200, maxRepeat: 1 }], avail);
  assert.equal(t.from, 'sources');
  assert.equal(t.total, 4000);
  assert.deepEqual([t.targets.get('a'), t.targets.get('b'), t.targets.get('c')], [800, 3000, 200]);
  // pack.tokens: untargeted sources share what is left in proportion to their tokens.
  t = targetTokens([{ name: 'a', share: 0.5, maxRepeat: 1 }, { name: 'b', maxRepeat: 1 }, { name: 'c', maxRepeat: 1 }], avail, 10_000);
  assert.deepEqual([t.targets.get('a'), t.targets.get('b'), t.targets.get('c')], [5000, (5000 * 3000) / 3500, (5000 * 500) / 3500]);
});

/** Counts over random documents; returns them with the documents (source, id, tokens). */
function corpus(seed: number, n: number): { counts: MixtureCounts; docs: { source: string; id: string; len: number }[] } {
  const rng = new Rng(seed, 'mixture-test');
  const counts = new MixtureCounts(7);
  const docs = Array.from({ length: n }, (_, i) => {
    const source = ['big', 'mid', 'small'][i % 10 < 6 ? 0 : i % 10 < 9 ? 1 : 2]!;
    return { source, id: `doc-${i}`, len: 1 + Math.floor(rng.next() * 3000) };
  });
  for (const d of docs) counts.add(d.source, d.id, d.len);
  return { counts, docs };
}

test('plan: kept tokens meet the target within one bucket, and the decisions keep exactly the planned tokens', () => {
  const { counts, docs } = corpus(1, 20_000);
  const spec = { sources: [{ name: 'big', share: 0.3, maxRepeat: 1 }, { name: 'mid', share: 0.5, maxRepeat: 3 }, { name: 'small', tokens: 2e7, maxRepeat: 4.5 }], tokens: 2e7, perSource: false };
  const plan = planMixture(spec, counts);
  const byName = new Map(plan.sources.map((s) => [s.name, s] as const));
  const kept = new Map<string, number>();
  for (const d of docs) kept.set(d.source, (kept.get(d.source) ?? 0) + d.len * usesOf(plan, byName, d.source, d.id));
  for (const s of plan.sources) {
    assert.equal(kept.get(s.name), s.planned_tokens, s.name);
    const reachable = Math.min(s.target_tokens, s.max_repeat * s.available_tokens);
    assert.ok(Math.abs(s.planned_tokens - reachable) <= s.granularity_tokens, `${s.name}: planned ${s.planned_tokens}, target ${reachable}, bucket ${s.granularity_tokens}`);
  }
  const big = byName.get('big')!;
  const small = byName.get('small')!;
  assert.ok(big.repeat_factor < 1 && big.whole_repeats === 0, 'big is downsampled');
  // small needs more than maxRepeat gives: capped, with the shortfall reported.
  assert.equal(small.repeat_factor, 4.5);
  assert.equal(small.whole_repeats, 4);
  assert.ok(small.shortfall_tokens > 0);
  assert.equal(byName.get('mid')!.shortfall_tokens, 0);
});

test('counts of ranks merge by addition into the counts of one rank; a missing or doubled rank is refused', () => {
  const { docs } = corpus(2, 3000);
  const one = new MixtureCounts(7);
  const ranks = [0, 1, 2].map((r) => new MixtureCounts(7, [r], 3));
  docs.forEach((d, i) => {
    one.add(d.source, d.id, d.len);
    ranks[(i * 7919) % 3]!.add(d.source, d.id, d.len);
  });
  const dir = mkdtempSync(join(tmpdir(), 'midpack-mixcounts-'));
  // Through the files, as `midpack mixture merge` reads them.
  const parts = ranks.map((c, r) => {
    c.write(join(dir, `${r}.json`));
    return { counts: MixtureCounts.read(join(dir, `${r}.json`)), name: `${r}.json` };
  });
  const merged = MixtureCounts.merge(parts);
  assert.deepEqual({ ...merged.toJSON(), ranks: [0], world_size: 1 }, one.toJSON());
  assert.throws(() => MixtureCounts.merge(parts.slice(0, 2)), /missing rank 2 of 0\.\.2/);
  assert.throws(() => MixtureCounts.merge([parts[0]!, parts[1]!, parts[1]!]), /rank 1 is given twice: 1\.json and 1\.json/);
  const partial = MixtureCounts.merge([parts[0]!, parts[2]!], true);
  assert.deepEqual([partial.toJSON().ranks, partial.toJSON().missing_ranks], [[0, 2], [1]], '--allow-missing-ranks is recorded');
  const spec = { sources: [{ name: 'big', share: 0.5, maxRepeat: 1 }, { name: 'mid', share: 0.4, maxRepeat: 2 }, { name: 'small', share: 0.1, maxRepeat: 2 }], perSource: false };
  assert.deepEqual(planMixture(spec, merged), planMixture(spec, one));
});

test('blend line: the target shares as weights, in source order', () => {
  const { counts } = corpus(3, 500);
  const plan = planMixture({ sources: [{ name: 'big', share: 0.6, maxRepeat: 1 }, { name: 'mid', share: 0.3, maxRepeat: 1 }, { name: 'small', share: 0.1, maxRepeat: 9 }], perSource: true }, counts);
  assert.equal(blendLine(plan, (n) => `sources/${n}/megatron/midpack_text_document`), '--data-path 0.6 sources/big/megatron/midpack_text_document 0.3 sources/mid/megatron/midpack_text_document 0.1 sources/small/megatron/midpack_text_document');
});

test('report: a share off by more than half a point names its cause, and merged ranks find it again', () => {
  const { counts } = corpus(4, 20_000);
  const plan = planMixture({ sources: [{ name: 'big', share: 0.5, maxRepeat: 1 }, { name: 'mid', share: 0.3, maxRepeat: 3 }, { name: 'small', share: 0.2, maxRepeat: 4 }], perSource: false }, counts);
  const tallyOf = (scale: Record<string, number>) => {
    const t = new MixtureTally();
    for (const s of plan.sources) t.achieved(s.name, Math.round(s.planned_tokens * (scale[s.name] ?? 1)), 1);
    return t;
  };
  const asPlanned = mixtureReport(plan, tallyOf({}), []);
  for (const s of Object.values(asPlanned.sources)) assert.equal(s.reason, undefined, `as planned: ${JSON.stringify(s)}`);
  // Repeats drawn afresh came out 20% longer than their first uses (another template, a longer FIM span).
  const longer = mixtureReport(plan, tallyOf({ small: 1.2 }), []);
  assert.ok(longer.sources.small!.error_points > 0.5);
  assert.match(longer.sources.small!.reason!, /^the bins hold \d+ tokens more than planned: repeats drawn afresh/);
  assert.equal(longer.sources.small!.planned_tokens, plan.sources[2]!.planned_tokens);
  // Two ranks: each rank's own share is off (and says so), the merged one is not: the merge finds no reason.
  const half = (r: typeof longer, sign: number) => {
    const sources = Object.fromEntries(Object.entries(r.sources).map(([k, v]) => [k, { ...v, reason: 'off on this rank', achieved_tokens: v.achieved_tokens / 2 + sign * (k === 'small' ? v.achieved_tokens / 10 : 0) }]));
    return { ...r, sources, achieved_tokens: Object.values(sources).reduce((n, v) => n + v.achieved_tokens, 0) };
  };
  const merged = mergeMixtureReports([half(asPlanned, 1), half(asPlanned, -1)]);
  for (const s of Object.values(merged.sources)) assert.equal(s.reason, undefined);
  assert.ok(merged.max_error_points < 0.01);
});
