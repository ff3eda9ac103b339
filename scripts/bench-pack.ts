/**
 * Benchmark of the best-fit packer (npm run bench:pack). In one run:
 *  1. packs --count (10,000,000) mixture lengths at L=262,144 with the native core and with the
 *     TypeScript implementation of the same algorithm (best of 3 runs each, alternating); prints
 *     docs/s of each, their ratio, and whether all runs gave identical bins (a checksum over
 *     every unit of every bin);
 *  2. prints the five strategies of Table 13 on a 1,000,000-document mixture;
 *  3. plans 1,000,000-document mixtures (scripts/gen-lengths.ts) in four orders (random, grouped
 *     by kind, ascending, descending) with the whole-corpus planner at its defaults: seed 1,
 *     seed 2, a 40% repository share, and three heavy-tailed mixtures (repositories 40-50% of
 *     documents, longer and wider-spread, a third or more of the units over L/2). Each row runs
 *     in its own child process: bins over the lower bound and over a whole-set best-fit-decreasing
 *     reference (test/pack/reference-bfd.ts, computed here), padding, fragmentation, the
 *     planner's time and units/s, the windowed planner's bins (--window-units 262,144: the
 *     previous default) and the child's peak RSS; then whether every row meets the targets;
 *  4. writes --stream-count (100,000,000) lengths to a temporary binary file (uint32, as
 *     OUT/doc_lengths.u32) and plans them streamed from it in a child process (the plan without
 *     the writing), printing that process's time and peak RSS; with --baseline DIR (a built
 *     checkout of another commit), the same plan by DIR's code too, alternating, best of --stream-runs.
 *     It runs before the other sections (its children are started from a small process) and is
 *     printed last.
 * Figures are ratios and rates measured in this one run, not timed assertions.
 *
 *   node dist/scripts/bench-pack.js [--count N] [--stream-count N] [--seed S] [--baseline DIR] [--stream-runs N] [--skip 1,2,3,4]
 */
import { spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { formatTable } from '../src/cli/commands/compare.js';
import { closeSync, openSync, writeSync } from 'node:fs';
import {
  compareStrategies,
  DEFAULT_CAPACITY,
  DEFAULT_MAX_OPEN_BINS,
  DEFAULT_PASS_UNITS,
  DEFAULT_PLAN_WINDOW_UNITS,
  DEFAULT_WINDOW_UNITS,
  DEFAULT_MIXTURE,
  MIXTURE_ORDERS,
  mixtureBatches,
  mixtureLengths,
  mixtureSample,
  planBins,
  readLengthFile,
  StreamingPacker,
  withRepoShare,
  type ClosedBins,
  type MixtureKind,
  type MixtureOrder,
  type Packer,
} from '../src/pack/index.js';
import { TsStreamingPacker } from '../test/pack/ts-packer.js';
import { highWaterKb } from '../src/core/phase-peaks.js';
import { referenceBfd, splitUnits } from '../test/pack/reference-bfd.js';

const L = DEFAULT_CAPACITY;
const BATCH = 1 << 20;
const RUNS = 3;
const mb = (kb: number) => (kb / 1024).toFixed(0);

/** An order-sensitive checksum of every bin's units. */
function hashBins(h: number, c: ClosedBins): number {
  for (let b = 0; b < c.binCount; b++) h = Math.imul(h ^ (c.binUnitStart[b + 1]! - c.binUnitStart[b]!), 16777619);
  for (let u = 0; u < c.unitDoc.length; u++) {
    h = Math.imul(h ^ c.unitDoc[u]!, 16777619);
    h = Math.imul(h ^ c.unitStart[u]!, 16777619);
    h = Math.imul(h ^ c.unitEnd[u]!, 16777619);
  }
  return h >>> 0;
}

/** Packs the lengths in batches; only the push/finish calls are on the clock. */
function timePacker(packer: Packer, lengths: Uint32Array): { seconds: number; hash: number } {
  let seconds = 0;
  let hash = 2166136261;
  const clock = (f: () => ClosedBins) => {
    const t = process.hrtime.bigint();
    const closed = f();
    seconds += Number(process.hrtime.bigint() - t) / 1e9;
    hash = hashBins(hash, closed);
  };
  for (let i = 0; i < lengths.length; i += BATCH) clock(() => packer.push({ lengths: lengths.subarray(i, i + BATCH) }));
  clock(() => packer.finish());
  return { seconds, hash };
}

/** The plan alone (bins let go as they come), streamed from the lengths file once per pass. */
async function streamChild(path: string): Promise<void> {
  const t = process.hrtime.bigint();
  const lengths = async function* () {
    for await (const batch of readLengthFile(path)) yield { lengths: batch };
  };
  const s = await planBins(lengths, { capacity: L, overlong: 'split' }, () => {});
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  process.stdout.write(
    JSON.stringify({ docs: s.docs, units: s.units, passes: s.passes, bins: s.bins, fragmented: s.fragmentedUnits, padding_rate: s.paddingTokens / (s.bins * L), lower_bound: Math.ceil(s.tokens / L), seconds, maxRssKb: highWaterKb() }) + '\n',
  );
}

/** Streams `count` mixture lengths to a binary uint32 file. */
function writeU32File(path: string, count: number, seed: number): void {
  const fd = openSync(path, 'w');
  try {
    for (const b of mixtureBatches(count, seed)) writeSync(fd, new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
  } finally {
    closeSync(fd);
  }
}

/** Repositories at `share` of the documents, their lengths log-normal(median, sigma) up to `max`. */
function heavyRepos(share: number, median: number, sigma: number, max: number): MixtureKind[] {
  return withRepoShare(share).map((k) => (k.name === 'repo' ? { ...k, median, sigma, max } : k));
}

const MIXTURES: { name: string; seed: number; kinds: readonly MixtureKind[] }[] = [
  { name: 'seed 1', seed: 1, kinds: DEFAULT_MIXTURE },
  { name: 'seed 2', seed: 2, kinds: DEFAULT_MIXTURE },
  { name: 'seed 1, repo 40%', seed: 1, kinds: withRepoShare(0.4) },
  { name: 'heavy 40% m60k s2.0', seed: 1, kinds: heavyRepos(0.4, 60_000, 2.0, 16_000_000) },
  { name: 'heavy 40% m200k s1.2', seed: 1, kinds: heavyRepos(0.4, 200_000, 1.2, 8_000_000) },
  { name: 'heavy 50% m150k s1.5', seed: 2, kinds: heavyRepos(0.5, 150_000, 1.5, 16_000_000) },
];

interface OrderRow {
  units: number;
  over_half: number;
  bins: number;
  lower_bound: number;
  padding_rate: number;
  fragmented: number;
  seconds: number;
  /** CPU time of the plan (the shared machine's load stretches the wall time, less the CPU time). */
  cpu_seconds: number;
  ref_bins: number;
  ref_padding_rate: number;
  windowed_bins: number;
  maxRssKb: number;
}

/** One row of section 3, in a child process (its own peak RSS): the planner, the windowed planner and the reference. */
async function orderChild(spec: string): Promise<void> {
  const [index, order] = spec.split(':') as [string, MixtureOrder];
  const m = MIXTURES[Number(index)]!;
  const lengths = mixtureSample(1_000_000, m.seed, order, m.kinds);
  const t = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const s = await planBins(() => [{ lengths }], { capacity: L, overlong: 'split' }, () => {});
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const maxRssKb = highWaterKb(); // the planner's peak (this process's own, see highWaterKb): the reference and the windowed run come after
  const units = splitUnits(lengths, L);
  const ref = referenceBfd(units, L);
  const windowed = await planBins(() => [{ lengths }], { capacity: L, overlong: 'split', windowUnits: DEFAULT_WINDOW_UNITS }, () => {});
  const row: OrderRow = {
    units: s.units,
    over_half: units.filter((u) => u > L / 2).length,
    bins: s.bins,
    lower_bound: Math.ceil(s.tokens / L),
    padding_rate: s.paddingTokens / (s.bins * L),
    fragmented: s.fragmentedUnits,
    seconds,
    cpu_seconds: cpuSeconds,
    ref_bins: ref.bins,
    ref_padding_rate: ref.paddingTokens / (ref.bins * L),
    windowed_bins: windowed.bins,
    maxRssKb,
  };
  process.stdout.write(JSON.stringify(row) + '\n');
}

function runChild(args: string[], script = fileURLToPath(import.meta.url)): string {
  const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`the child ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** Section 3: the planner on the same mixtures in four orders, each row in a child process. */
function orderSection(): void {
  const pct = (x: number) => `${(100 * x).toFixed(4)}%`;
  const window = DEFAULT_PLAN_WINDOW_UNITS === 0 ? 'whole pass' : `window ${DEFAULT_PLAN_WINDOW_UNITS}`;
  process.stdout.write(`3. whole-corpus planner at its defaults (${window}, ${DEFAULT_MAX_OPEN_BINS} bins carried, pass ${DEFAULT_PASS_UNITS} units), 1,000,000-document mixtures in four orders\n`);
  process.stdout.write(`   ref = whole-set best-fit decreasing computed here; windowed = the planner with --window-units ${DEFAULT_WINDOW_UNITS} (the previous default)\n`);
  const cols: [string, number][] = [['mixture', 22], ['order', 8], ['units', 9], ['>L/2', 7], ['bins', 9], ['lb', 9], ['+lb', 5], ['+ref', 5], ['padding', 10], ['ref_pad', 10], ['frag', 5], ['s', 6], ['units/s', 11], ['units/cpu-s', 12], ['windowed+lb', 12], ['RSS MB', 7]];
  process.stdout.write('   ' + cols.map(([h, w], i) => (i < 2 ? h.padEnd(w) : h.padStart(w))).join('') + '\n');
  let ok = { lb: true, ref: true, padding: true, fragmentation: true, speed: true };
  let minRate = Infinity;
  let minCpuRate = Infinity;
  for (const [index, m] of MIXTURES.entries()) {
    for (const order of MIXTURE_ORDERS) {
      const r = JSON.parse(runChild(['--order-child', `${index}:${order}`])) as OrderRow;
      const rate = r.units / r.seconds;
      minRate = Math.min(minRate, rate);
      minCpuRate = Math.min(minCpuRate, r.units / r.cpu_seconds);
      const cells = [m.name, order, r.units, `${Math.round((100 * r.over_half) / r.units)}%`, r.bins, r.lower_bound, '+' + (r.bins - r.lower_bound), (r.bins >= r.ref_bins ? '+' : '') + (r.bins - r.ref_bins), pct(r.padding_rate), pct(r.ref_padding_rate), r.fragmented, r.seconds.toFixed(2), Math.round(rate).toLocaleString('en-US'), Math.round(r.units / r.cpu_seconds).toLocaleString('en-US'), '+' + (r.windowed_bins - r.lower_bound), mb(r.maxRssKb)];
      process.stdout.write('   ' + cells.map((c, i) => (i < 2 ? String(c).padEnd(cols[i]![1]) : String(c).padStart(cols[i]![1]))).join('') + '\n');
      ok = {
        lb: ok.lb && r.bins <= r.lower_bound + 2,
        ref: ok.ref && r.bins <= r.ref_bins + 2,
        padding: ok.padding && (r.ref_padding_rate > 0.00002 || r.padding_rate <= 0.00002),
        fragmentation: ok.fragmentation && r.fragmented === 0,
        speed: ok.speed && rate >= 1e6,
      };
    }
  }
  const yes = (b: boolean) => (b ? 'yes' : 'NO');
  process.stdout.write(
    `   targets: bins <= lb + 2: ${yes(ok.lb)}; bins <= ref + 2: ${yes(ok.ref)}; padding <= 0.002% where ref reaches it: ${yes(ok.padding)}; ` +
      `fragmentation 0: ${yes(ok.fragmentation)}; >= 1M units/s: ${yes(ok.speed)} (slowest row ${Math.round(minRate).toLocaleString('en-US')} units/s wall, ` +
      `${Math.round(minCpuRate).toLocaleString('en-US')} units per CPU-second; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)\n\n`,
  );
}

interface StreamFigures {
  docs: number;
  units: number;
  passes: number;
  bins: number;
  fragmented: number;
  padding_rate: number;
  lower_bound: number;
  seconds: number;
  maxRssKb: number;
}

/**
 * Section 4: the streamed plan by this code and, with a baseline checkout, by that code,
 * alternating; best time of `runs` each. Returned as text: it runs first, while this process is
 * small, because Linux starts a forked child's maxRSS at its parent's RSS (a baseline's child
 * reports getrusage's figure).
 */
function streamSection(streamCount: number, seed: number, baseline: string | undefined, runs: number): string {
  let text = '';
  const print = (line: string) => (text += line);
  const file = join(tmpdir(), `midpack-bench-lengths-${process.pid}.u32`);
  try {
    const t = process.hrtime.bigint();
    writeU32File(file, streamCount, seed);
    const wrote = Number(process.hrtime.bigint() - t) / 1e9;
    const size = statSync(file).size;
    print(`4. ${streamCount.toLocaleString('en-US')} lengths planned streamed from a file (${(size / 2 ** 20).toFixed(0)} MiB uint32, written in ${wrote.toFixed(1)} s), native, in a child process, no writing\n`);
    const codes = [{ name: 'this code', script: fileURLToPath(import.meta.url) }];
    if (baseline) codes.push({ name: `baseline ${baseline}`, script: join(baseline, 'dist/scripts/bench-pack.js') });
    const best = new Map<string, StreamFigures>();
    for (let run = 0; run < runs; run++) {
      for (const c of codes) {
        const f = JSON.parse(runChild(['--stream-child', file], c.script)) as StreamFigures;
        const prev = best.get(c.name);
        best.set(c.name, prev && prev.seconds <= f.seconds ? { ...prev, maxRssKb: Math.max(prev.maxRssKb, f.maxRssKb) } : { ...f, maxRssKb: Math.max(prev?.maxRssKb ?? 0, f.maxRssKb) });
      }
    }
    for (const [name, c] of best) {
      print(
        `   ${name}: ${c.docs.toLocaleString('en-US')} docs, ${c.units.toLocaleString('en-US')} units -> ${c.bins.toLocaleString('en-US')} bins (lower bound ${c.lower_bound.toLocaleString('en-US')}, +${c.bins - c.lower_bound}), padding ${(100 * c.padding_rate).toFixed(4)}%, fragmented ${c.fragmented}\n` +
          `     ${c.passes} planning passes (+1 counting), ${c.seconds.toFixed(1)} s (${Math.round(c.docs / c.seconds).toLocaleString('en-US')} docs/s, best of ${runs}); peak RSS ${mb(c.maxRssKb)} MB\n`,
      );
    }
    if (baseline) {
      const [mine, base] = [best.get(codes[0]!.name)!, best.get(codes[1]!.name)!];
      print(`   this code / baseline: time ${(mine.seconds / base.seconds).toFixed(2)}x, peak RSS ${(mine.maxRssKb / base.maxRssKb).toFixed(2)}x\n`);
    }
  } finally {
    rmSync(file, { force: true });
  }
  return text;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '10000000' },
      'stream-count': { type: 'string', default: '100000000' },
      seed: { type: 'string', default: '1' },
      baseline: { type: 'string' },
      'stream-runs': { type: 'string', default: '1' },
      skip: { type: 'string', default: '' },
      'stream-child': { type: 'string' },
      'order-child': { type: 'string' },
    },
  });
  if (values['stream-child']) return streamChild(values['stream-child']);
  if (values['order-child']) return orderChild(values['order-child']);
  const count = Number(values.count);
  const streamCount = Number(values['stream-count']);
  const seed = Number(values.seed);
  const skip = new Set(values.skip.split(',').filter(Boolean).map(Number));

  process.stdout.write(`bench:pack  L=${L}, overlong=split\n\n`);
  const streamed = skip.has(4) ? '' : streamSection(streamCount, seed, values.baseline, Number(values['stream-runs']));
  if (!skip.has(1)) packerSection(count, seed);
  if (!skip.has(2)) {
    process.stdout.write('2. Table 13 strategies on a 1,000,000-document mixture (as generated)\n');
    const table = formatTable(await compareStrategies(mixtureLengths(1_000_000, seed), { capacity: L, overlong: 'split' }), L);
    process.stdout.write(table.trimEnd().replace(/^/gm, '   ') + '\n\n');
  }
  if (!skip.has(3)) orderSection();
  process.stdout.write(streamed);
  process.stdout.write(`\npeak RSS of this process (sections 1-2): ${mb(process.resourceUsage().maxRSS)} MB\n`);
}

/** Section 1: the streaming packer, native against TypeScript. */
function packerSection(count: number, seed: number): void {
  const lengths = new Uint32Array(count);
  let at = 0;
  for (const b of mixtureBatches(count, seed)) {
    lengths.set(b, at);
    at += b.length;
  }
  // Best of RUNS per implementation, alternating, so a burst of load on the shared machine
  // does not decide the ratio; every run must give the same bins.
  let native = { seconds: Infinity, hash: 0 };
  let ts = { seconds: Infinity, hash: 0 };
  const hashes = new Set<number>();
  for (let run = 0; run < RUNS; run++) {
    const n = timePacker(new StreamingPacker({ capacity: L, overlong: 'split' }), lengths);
    const t = timePacker(new TsStreamingPacker({ capacity: L, overlong: 'split' }), lengths);
    hashes.add(n.hash).add(t.hash);
    if (n.seconds < native.seconds) native = n;
    if (t.seconds < ts.seconds) ts = t;
  }
  const nativeRate = count / native.seconds;
  const tsRate = count / ts.seconds;
  process.stdout.write(`1. streaming packer (window ${DEFAULT_WINDOW_UNITS} units, open-bin bound ${DEFAULT_MAX_OPEN_BINS}), ${count.toLocaleString('en-US')} mixture lengths, in memory (best of ${RUNS} runs each)\n`);
  process.stdout.write(`   native      ${native.seconds.toFixed(3)} s  ${Math.round(nativeRate).toLocaleString('en-US')} docs/s\n`);
  process.stdout.write(`   typescript  ${ts.seconds.toFixed(3)} s  ${Math.round(tsRate).toLocaleString('en-US')} docs/s\n`);
  process.stdout.write(`   native / typescript = ${(nativeRate / tsRate).toFixed(2)}x; identical bins: ${hashes.size === 1 ? 'yes' : 'NO'} (checksum ${native.hash.toString(16)})\n\n`);
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) await main();
