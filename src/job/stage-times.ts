import { existsSync, openSync, readSync } from 'node:fs';
import type { Doc } from '../doc/document.js';
import { groupedNumber } from '../core/format.js';

/**
 * Time per stage of `midpack run`, as datatrove's stats give it: wall time, CPU time, documents
 * and bytes out, documents/s and MB/s (of the documents the stage yields).
 *
 * Stages are lazy iterators pulled one from the other, so the time spent in a stage's `next()`
 * includes its upstream's: each stage is measured inclusive, and its own time is that minus its
 * upstream's inclusive time. A stage's CPU is its thread's (threadCpuSeconds: sources run in
 * prepare workers side by side), read on a sample of the calls (Clock). Phases (prepare, pack)
 * are measured start to end, with the CPU of every thread.
 */
export interface StageTime {
  wall_s: number;
  cpu_s: number;
  documents: number;
  bytes: number;
  docs_per_s: number;
  mb_per_s: number;
}

const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const THREAD_STAT = '/proc/thread-self/stat';
const hasThreadStat = existsSync(THREAD_STAT);
/** Linux's USER_HZ, the unit of utime and stime in /proc: 100 on every architecture Node runs on. */
const CLOCK_TICKS = 100;

/**
 * CPU seconds of the calling thread (utime + stime of /proc/thread-self/stat, 10 ms steps), where
 * process.cpuUsage() would add every thread's: a stage in a prepare worker is timed alone while
 * others run beside it. Elsewhere, the process's.
 */
export function threadCpuSeconds(): number {
  if (!hasThreadStat) return cpuSeconds();
  // One read of a file kept open (each thread opens its own: module state is per thread) where
  // readFileSync took five system calls: this is read a few thousand times a run, on every thread.
  threadStat ??= { fd: openSync(THREAD_STAT, 'r'), buf: Buffer.alloc(1024) };
  const stat = threadStat.buf.toString('latin1', 0, readSync(threadStat.fd, threadStat.buf, 0, threadStat.buf.length, 0));
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
let threadStat: { fd: number; buf: Buffer } | undefined;
const nowSeconds = () => performance.now() / 1000;

export function stageTime(wall: number, cpu: number, documents: number, bytes: number): StageTime {
  const per = (x: number) => (wall > 0 ? x / wall : 0);
  const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
  return { wall_s: round(wall, 3), cpu_s: round(cpu, 3), documents, bytes, docs_per_s: round(per(documents), 1), mb_per_s: round(per(bytes) / 1e6, 3) };
}

/**
 * Wall and CPU seconds over many timed calls. Wall is read every call (performance.now is
 * cheap); CPU (a read of /proc) costs tens of microseconds on a loaded machine,
 * so it is read for the first 64 calls and then every 16th, and the CPU of the calls not read
 * is estimated from their wall time at the ratio of those read.
 */
export class Clock {
  private wallAll = 0;
  private wallRead = 0;
  private cpuRead = 0;
  private calls = 0;

  async time<T>(f: () => Promise<T>): Promise<T> {
    const read = this.calls < 64 || this.calls % 16 === 0;
    this.calls++;
    const w0 = performance.now();
    const c0 = read ? threadCpuSeconds() : undefined;
    const r = await f();
    const w = (performance.now() - w0) / 1000;
    this.wallAll += w;
    if (c0 !== undefined) {
      this.wallRead += w;
      this.cpuRead += threadCpuSeconds() - c0;
    }
    return r;
  }

  get wall(): number {
    return this.wallAll;
  }

  get cpu(): number {
    return this.wallRead > 0 ? (this.cpuRead * this.wallAll) / this.wallRead : this.cpuRead;
  }
}

/** One stage's inclusive wall and CPU seconds over its `next()` calls, and what it yielded. */
class StageClock extends Clock {
  documents = 0;
  bytes = 0;
  constructor(readonly upstream?: StageClock) {
    super();
  }

  own(): StageTime {
    return stageTime(Math.max(0, this.wall - (this.upstream?.wall ?? 0)), Math.max(0, this.cpu - (this.upstream?.cpu ?? 0)), this.documents, this.bytes);
  }
}

export class StageTimes {
  private readonly clocks = new Map<string, StageClock>();
  private readonly fixed = new Map<string, StageTime>();

  /** The stage's documents, timed under `name`; `upstream` is the name of the stage it pulls from. */
  wrap(name: string, docs: AsyncIterable<Doc>, upstream?: string): AsyncIterable<Doc> {
    const clock = new StageClock(upstream === undefined ? undefined : this.clocks.get(upstream));
    this.clocks.set(name, clock);
    return timed(docs, clock);
  }

  /** The inclusive seconds (wall, CPU) of a wrapped stage so far. */
  inclusive(name: string): { wall: number; cpu: number } {
    const c = this.clocks.get(name);
    return { wall: c?.wall ?? 0, cpu: c?.cpu ?? 0 };
  }

  /** A time measured elsewhere (a phase, or one derived from others). */
  set(name: string, t: StageTime): void {
    this.fixed.set(name, t);
  }

  get(name: string): StageTime | undefined {
    return this.fixed.get(name) ?? this.clocks.get(name)?.own();
  }

  toJSON(): Record<string, StageTime> {
    const out: Record<string, StageTime> = {};
    for (const k of this.clocks.keys()) out[k] = this.clocks.get(k)!.own();
    for (const [k, v] of this.fixed) out[k] = v;
    return out;
  }
}

async function* timed(docs: AsyncIterable<Doc>, clock: StageClock): AsyncIterable<Doc> {
  const it = docs[Symbol.asyncIterator]();
  try {
    for (;;) {
      const r = await clock.time(() => it.next());
      if (r.done) return;
      clock.documents++;
      clock.bytes += Buffer.byteLength(r.value.text);
      yield r.value;
    }
  } finally {
    await it.return?.();
  }
}

/** A phase measured start to end: `stop` gives its time (documents and bytes given by the caller). */
export function startPhase(): { stop: (documents: number, bytes: number) => StageTime; elapsed: () => { wall: number; cpu: number } } {
  const w0 = nowSeconds();
  const c0 = cpuSeconds();
  const elapsed = () => ({ wall: nowSeconds() - w0, cpu: cpuSeconds() - c0 });
  return {
    elapsed,
    stop: (documents, bytes) => {
      const e = elapsed();
      return stageTime(e.wall, e.cpu, documents, bytes);
    },
  };
}

/** One progress line for a finished stage (printed when stderr is not a terminal). */
export function stageTimeLine(name: string, t: StageTime): string {
  return `${name}: ${groupedNumber(t.documents)} documents, ${(t.bytes / 1e6).toFixed(1)} MB in ${t.wall_s.toFixed(1)} s (CPU ${t.cpu_s.toFixed(1)} s), ${t.docs_per_s.toFixed(0)} docs/s, ${t.mb_per_s.toFixed(2)} MB/s`;
}

/**
 * Whether report.json and report.html carry the measured times. A reproducible run
 * (SOURCE_DATE_EPOCH set: the reproducible-builds convention report.html already follows for its
 * date) leaves them out, so both files are the same bytes on every rerun; the run summary, the
 * progress lines and OUT/.run/prepared.json still have them.
 */
export function timesInReport(): boolean {
  return !process.env.SOURCE_DATE_EPOCH;
}
