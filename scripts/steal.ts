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
