/**
 * Benchmark of repository serialization (npm run bench:repos): reading, filtering,
 * ordering and writing real source, on one core (the main thread; nothing else runs).
 *
 * The corpus is what this machine has installed: the packages of node_modules and the
 * Debian trees of headers, Python, Perl and CMake sources, each folder under a root one
 * repository. When they hold less than --min-mb of kept source, the list is read again
 * (said in the output). A first untimed pass warms the page cache, so the figure is the
 * serializer's, not the disk's. Prints MB/s of kept source and of written output, per
 * ordering, and the peak RSS.
 *
 *   node dist/scripts/bench-repos.js [--min-mb 200] [--out FILE] [--baseline DIR]
 *
 * With --baseline DIR (another checkout, built), each ordering runs with that build's serializer
 * too, alternating in the same process, and the ratio of this build's MB/s per core to the
 * baseline's is printed: load on the machine falls on both alike.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultContext } from '../src/core/stage.js';
import { writeDocsJsonl } from '../src/io/jsonl.js';
import { pathToFileURL } from 'node:url';
import { serializeRepos, type OrderWeights } from '../src/stages/repos/index.js';

type Serialize = typeof serializeRepos;

const ROOTS = [
  'node_modules',
  '/usr/include',
  '/usr/lib/python3.11',
  '/usr/lib/python3/dist-packages',
  '/usr/share/perl',
  '/usr/lib/x86_64-linux-gnu/perl',
  '/usr/lib/node_modules',
  '/usr/share/cmake-3.25',
];

interface Run {
  seconds: number;
  /** User + system CPU time of this process: the cost on one core, whatever else the machine runs. */
  cpuSeconds: number;
  keptBytes: number;
  outBytes: number;
  docs: number;
  filesIn: number;
  filesOut: number;
}

async function run(inputs: string[], order: OrderWeights, out: string, serialize: Serialize = serializeRepos): Promise<Run> {
  const ctx = defaultContext({ seed: 1, log: () => {} });
  let keptBytes = 0;
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  async function* counted() {
    for await (const d of serialize(inputs, { order, layout: 'collection' }, ctx)) {
      keptBytes += d.meta.bytes as number;
      yield d;
    }
  }
  const docs = await writeDocsJsonl(out, counted());
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  if (!ctx.ledger.balanced()) throw new Error('the ledger does not balance');
  return { seconds, cpuSeconds, keptBytes, outBytes: statSync(out).size, docs, filesIn: ctx.ledger.recordsIn, filesOut: ctx.ledger.recordsOut };
}

const MB = 1 << 20;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'min-mb': { type: 'string', default: '200' }, out: { type: 'string' }, baseline: { type: 'string' } } });
  const baseline = values.baseline
    ? ((await import(pathToFileURL(resolve(values.baseline, 'dist', 'src', 'stages', 'repos', 'index.js')).href)) as { serializeRepos: Serialize }).serializeRepos
    : undefined;
  const minBytes = Number(values['min-mb']) * MB;
  const out = values.out ?? join(tmpdir(), `midpack-bench-repos-${process.pid}.jsonl`);
  const roots = ROOTS.filter((r) => existsSync(r));
  // One untimed pass: warms the page cache and measures how much source the roots hold.
  const warm = await run(roots, { alpha: 1 }, out);
  const passes = Math.max(1, Math.ceil(minBytes / warm.keptBytes));
  const inputs = Array.from({ length: passes }, () => roots).flat();
  console.log(`corpus: ${roots.join(' ')}`);
  console.log(
    `  ${warm.filesIn} files seen, ${warm.filesOut} kept in ${warm.docs} repositories, ${(warm.keptBytes / MB).toFixed(1)} MB of kept source` +
      (passes > 1 ? `; read ${passes} times to reach ${values['min-mb']} MB` : ''),
  );
  const orders: [string, OrderWeights][] = [
    ['mixed alpha=0.3,dependency=0.5,random=0.2', { alpha: 0.3, dependency: 0.5, random: 0.2 }],
    ['alpha', { alpha: 1 }],
    ['dependency', { dependency: 1 }],
    ['random', { random: 1 }],
  ];
  const line = (name: string, r: Run) => {
    const mb = r.keptBytes / MB;
    console.log(
      `${name.padEnd(42)} ${mb.toFixed(1)} MB source, ${(r.outBytes / MB).toFixed(1)} MB written: ` +
        `${r.seconds.toFixed(2)} s wall = ${(mb / r.seconds).toFixed(1)} MB/s; ${r.cpuSeconds.toFixed(2)} s CPU = ${(mb / r.cpuSeconds).toFixed(1)} MB/s per core`,
    );
    return mb / r.cpuSeconds;
  };
  for (const [name, order] of orders) {
    const ours = line(name, await run(inputs, order, out));
    if (!baseline) continue;
    const base = line(`  baseline ${values.baseline}`, await run(inputs, order, out, baseline));
    console.log(`  this build / baseline, MB/s per core: ${(ours / base).toFixed(3)}`);
  }
  rmSync(out, { force: true });
  rmSync(`${out}.manifest.json`, { force: true });
  console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
}

await main();
