import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Peak RSS of each phase of a job (the whole process: every worker thread, the native heaps),
 * measured, not estimated. On Linux the kernel's high-water mark is reset as a phase starts
 * (`5` written to /proc/self/clear_refs) and read as it ends (getrusage's maxRSS), so each
 * phase gets its own peak. Where it cannot be reset, a phase's figure is the process's peak so
 * far: an upper bound, marked by `exact: false`.
 *
 * As a phase starts, a full garbage collection gives the previous phase's dead buffers back to
 * the system first. V8 collects the old generation only when its own heap grows, so a large
 * buffer a phase let go of (the mask counter's 256 MB table, dead once counting ends) otherwise
 * stays resident well into the next phase, on top of that phase's own memory.
 *
 * A reset also lowers what process.resourceUsage().maxRSS says for the whole process: the peak
 * over every reset is kept in a process-wide slot that `processPeakRssKb()` (and the benchmarks'
 * rss-at-exit hook) read.
 */
const SLOT = Symbol.for('midpack.peakRssKb');

type PeakSlot = { [SLOT]?: number };

/** The process's peak RSS in KiB since it started, across the phases' resets. */
export function processPeakRssKb(): number {
  return Math.max((globalThis as PeakSlot)[SLOT] ?? 0, process.resourceUsage().maxRSS);
}

function keepProcessPeak(kb: number): void {
  const slot = globalThis as PeakSlot;
  slot[SLOT] = Math.max(slot[SLOT] ?? 0, kb);
}

let fullGc: (() => void) | undefined;

/** A full collection (V8's gc(), exposed once for this: the flag only adds the function). */
export function collectGarbage(): void {
  if (!fullGc) {
    setFlagsFromString('--expose-gc');
    fullGc = runInNewContext('gc') as () => void;
  }
  fullGc();
}

/** Resets the kernel's high-water mark of this process; false where that is not possible. */
function resetPeak(): boolean {
  try {
    keepProcessPeak(process.resourceUsage().maxRSS);
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** The current RSS from /proc (KiB), else Node's figure. */
function currentRssKb(): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) || process.memoryUsage.rss() / 1024;
  } catch {
    return process.memoryUsage.rss() / 1024;
  }
}

export class PhasePeaks {
  private readonly peaksKb = new Map<string, number>();
  private current: string | undefined;
  exact = true;

  /** Ends the current phase (if any) and starts `phase`. A phase started again keeps the larger peak. */
  start(phase: string): void {
    this.end();
    collectGarbage();
    if (!resetPeak()) this.exact = false;
    this.current = phase;
  }

  /** Records the current phase's peak. */
  end(): void {
    if (this.current === undefined) return;
    const kb = Math.max(process.resourceUsage().maxRSS, currentRssKb());
    keepProcessPeak(kb);
    this.peaksKb.set(this.current, Math.max(this.peaksKb.get(this.current) ?? 0, kb));
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
