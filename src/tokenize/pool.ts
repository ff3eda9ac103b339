import { Worker } from 'node:worker_threads';
import { limitAllocatorArenas } from '../core/allocator.js';
import { availableParallelism } from 'node:os';
import type { TokenizeRequest, TokenizeResult } from './encode.js';
import { splitBatch, type EncodedBatch } from './batch.js';
import type { Doc } from '../doc/document.js';
import type { LineBatchJob } from './line-docs.js';
import { preparedForWorkers, sharedVocabulary, type ResolvedBackend } from './tokenizer.js';
import type { WorkerSetup } from './worker.js';
import { seedNativeCore } from './native-bpe.js';

/**
 * Tokenizes on worker threads and hands results back in input order, so the output is the
 * same for any worker count. Batches are bounded in size and in number outstanding, so memory
 * does not grow with the corpus.
 *
 * The workers should never wait for the main thread: input is read and batches are sent from
 * the event loop as soon as a worker's queue has room, independently of how fast the caller
 * takes the results, and each worker keeps `depth` batches queued, enough to cover the main
 * thread's longest synchronous step (writing a chunk, assembling bins). A batch goes to the
 * worker with the fewest characters queued, and comes back as one message of flat typed arrays.
 */
export interface PoolOptions {
  workers?: number;
  tokenizer?: string;
  /** Resolved by resolveTokenizerBackend on the main thread: `hf` (default), `fast` or `native`. */
  backend?: ResolvedBackend;
  /** Pieces each worker's native backend keeps in its table of pieces already encoded. */
  cachePieces?: number;
  /** A batch closes at this many characters or documents. */
  batchChars?: number;
  batchDocs?: number;
  /** Batches queued per worker (in characters: depth * batchChars). */
  depth?: number;
  /** Heap limit of each worker thread. */
  workerHeapMb?: number;
}

/** How busy the workers of a pool were while it mapped: for benchmarks. */
export interface PoolStats {
  /** Milliseconds each worker spent tokenizing. */
  busyMs: number[];
  /** Milliseconds from the workers being ready to the last result. */
  wallMs: number;
  batches: number;
}

let lastStats: PoolStats | undefined;
/** The stats of the last pool closed in this process (bench:e2e reads them after a pack job). */
export function lastPoolStats(): PoolStats | undefined {
  return lastStats;
}

interface Reply {
  ready?: boolean;
  batch: number;
  result: EncodedBatch;
  busyMs: number;
  /** A batch of lines (mapLines): the records read, and each one's outcome in order. */
  records?: number;
  outcomes?: ({ drop: string; message: string } | { doc: Doc })[];
  /** The batch of lines' buffer, handed back to be filled again. */
  spent?: Uint8Array;
}

/** The records of one batch of lines, in input order: each dropped (reason, message), or a document with its tokens. */
export interface LinesResult {
  /** Lines that are records (not blank, this rank's): the ledger's input. */
  records: number;
  outcomes: ({ drop: string; message: string } | { doc: Doc; result: TokenizeResult })[];
  /** The batch's buffer, no longer read: for readLineBatches to fill again. */
  spent?: Uint8Array;
}

export class TokenizePool {
  private readonly workers: Worker[] = [];
  private readonly ready: Promise<void>[] = [];
  private run: PoolRun<unknown, unknown> | undefined;
  private closing = false;
  /** Set when a worker died outside a map(): the next map() reports it instead of waiting forever. */
  private dead: Error | undefined;
  /** Batch message ids are unique over the pool's life, so a late reply to a stopped map() is never taken for a new one's. */
  private readonly batchIds = { next: 0 };
  private readonly stats: PoolStats;
  private closed: Promise<void> | undefined;
  /** The native core being built for the workers to copy (seedNativeCore): released once they are ready, or the pool closes. */
  private seed: { release(): void } | undefined;
  readonly size: number;

  constructor(private readonly opts: PoolOptions = {}) {
    this.size = Math.max(1, opts.workers ?? availableParallelism());
    this.stats = { busyMs: new Array(this.size).fill(0), wallMs: 0, batches: 0 };
    const url = new URL('./worker.js', import.meta.url);
    const tokenizer = opts.tokenizer ?? 'qwen3';
    const backend = opts.backend ?? 'hf';
    // The native and fast backends' workers are handed the tokenizer this thread prepares
    // (handOver), while they start.
    const handed = backend !== 'hf';
    limitAllocatorArenas();
    for (let i = 0; i < this.size; i++) {
      // A worker's heap is bounded (vocabulary maps, word memo, one batch): memory is set by configuration.
      const w = new Worker(url, { workerData: { tokenizer, backend, handed, cachePieces: opts.cachePieces }, resourceLimits: { maxOldGenerationSizeMb: opts.workerHeapMb ?? 1024 } });
      this.workers.push(w);
      const ready = new Promise<void>((resolve, reject) => {
        w.once('message', () => resolve());
        w.once('error', reject);
      });
      ready.catch(() => {}); // reported by map(); a job that fails before it must not crash on it
      this.ready.push(ready);
      w.on('message', (m: Reply) => {
        if (m.ready) return;
        this.stats.busyMs[i]! += m.busyMs;
        this.stats.batches++;
        this.run?.onReply(i, m);
      });
      w.on('error', (e) => this.run?.fail(e));
      w.on('exit', (code) => {
        if (this.closing) return;
        this.dead = new Error(`tokenizer worker ${i} exited (code ${code})`);
        this.run?.fail(this.dead);
      });
    }
    if (handed) this.handOver(tokenizer, backend);
  }

  /**
   * The tokenizer prepared on this thread (its file read and hashed once, its tables read from
   * the prepared entry) goes to every worker, which meanwhile loads its modules; the fast
   * backend's vocabulary memo too, in shared memory. A tokenizer that fails to prepare here goes
   * as nothing: each worker prepares it itself and reports the failure as before.
   */
  private handOver(tokenizer: string, backend: ResolvedBackend): void {
    let message: WorkerSetup = { prepared: undefined };
    try {
      const prepared = preparedForWorkers(tokenizer);
      const { tables } = prepared;
      // tiktoken's ranks (2.5 MB of text for Qwen3, copied to each worker) are the fast backend's only.
      const handed = backend === 'native' && tables ? { ...prepared, tables: { ...tables, ranks: '' } } : prepared;
      message = { prepared: handed, vocabulary: backend === 'fast' ? sharedVocabulary(tokenizer) : undefined };
      // The native core the workers will each copy is built meanwhile, on another thread.
      const seed = backend === 'native' && tables ? seedNativeCore(prepared.parts, tables, this.opts.cachePieces) : undefined;
      if (seed) {
        this.seed = seed;
        void Promise.allSettled(this.ready).then(() => seed.release());
      }
    } catch {
      // reported by the workers
    }
    for (const w of this.workers) w.postMessage(message);
  }

  /** Maps items to tokenized results, in order. `toRequest` picks what to tokenize from an item. */
  async *map<T>(items: AsyncIterable<T>, toRequest: (item: T) => TokenizeRequest): AsyncIterable<[T, TokenizeResult]> {
    const zip = (sent: T[], m: Reply) => {
      const results = splitBatch(m.result);
      return sent.map((it, i): [T, TokenizeResult] => [it, results[i]!]);
    };
    yield* this.runMap(zip, (run) => run.pump(items, toRequest));
  }

  /**
   * Batches of JSONL lines, undecoded, read and tokenized by the workers: the main thread only
   * reads bytes and hands each batch over (its buffer transferred, not copied), so decoding,
   * parsing and checking the documents is spread over the workers instead of holding up the
   * thread that feeds them all. One result a batch, in input order.
   */
  async *mapLines(batches: AsyncIterable<LineBatchJob>, options: { ranges?: boolean } = {}): AsyncIterable<LinesResult> {
    yield* this.runMap((_sent: LineBatchJob[], m: Reply) => [linesResult(m)], (run) => run.pumpEach(batches, options.ranges ?? false));
  }

  private async *runMap<T, Y>(expand: (sent: T[], m: Reply) => Y[], pump: (run: PoolRun<T, Y>) => Promise<void>): AsyncIterable<Y> {
    if (this.run) throw new Error('TokenizePool.map: one map at a time');
    await Promise.all(this.ready);
    if (this.dead) throw this.dead;
    const batchChars = this.opts.batchChars ?? 1 << 18;
    const depth = this.opts.depth ?? 4;
    const limits = { batchChars, batchDocs: this.opts.batchDocs ?? 512, workerChars: depth * batchChars, maxOutstanding: 2 * depth * this.size };
    const run = new PoolRun<T, Y>(this.workers, this.batchIds, limits, expand);
    this.run = run as unknown as PoolRun<unknown, unknown>;
    const t0 = performance.now();
    try {
      void pump(run);
      yield* run.results();
    } finally {
      run.stop();
      this.run = undefined;
      this.stats.wallMs += performance.now() - t0;
    }
  }

  /** Bytes of lines a batch of mapLines holds, about (the same budget as a batch's characters). */
  get lineBatchBytes(): number {
    return this.opts.batchChars ?? 1 << 18;
  }

  /** Stops the workers (their memory goes back to the system); a second call waits on the first. */
  close(): Promise<void> {
    if (!this.closed) {
      this.closing = true;
      this.seed?.release();
      lastStats = { ...this.stats, busyMs: [...this.stats.busyMs] };
      this.closed = Promise.all(this.workers.map(stopWorker)).then(() => {});
    }
    return this.closed;
  }
}

/** How long a worker has to finish the batches it holds before it is stopped outright. */
const STOP_GRACE_MS = 10_000;

/**
 * Stops a worker after the batches it holds: terminated in the middle of one (a job that fails
 * while tokenizing), a worker inside the native tokenizer cannot take the termination and takes
 * the process down with it (a fatal error or a segfault instead of the job's one-line error).
 */
async function stopWorker(w: Worker): Promise<void> {
  if (w.threadId === -1) return; // exited already
  // Not events.once: it rejects on 'error', and a worker that failed to load (started on a
  // guessed backend that does not apply) reports that error while it is being stopped.
  const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
  w.postMessage({ stop: true });
  const overdue = setTimeout(() => void w.terminate(), STOP_GRACE_MS);
  try {
    await exited;
  } finally {
    clearTimeout(overdue);
  }
}

interface RunLimits {
  batchChars: number;
  batchDocs: number;
  /** Characters queued per worker before it gets no more. */
  workerChars: number;
  /** Batches sent but not yet taken by the caller (queued, being tokenized, or done and waiting). */
  maxOutstanding: number;
}

/** One map(): a pump that reads and sends, and the in-order results, meeting in this state. */
class PoolRun<T, Y> {
  private readonly done = new Map<number, Y[]>();
  /** By batch message id: the batch's place in the input, its items, and where it went. */
  private readonly sentItems = new Map<number, { seq: number; items: T[]; chars: number; worker: number }>();
  private readonly queuedChars: number[];
  private sent = 0;
  private taken = 0;
  private inputDone = false;
  private stopped = false;
  private failed = false;
  private failure: unknown;
  private wakeResults: (() => void) | undefined;
  private wakePump: (() => void) | undefined;

  constructor(
    private readonly workers: Worker[],
    private readonly batchIds: { next: number },
    private readonly limits: RunLimits,
    /** A batch's reply as what the caller takes, given the items sent in it. */
    private readonly expand: (sent: T[], m: Reply) => Y[],
  ) {
    this.queuedChars = new Array(workers.length).fill(0);
  }

  /** Reads items into batches and sends each as soon as there is room; runs on its own. */
  async pump(items: AsyncIterable<T>, toRequest: (item: T) => TokenizeRequest): Promise<void> {
    let batch: T[] = [];
    let requests: TokenizeRequest[] = [];
    let chars = 0;
    await this.pumping(async () => {
      for await (const item of items) {
        if (this.stopped) return;
        const req = toRequest(item);
        batch.push(item);
        requests.push(req);
        chars += req.text.length;
        if (chars < this.limits.batchChars && batch.length < this.limits.batchDocs) continue;
        if (!(await this.room())) return;
        this.send(batch, { docs: requests }, chars, []);
        batch = [];
        requests = [];
        chars = 0;
      }
      if (batch.length && (await this.room())) this.send(batch, { docs: requests }, chars, []);
    });
  }

  /** Sends each item as a batch of its own (a batch of lines), its bytes transferred; `ranges`: the tokens' character ranges asked for. */
  async pumpEach(items: AsyncIterable<T & LineBatchJob>, ranges: boolean): Promise<void> {
    await this.pumping(async () => {
      for await (const item of items) {
        if (this.stopped || !(await this.room())) return;
        this.send([item], { lines: item, ...(ranges ? { ranges } : {}) }, Math.max(1, item.bytes.length), item.bytes.length ? [item.bytes.buffer as ArrayBuffer] : []);
      }
    });
  }

  /** Runs a pump: a failure fails the map, and the results learn when the input ends. */
  private async pumping(body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (e) {
      this.fail(e);
    } finally {
      this.inputDone = true;
      this.notify();
    }
  }

  /** Waits until a worker has room and the caller is not too far behind; false once stopped. */
  private async room(): Promise<boolean> {
    while (!this.stopped && (this.sent - this.taken >= this.limits.maxOutstanding || Math.min(...this.queuedChars) >= this.limits.workerChars)) {
      await new Promise<void>((resolve) => (this.wakePump = resolve));
    }
    return !this.stopped;
  }

  private send(items: T[], message: object, chars: number, transfer: ArrayBuffer[]): void {
    let worker = 0;
    for (let w = 1; w < this.queuedChars.length; w++) if (this.queuedChars[w]! < this.queuedChars[worker]!) worker = w;
    const id = this.batchIds.next++;
    this.queuedChars[worker]! += chars;
    this.sentItems.set(id, { seq: this.sent++, items, chars, worker });
    this.workers[worker]!.postMessage({ batch: id, ...message }, transfer);
  }

  onReply(worker: number, m: Reply): void {
    const sent = this.sentItems.get(m.batch);
    if (!sent || sent.worker !== worker) return;
    this.sentItems.delete(m.batch);
    this.queuedChars[worker]! -= sent.chars;
    this.done.set(sent.seq, this.expand(sent.items, m));
    this.notify();
  }

  fail(e: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.failure = e;
    this.notify();
  }

  stop(): void {
    this.stopped = true;
    this.notify();
  }

  private notify(): void {
    const r = this.wakeResults;
    const p = this.wakePump;
    this.wakeResults = undefined;
    this.wakePump = undefined;
    r?.();
    p?.();
  }

  /** The results in input order, each batch as soon as it and all before it are back. */
  async *results(): AsyncIterable<Y> {
    for (;;) {
      if (this.failed) throw this.failure;
      const ready = this.done.get(this.taken);
      if (ready) {
        this.done.delete(this.taken);
        this.taken++;
        this.notify(); // room for the pump
        yield* ready;
        continue;
      }
      if (this.inputDone && this.taken === this.sent) return;
      await new Promise<void>((resolve) => (this.wakeResults = resolve));
    }
  }
}

/** A batch of lines' reply: its outcomes, each document with its slice of the batch's tokens. */
function linesResult(m: Reply): LinesResult {
  const results = splitBatch(m.result);
  let d = 0;
  const outcomes = m.outcomes!.map((o) => ('doc' in o ? { doc: o.doc, result: results[d++]! } : o));
  return { records: m.records!, outcomes, spent: m.spent };
}
