/**
 * Progress of a job in phases (read/tokenize, plan, write), drawn from `onProgress` events that
 * carry increments: on a terminal, one bar per phase with percentage, rate and ETA, redrawn at
 * most 5 times a second, and a first line at once (so the screen is never blank while the
 * tokenizer loads); elsewhere (logs, CI, a collector), one plain line per phase as it ends,
 * and one every `intervalMs` (default 60 s) while a long phase runs. Percentage and ETA wherever
 * the total is known: input bytes read while tokenizing, passes while planning, bins while writing.
 */
export interface PhaseEvent {
  phase: string;
  /** Increment of the phase's main count (bytes read, documents planned, bins written...). */
  done?: number;
  /** The phase's total in the same unit, when known (the input bytes, the bins to write). */
  total?: number;
  unit?: string;
}

/** A pack job's event (src/job/pack-job.ts PackProgressEvent), as far as progress needs it. */
export interface PackEventLike {
  phase: string;
  documents?: number;
  tokens?: number;
  bins?: number;
  bytes?: number;
  totalBytes?: number;
  totalBins?: number;
  /** plan: the pass starting (0: the counting pass; passes + 1: planning done) of `passes`. */
  pass?: number;
  passes?: number;
}

interface PhaseState {
  done: number;
  total?: number;
  unit: string;
  started: number;
  finished?: number;
}

export interface PhaseProgressOptions {
  stream?: NodeJS.WriteStream | { write(s: string): unknown; isTTY?: boolean; columns?: number };
  /** Plain lines (no terminal) every this many milliseconds. */
  intervalMs?: number;
  now?: () => number;
}

export class PhaseProgress {
  private readonly phases = new Map<string, PhaseState>();
  private readonly stream: NonNullable<PhaseProgressOptions['stream']>;
  private readonly tty: boolean;
  private readonly now: () => number;
  private readonly intervalMs: number;
  private lastDraw = 0;
  private drawnLines = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly label: string,
    o: PhaseProgressOptions = {},
  ) {
    this.stream = o.stream ?? process.stderr;
    this.tty = this.stream.isTTY === true;
    this.now = o.now ?? Date.now;
    this.intervalMs = o.intervalMs ?? 60_000;
    this.event({ phase: 'starting', unit: 'steps' });
    if (this.tty) this.draw();
    else {
      this.stream.write(`midpack: ${label}: starting\n`);
      this.timer = setInterval(() => this.line(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Adds a phase's increment; a new phase ends the previous ones. */
  event(e: PhaseEvent): void {
    let p = this.phases.get(e.phase);
    if (!p) {
      for (const [name, q] of this.phases) {
        if (q.finished !== undefined) continue;
        q.finished = this.now();
        if (!this.tty) this.line(name); // one line per phase as it ends
      }
      p = { done: 0, unit: e.unit ?? '', started: this.now() };
      this.phases.set(e.phase, p);
    }
    p.done += e.done ?? 0;
    if (e.total !== undefined) p.total = e.total;
    if (this.tty && this.now() - this.lastDraw >= 200) this.draw();
  }

  /**
   * The pack job's events: reading by input bytes when known (else documents), planning by
   * passes (the counting pass included) when the job reports them (else bins), writing by bins.
   */
  pack(e: PackEventLike): void {
    if (e.phase === 'tokenize') {
      if (e.totalBytes !== undefined || e.bytes !== undefined) this.event({ phase: 'read + tokenize', done: e.bytes, total: e.totalBytes, unit: 'bytes' });
      else this.event({ phase: 'read + tokenize', done: e.documents, unit: 'documents' });
    } else if (e.phase === 'plan' && e.pass !== undefined) {
      // A pass starting ends the one before it; the count of planning passes is known after counting.
      this.event({ phase: 'plan', done: e.pass > 0 ? 1 : 0, total: e.passes ? e.passes + 1 : undefined, unit: 'passes' });
    } else if (e.phase === 'plan') {
      if (this.phases.get('plan')?.unit !== 'passes') this.event({ phase: 'plan', done: e.bins, unit: 'bins' });
    } else this.event({ phase: e.phase, done: e.bins, total: e.phase === 'write' ? e.totalBins : undefined, unit: 'bins' });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    const running = [...this.phases].filter(([, q]) => q.finished === undefined);
    for (const [, q] of running) q.finished = this.now();
    if (this.tty) this.draw();
    else for (const [name] of running) this.line(name);
  }

  /** One phase as text: `write [#####-----]  50% 128/256 bins, 12.5 bins/s, eta 10s`. */
  describe(name: string, p: PhaseState, barWidth: number): string {
    const secs = Math.max(0.001, ((p.finished ?? this.now()) - p.started) / 1000);
    const rate = p.done / secs;
    const count = `${fmt(p.done)}${p.total !== undefined ? `/${fmt(p.total)}` : ''} ${p.unit}`;
    const rateText = `${fmt(rate)} ${p.unit}/s`;
    if (name === 'starting') return `starting (loading the tokenizer)${p.finished !== undefined ? `, ${secs.toFixed(1)}s` : '…'}`;
    if (p.total === undefined || p.total <= 0) return `${name} ${count}, ${rateText}, ${secs.toFixed(0)}s${p.finished !== undefined ? ' done' : ''}`;
    const frac = Math.min(1, p.done / p.total);
    const eta = p.finished !== undefined ? 'done' : rate > 0 ? `eta ${Math.ceil((p.total - p.done) / rate)}s` : 'eta ?';
    const bar = barWidth > 0 ? ` [${'#'.repeat(Math.round(frac * barWidth)).padEnd(barWidth, '-')}]` : '';
    return `${name}${bar} ${(frac * 100).toFixed(0).padStart(3)}% ${count}, ${rateText}, ${eta}`;
  }

  private draw(): void {
    this.lastDraw = this.now();
    const lines = [...this.phases].map(([name, p]) => `midpack: ${this.label}: ${this.describe(name, p, 24)}`);
    const width = (this.stream as { columns?: number }).columns ?? 120;
    const up = this.drawnLines > 1 ? `\x1b[${this.drawnLines - 1}A` : '';
    this.stream.write(`${up}\r${lines.map((l) => `${l.slice(0, width - 1)}\x1b[K`).join('\n')}`);
    this.drawnLines = lines.length;
  }

  /** A phase (the current one by default) as one plain line, for logs. */
  private line(name = [...this.phases.keys()].at(-1)!): void {
    this.stream.write(`midpack: ${this.label}: ${this.describe(name, this.phases.get(name)!, 0)}\n`);
  }

  /** Ends the bars' line on a terminal (call after stop, before printing a summary). */
  end(): void {
    if (this.tty && this.drawnLines) this.stream.write('\n');
  }
}

function fmt(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/** A phase display for a pack job's events: `onProgress` goes to the job, `stop` when it ends. */
export function phaseProgress(label: string): { onProgress: (e: PackEventLike) => void; stop: () => void } {
  const p = new PhaseProgress(label);
  return { onProgress: (e) => p.pack(e), stop: () => p.stop() };
}
