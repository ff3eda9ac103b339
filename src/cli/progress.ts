import cliProgress from 'cli-progress';
import type { PackProgressEvent } from '../job/pack-job.js';

/**
 * Progress on stderr, only when stderr is a terminal (never in logs or CI output): one line of
 * running counters, redrawn at most a few times a second.
 */
export class Progress {
  private readonly bar: cliProgress.SingleBar | undefined;
  private readonly values: Record<string, number> = {};
  private readonly started = Date.now();
  private last = 0;

  constructor(enabled: boolean, readonly counters: string[]) {
    for (const c of counters) this.values[c] = 0;
    if (!enabled || !process.stderr.isTTY) return;
    const format = counters.map((c) => `${c} {${c}}`).join(' | ') + ' | {rate} | {elapsed}s';
    this.bar = new cliProgress.SingleBar({ format, stream: process.stderr, hideCursor: true, clearOnComplete: false, fps: 5 }, cliProgress.Presets.shades_classic);
    this.bar.start(1, 0, this.payload());
  }

  add(counter: string, n: number): void {
    this.values[counter] = (this.values[counter] ?? 0) + n;
    if (!this.bar) return;
    const now = Date.now();
    if (now - this.last < 200) return;
    this.last = now;
    this.bar.update(0, this.payload());
  }

  private payload(): Record<string, string> {
    const secs = Math.max(0.001, (Date.now() - this.started) / 1000);
    const p: Record<string, string> = { elapsed: secs.toFixed(0) };
    for (const c of this.counters) p[c] = (this.values[c] ?? 0).toLocaleString('en-US');
    const first = this.counters[1] ?? this.counters[0]!;
    p.rate = `${Math.round((this.values[first] ?? 0) / secs).toLocaleString('en-US')} ${first}/s`;
    return p;
  }

  stop(): void {
    if (!this.bar) return;
    this.bar.update(0, this.payload());
    this.bar.stop();
  }
}

/** The CLI's view of a pack job's progress events: one line of counters (documents, tokens, planned and written bins). */
export function packProgress(enabled: boolean): { onProgress: (e: PackProgressEvent) => void; stop: () => void } {
  const p = new Progress(enabled, ['documents', 'tokens', 'planned', 'written']);
  return {
    onProgress(e) {
      if (e.documents) p.add('documents', e.documents);
      if (e.tokens) p.add('tokens', e.tokens);
      if (e.phase === 'plan' && e.bins) p.add('planned', e.bins);
      if (e.phase === 'write' && e.bins) p.add('written', e.bins);
    },
    stop: () => p.stop(),
  };
}
