import { spawnSync } from 'node:child_process';

/**
 * A command to run on one CPU (util-linux `taskset`), for single-threaded rows compared in one
 * run: on this shared host the two vCPUs are not alike from one minute to the next (the same
 * build of the tokenizer core ran at 194-210 MB/s on one and 145-146 on the other, alternated,
 * where fixed integer work and sha256 ran alike on both: another guest on a sibling thread
 * shares the core's caches), so two rows that landed on different vCPUs compared the vCPUs.
 * `MIDPACK_BENCH_CPU` chooses the CPU (default 0); without taskset the command runs as given.
 */
export function onOneCpu(command: string, args: readonly string[]): { command: string; args: string[] } {
  const cpu = benchCpu();
  return cpu === undefined ? { command, args: [...args] } : { command: 'taskset', args: ['-c', String(cpu), command, ...args] };
}

/** The CPU onOneCpu runs commands on, or undefined when this machine has no taskset (for the benchmarks' output). */
export function benchCpu(): number | undefined {
  if (!hasTaskset()) return undefined;
  const cpu = Number(process.env.MIDPACK_BENCH_CPU ?? 0);
  if (!Number.isInteger(cpu) || cpu < 0) throw new Error(`MIDPACK_BENCH_CPU must be a CPU number, not ${process.env.MIDPACK_BENCH_CPU}`);
  return cpu;
}

let found: boolean | undefined;
function hasTaskset(): boolean {
  found ??= spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;
  return found;
}
