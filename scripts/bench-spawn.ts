/**
 * npm run bench:spawn — what starting one git-sized child costs the parent afterwards.
 *
 * A process that has written `--mb` megabytes starts a child (`true`) and writes the same pages
 * again. Through node:child_process (libuv forks the whole process) every written page is then
 * copy-on-write and faults on its next write; through midpack's spawnProcess (posix_spawnp from
 * the native core) nothing is write-protected. The two ways alternate `--rounds` times in this
 * one process; it prints the CPU of writing the pages before and after each spawn, the spawn's
 * own wall time, the medians and their ratio, and peak RSS.
 *
 *   npm run bench:spawn -- [--mb 512] [--rounds 3]
 */
import { spawnProcess } from '../src/io/spawn-process.js';
import { checkFlags } from './args.js';
import { numberFlag } from './build-e2e-corpus.js';

const USAGE = `usage: npm run bench:spawn -- [--mb N] [--rounds N]
  --mb      megabytes the parent has written before each spawn (default 512)
  --rounds  spawns by each way, alternated (default 3)`;

const PAGE = 4096;

function cpuMs(work: () => void): number {
  const t = process.cpuUsage();
  work();
  const u = process.cpuUsage(t);
  return (u.user + u.system) / 1000;
}

/** One write to every page of the buffers. */
function touch(buffers: Buffer[]): void {
  for (const b of buffers) for (let o = 0; o < b.length; o += PAGE) b[o] = (b[o]! + 1) & 0xff;
}

/** `true` started by one way, awaited to its close; its wall time in ms. */
function spawnTrue(way: 'native' | 'node'): Promise<number> {
  if (way === 'node') process.env.MIDPACK_SPAWN = 'node';
  else delete process.env.MIDPACK_SPAWN;
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawnProcess('true', [], { stdio: ['ignore', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - t0));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  checkFlags(args, ['--mb', '--rounds'], USAGE);
  const mb = numberFlag(args, '--mb', 512);
  const rounds = numberFlag(args, '--rounds', 3);
  const buffers = Array.from({ length: Math.ceil(mb / 64) }, () => Buffer.alloc(64 << 20, 1));
  const after: Record<'native' | 'node', number[]> = { native: [], node: [] };
  for (let r = 0; r < rounds; r++) {
    for (const way of ['native', 'node'] as const) {
      const before = cpuMs(() => touch(buffers));
      const wall = await spawnTrue(way);
      const again = cpuMs(() => touch(buffers));
      after[way].push(again);
      process.stdout.write(`round ${r + 1} ${way.padEnd(6)}  write ${mb} MB ${before.toFixed(1)} ms CPU; spawn and wait ${wall.toFixed(1)} ms; write again after the spawn ${again.toFixed(1)} ms CPU\n`);
    }
  }
  const [native, node] = [median(after.native), median(after.node)];
  process.stdout.write(`median CPU of writing ${mb} MB after one spawn: native (posix_spawnp) ${native.toFixed(1)} ms, node:child_process (fork) ${node.toFixed(1)} ms: ${(node / Math.max(native, 0.1)).toFixed(0)}x\n`);
  process.stdout.write(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`);
}

await main();
