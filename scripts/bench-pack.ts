/**
 * Benchmark of the best-fit packer (npm run bench:pack). In one run:
 *  1. packs --count (10,000,000) mixture lengths at L=262,144 with the native core and with the
 *     TypeScript implementation of the same algorithm (best of 3 runs each, alternating); prints
 *     docs/s of each, their ratio, and whether all runs gave identical bins (a checksum over
 *     every unit of every bin);
 *  2. prints the five strategies of Table 13 on a 1,000,000-document mixture;
 *  3. plans 1,000,000-document mixtures (scripts/gen-lengths.ts) in four orders (random, grouped
 *     by kind, ascending, descending) with the whole-corpus planner at its defaults, for seed 1,
 *     seed 2 and a 40% repository share: bins, lower bound, padding and fragmentation of each;
 *  4. writes --stream-count (100,000,000) lengths to a temporary binary file (uint32, as
 *     OUT/doc_lengths.u32) and plans them streamed from it in a child process (the plan without
 *     the writing), printing that process's peak RSS.
 * Figures are ratios and rates measured in this one run, not timed assertions.
 *
 *   node dist/scripts/bench-pack.js [--count N] [--stream-count N] [--seed S]
 */
import { spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  type Packer,
} from '../src/pack/index.js';
import { TsStreamingPacker } from '../test/pack/ts-packer.js';

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
    JSON.stringify({ docs: s.docs, units: s.units, passes: s.passes, bins: s.bins, fragmented: s.fragmentedUnits, padding_rate: s.paddingTokens / (s.bins * L), lower_bound: Math.ceil(s.tokens / L), seconds, maxRssKb: process.resourceUsage().maxRSS }) + '\n',
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

/** Section 3: the planner on the same mixtures in four orders. */
async function orderSection(): Promise<void> {
  const pct = (x: number) => `${(100 * x).toFixed(4)}%`;
  process.stdout.write(`3. whole-corpus planner, 1,000,000-document mixtures in four orders (window ${DEFAULT_WINDOW_UNITS}, open bins ${DEFAULT_MAX_OPEN_BINS}, pass ${DEFAULT_PASS_UNITS} units)\n`);
  process.stdout.write(`   ${'mixture'.padEnd(18)}${'order'.padEnd(9)}${'bins'.padStart(8)}${'lower_bound'.padStart(13)}${'over_lb'.padStart(9)}${'padding'.padStart(10)}${'fragmented'.padStart(12)}${'seconds'.padStart(9)}\n`);
  const mixtures = [
    { name: 'seed 1', seed: 1, kinds: DEFAULT_MIXTURE },
    { name: 'seed 2', seed: 2, kinds: DEFAULT_MIXTURE },
    { name: 'seed 1, repo 40%', seed: 1, kinds: withRepoShare(0.4) },
  ];
  for (const m of mixtures) {
    for (const order of MIXTURE_ORDERS) {
      const lengths = mixtureSample(1_000_000, m.seed, order, m.kinds);
      const t = process.hrtime.bigint();
      const s = await planBins(() => [{ lengths }], { capacity: L, overlong: 'split' }, () => {});
      const seconds = Number(process.hrtime.bigint() - t) / 1e9;
      const lb = Math.ceil(s.tokens / L);
      process.stdout.write(
        `   ${m.name.padEnd(18)}${order.padEnd(9)}${String(s.bins).padStart(8)}${String(lb).padStart(13)}${('+' + (s.bins - lb)).padStart(9)}${pct(s.paddingTokens / (s.bins * L)).padStart(10)}${String(s.fragmentedUnits).padStart(12)}${seconds.toFixed(2).padStart(9)}\n`,
      );
    }
  }
  process.stdout.write('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '10000000' },
      'stream-count': { type: 'string', default: '100000000' },
      seed: { type: 'string', default: '1' },
      'stream-child': { type: 'string' },
    },
  });
  if (values['stream-child']) return streamChild(values['stream-child']);
  const count = Number(values.count);
  const streamCount = Number(values['stream-count']);
  const seed = Number(values.seed);

  process.stdout.write(`bench:pack  L=${L}, overlong=split, default window (${DEFAULT_WINDOW_UNITS} units) and open-bin bound (${DEFAULT_MAX_OPEN_BINS})\n\n`);
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
  process.stdout.write(`1. ${count.toLocaleString('en-US')} mixture lengths, in memory (best of ${RUNS} runs each)\n`);
  process.stdout.write(`   native      ${native.seconds.toFixed(3)} s  ${Math.round(nativeRate).toLocaleString('en-US')} docs/s\n`);
  process.stdout.write(`   typescript  ${ts.seconds.toFixed(3)} s  ${Math.round(tsRate).toLocaleString('en-US')} docs/s\n`);
  process.stdout.write(`   native / typescript = ${(nativeRate / tsRate).toFixed(2)}x; identical bins: ${hashes.size === 1 ? 'yes' : 'NO'} (checksum ${native.hash.toString(16)})\n\n`);

  process.stdout.write('2. Table 13 strategies on a 1,000,000-document mixture (as generated)\n');
  const table = formatTable(await compareStrategies(mixtureLengths(1_000_000, seed), { capacity: L, overlong: 'split' }), L);
  process.stdout.write(table.trimEnd().replace(/^/gm, '   ') + '\n\n');

  await orderSection();

  const file = join(tmpdir(), `midpack-bench-lengths-${process.pid}.u32`);
  try {
    const t = process.hrtime.bigint();
    writeU32File(file, streamCount, seed);
    const wrote = Number(process.hrtime.bigint() - t) / 1e9;
    const size = statSync(file).size;
    process.stdout.write(`4. ${streamCount.toLocaleString('en-US')} lengths planned streamed from a file (${(size / 2 ** 20).toFixed(0)} MiB uint32, written in ${wrote.toFixed(1)} s), native, in a child process, no writing\n`);
    const self = fileURLToPath(import.meta.url);
    const r = spawnSync(process.execPath, [self, '--stream-child', file], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`the streaming child failed: ${r.stderr}`);
    const c = JSON.parse(r.stdout) as { docs: number; units: number; passes: number; bins: number; fragmented: number; padding_rate: number; lower_bound: number; seconds: number; maxRssKb: number };
    process.stdout.write(
      `   ${c.docs.toLocaleString('en-US')} docs, ${c.units.toLocaleString('en-US')} units -> ${c.bins.toLocaleString('en-US')} bins (lower bound ${c.lower_bound.toLocaleString('en-US')}), padding ${(100 * c.padding_rate).toFixed(4)}%, fragmented ${c.fragmented}\n` +
        `   ${c.passes} planning passes (+1 counting), ${c.seconds.toFixed(1)} s (${Math.round(c.docs / c.seconds).toLocaleString('en-US')} docs/s); peak RSS ${mb(c.maxRssKb)} MB\n`,
    );
  } finally {
    rmSync(file, { force: true });
  }
  process.stdout.write(`\npeak RSS of this process (sections 1-3): ${mb(process.resourceUsage().maxRSS)} MB\n`);
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) await main();
