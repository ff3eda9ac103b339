import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * The share of this machine's CPU time the hypervisor gave to other guests (steal, from
 * /proc/stat) while a measurement ran: a benchmark prints it beside a wall time, since on a
 * shared host a third of a run's ticks can be stolen and its wall time then says little.
 */
export interface CpuTicks {
  steal: number;
  total: number;
}

export function cpuTicks(): CpuTicks {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  return { steal: fields[7] ?? 0, total: fields.reduce((a, b) => a + b, 0) };
}

/** Stolen ticks over all ticks between two readings, as a percentage. */
export function stealPercent(before: CpuTicks, after: CpuTicks = cpuTicks()): number {
  const total = after.total - before.total;
  return total > 0 ? (100 * (after.steal - before.steal)) / total : 0;
}

/**
 * A fixed piece of single-threaded JavaScript (4·10⁸ steps of integer arithmetic), timed in
 * milliseconds: the hypervisor's steal misses some contention (a busy sibling core, a lower
 * clock), which shows here as the same work taking longer. Printed before and after a benchmark.
 * It runs in a fresh Node process, warmed up before it is timed: in the benchmark's own process,
 * or unwarmed, the loop ran either V8's fully optimized code (about 450 ms here) or its
 * on-stack-replaced code (about 2,150 ms) depending on what ran before, and a quiet host read as
 * a loaded one.
 */
export function speedProbeMs(): number {
  const r = spawnSync(process.execPath, ['-e', PROBE], { encoding: 'utf8' });
  const ms = Number(r.stdout.trim());
  if (r.status !== 0 || !Number.isFinite(ms)) throw new Error(`the speed probe failed: ${r.stderr.trim()}`);
  return ms;
}

const PROBE = `
function probe(steps) {
  const t0 = performance.now();
  let x = 0;
  for (let i = 0; i < steps; i++) x = (Math.imul(x, 31) + i) | 0;
  if (x === 0.5) throw new Error('unreachable: keeps the loop from being dropped');
  return performance.now() - t0;
}
for (let k = 0; k < 200; k++) probe(1e5);
process.stdout.write(String(probe(4e8)));
`;
