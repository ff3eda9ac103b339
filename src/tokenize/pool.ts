import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import type { TokenizeRequest, TokenizeResult } from './encode.js';

/**
 * Tokenizes on worker threads and hands results back in input order, so the output is the
 * same for any worker count. Batches are bounded in size and in number in flight, so memory
 * does not grow with the corpus.
 */
export interface PoolOptions {
  workers?: number;
  tokenizer?: string;
  /** Resolved by resolveTokenizerBackend on the main thread: `hf` (default) or `fast`. */
  backend?: 'hf' | 'fast';
  /** A batch closes at this many characters or documents. */
  batchChars?: number;
  batchDocs?: number;
  /** Batches in flight per worker. */
  depth?: number;
  /** Heap limit of each worker thread. */
  workerHeapMb?: number;
}

export class TokenizePool {
  private readonly workers: Worker[] = [];
  private readonly ready: Promise<void>[];
  readonly size: number;

  constructor(private readonly opts: PoolOptions = {}) {
    this.size = Math.max(1, opts.workers ?? availableParallelism());
    const url = new URL('./worker.js', import.meta.url);
    this.ready = [];
    for (let i = 0; i < this.size; i++) {
      // A worker's heap is bounded (vocabulary maps, word memo, one batch): memory is set by configuration.
      const w = new Worker(url, { workerData: { tokenizer: opts.tokenizer ?? 'qwen3', backend: opts.backend ?? 'hf' }, resourceLimits: { maxOldGenerationSizeMb: opts.workerHeapMb ?? 1024 } });
      this.workers.push(w);
      const ready = new Promise<void>((resolve, reject) => {
        w.once('message', () => resolve());
        w.once('error', reject);
      });
      ready.catch(() => {}); // reported by map(); a job that fails before it must not crash on it
      this.ready.push(ready);
    }
  }

  /** Maps items to tokenized results, in order. `toRequest` picks what to tokenize from an item. */
  async *map<T>(items: AsyncIterable<T>, toRequest: (item: T) => TokenizeRequest): AsyncIterable<[T, TokenizeResult]> {
    await Promise.all(this.ready);
    const batchChars = this.opts.batchChars ?? 1 << 18;
    const batchDocs = this.opts.batchDocs ?? 512;
    const maxInFlight = this.size * (this.opts.depth ?? 2);
    const inFlight: Promise<[T, TokenizeResult][]>[] = [];
    let next = 0;
    let batch: T[] = [];
    let requests: TokenizeRequest[] = [];
    let chars = 0;
    const send = () => {
      const worker = this.workers[next % this.size]!;
      const id = next++;
      const items = batch;
      const docs = requests;
      batch = [];
      requests = [];
      chars = 0;
      inFlight.push(
        new Promise((resolve, reject) => {
          const onMessage = (msg: { batch: number; results: TokenizeResult[] }) => {
            if (msg.batch !== id) return;
            worker.off('message', onMessage);
            worker.off('error', reject);
            resolve(items.map((it, i) => [it, msg.results[i]!]));
          };
          worker.on('message', onMessage);
          worker.once('error', reject);
          worker.postMessage({ batch: id, docs });
        }),
      );
    };
    for await (const item of items) {
      const req = toRequest(item);
      batch.push(item);
      requests.push(req);
      chars += req.text.length;
      if (chars >= batchChars || batch.length >= batchDocs) {
        send();
        if (inFlight.length >= maxInFlight) yield* await inFlight.shift()!;
      }
    }
    if (batch.length) send();
    while (inFlight.length) yield* await inFlight.shift()!;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
