import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Peak RSS of each phase of a job (the whole process: every worker thread, the native heaps),
 * measured, not estimated, and without touching the kernel's own peak (so /usr/bin/time, Slurm
 * and the benchmarks still read the process's true peak):
 *   - a phase that raised the process's high-water mark (getrusage maxRSS) gets that mark: exact,
 *     and it is the phase any memory limit is about;
 *   - any other phase gets the largest RSS sampled every 50 ms while it ran (and at its ends):
 *     below the process's peak by construction.
 *
 * As a phase starts, a full garbage collection gives the previous phase's dead buffers back to
 * the system first (when there can be enough of them: COLLECT_FROM_BYTES). V8 collects its old generation only as its own heap grows, so a large buffer
 * a phase let go of (the mask counter's 256 MB table, dead once counting ends) otherwise stays
 * resident well into the next phase, on top of that phase's own memory.
 */
const SAMPLE_MS = 50;

/**
 * A phase starts with a full collection only when the JS heap and the memory it holds outside
 * (ArrayBuffers, dead ones included until collected) come to this much: below it there is little
 * to give back, and a full collection still costs tens of milliseconds of this thread and of V8's
 * helper threads (a `pack` of 40 MB of code had three: about 90 ms of pauses on this thread).
 */
const COLLECT_FROM_BYTES = 64 << 20;

let fullGc: (() => void) | undefined;

/** A full collection (V8's gc(), exposed once for this: the flag only adds the function). */
export function collectGarbage(): void {
  if (!fullGc) {
    setFlagsFromString('--expose-gc');
    fullGc = runInNewContext('gc') as () => void;
  }
  fullGc();
}

const rssKb = () => process.memoryUsage.rss() / 1024;

/**
 * This process's peak RSS in KiB: the kernel's high-water mark of its own memory (VmHWM). Not
 * getrusage's maxRSS where /proc has it: after fork and exec, Linux carries the forked copy of
 * the parent's peak into the child's maxRSS, so a child of a large process reports at least the
 * parent's size.
 */
export function highWaterKb(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    // no /proc: the portable figure
  }
  return process.resourceUsage().maxRSS;
}

export class PhasePeaks {
  private readonly peaksKb = new Map<string, number>();
  private current: { phase: string; highWater: number; sampled: number; timer: NodeJS.Timeout } | undefined;

  /** Ends the current phase (if any) and starts `phase`. A phase started again keeps the larger peak. */
  start(phase: string): void {
    this.end();
    const { heapUsed, external } = process.memoryUsage();
    if (heapUsed + external >= COLLECT_FROM_BYTES) collectGarbage();
    const current = { phase, highWater: highWaterKb(), sampled: rssKb(), timer: setInterval(() => (current.sampled = Math.max(current.sampled, rssKb())), SAMPLE_MS) };
    current.timer.unref();
    this.current = current;
  }

  /** Records the current phase's peak. */
  end(): void {
    const c = this.current;
    if (!c) return;
    clearInterval(c.timer);
    const highWater = highWaterKb();
    const kb = highWater > c.highWater ? highWater : Math.max(c.sampled, rssKb());
    this.peaksKb.set(c.phase, Math.max(this.peaksKb.get(c.phase) ?? 0, kb));
    this.current = undefined;
  }

  /** Each phase's peak in MiB (as the benchmarks print RSS), in the order the phases ran. */
  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.peaksKb].map(([k, kb]) => [k, Math.round(kb / 1024)]));
  }
}

/** `prepare 512 MB, tokenize 700 MB, ...`: one line's worth of phase peaks. */
export function formatPeaks(peaks: Record<string, number>): string {
  return Object.entries(peaks)
    .map(([k, mb]) => `${k} ${mb} MB`)
    .join(', ');
}
