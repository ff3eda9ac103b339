import { Worker } from 'node:worker_threads';
import { limitAllocatorArenas } from '../core/allocator.js';
import type { Span } from '../doc/document.js';
import type { LedgerJson } from '../core/ledger.js';
import type { MaskOptions } from '../stages/mask/options.js';

/**
 * The masking pass of a run that tokenized while it prepared, on a thread of its own
 * (mask-worker.ts): it reads docs.jsonl back, parses and masks each document with the final
 * counts, while the main thread places the masks it sends in the chunks (remaskChunks). Reading
 * and masking took about two thirds of the pass on the main thread; beside it, the pass takes
 * the longer of the two halves instead of their sum.
 */
export interface MaskThreadSetup {
  docsPath: string;
  countsPath: string;
  options: MaskOptions;
  seed: number;
}

export type MaskThreadMessage =
  /** Documents in order, untokenizable ones left out: `counts[i]` spans each, their [start, end) pairs back to back in `spans`. */
  | { type: 'batch'; ids: string[]; counts: Uint32Array; spans: Uint32Array }
  /** The mask stage's ledger and figures (ctx.stats), once every document was read. */
  | { type: 'done'; ledger: LedgerJson; stats: Record<string, unknown> };

/** A tokenizable document's id and its final loss-mask spans (its own and masking's, merged). */
export interface DocSpans {
  id: string;
  spans: Span[];
}

const WORKER_URL = new URL('./mask-worker.js', import.meta.url);

export class MaskThread implements AsyncIterable<DocSpans> {
  private readonly worker: Worker;
  private readonly batches: Extract<MaskThreadMessage, { type: 'batch' }>[] = [];
  private failure: { e: unknown } | undefined;
  private finished: Extract<MaskThreadMessage, { type: 'done' }> | undefined;
  private wake: (() => void) | undefined;

  constructor(setup: MaskThreadSetup) {
    limitAllocatorArenas();
    this.worker = new Worker(WORKER_URL, { workerData: setup });
    this.worker.on('message', (m: MaskThreadMessage) => {
      if (m.type === 'batch') this.batches.push(m);
      else this.finished = m;
      this.notify();
    });
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => this.fail(new Error(`the masking thread exited (code ${code}) before it was done`)));
  }

  /** The documents' spans in order; throws what stopped the thread. */
  async *[Symbol.asyncIterator](): AsyncIterator<DocSpans> {
    for (;;) {
      const b = this.batches.shift();
      if (b) {
        this.worker.postMessage('credit');
        yield* unpack(b);
        continue;
      }
      if (this.finished) return;
      if (this.failure) throw this.failure.e;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The mask stage's ledger and figures, once every batch was taken. */
  result(): { ledger: LedgerJson; stats: Record<string, unknown> } {
    if (!this.finished || this.batches.length) throw new Error('the masking thread is not done');
    return { ledger: this.finished.ledger, stats: this.finished.stats };
  }

  async close(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  private fail(e: unknown): void {
    if (this.finished) return;
    this.failure ??= { e };
    this.notify();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}

function* unpack(b: Extract<MaskThreadMessage, { type: 'batch' }>): Iterable<DocSpans> {
  let at = 0;
  for (let i = 0; i < b.ids.length; i++) {
    const spans: Span[] = [];
    for (let n = b.counts[i]!; n > 0; n--, at += 2) spans.push([b.spans[at]!, b.spans[at + 1]!]);
    yield { id: b.ids[i]!, spans };
  }
}
