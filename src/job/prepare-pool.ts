import { mkdirSync, rmSync } from 'node:fs';
import { limitAllocatorArenas } from '../core/allocator.js';
import { FileTail } from '../io/file-tail.js';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Doc } from '../doc/document.js';
import type { RankInfo } from '../core/ranks.js';
import type { RunConfig } from './run-config.js';
import { plannedTasks, SourcePieces } from './prepare-source.js';
import { knownRemoteInputs } from '../io/storage.js';
import { objectRelay } from '../io/s3-relay.js';
import { StorageError } from '../io/s3.js';
import { INDEX_HEADER_WORDS, type PrepareMessage, type PreparedDoc, type PrepareSetup, type PrepareTask, type SourceDone, type SourceTask } from './prepare-types.js';

/**
 * The prepare step's sources in worker threads, beside the main thread that writes and counts.
 *
 * Each task, a source with its `then:` stages or a piece of one (sourceTasks), runs in one worker
 * (prepare-worker.ts), through the same prepareSource() as on the main thread, so its documents
 * are the same bytes wherever it runs; at most `workers` tasks run at once, started in order. A
 * worker appends its documents to a part (OUT/.run/tmp/parts/: their JSONL lines and an index of
 * them) and says how far both files hold whole records; the main thread reads the parts in config order, the one it
 * is on while it is being written, copies the lines to docs.jsonl as bytes and counts the
 * segments the index gives, so the prepared documents (and the segment counts taken from them)
 * are the same bytes for any number of workers. Memory is a read buffer or two per part: a fast
 * source waits on disk, never in memory.
 */

/** One source's part: the two files its worker appends to, and the source's figures once it is done. */
class Part {
  readonly lines: FileTail;
  readonly index: FileTail;
  records: SourceDone | undefined;

  /** With masking every document has its segments (perhaps none); without, none has. */
  constructor(
    readonly path: string,
    private readonly masked: boolean,
  ) {
    this.lines = new FileTail(`${path}.jsonl`);
    // Each index record is read (its words copied out) before the next is taken: one buffer serves.
    this.index = new FileTail(`${path}.idx`, { reuse: true });
  }

  get done(): boolean {
    return this.index.done;
  }

  onMessage(m: PrepareMessage): void {
    if (m.type === 'error') this.fail(m.storageCode ? new StorageError(m.message, m.storageCode) : Object.assign(new Error(m.message), { name: m.name }));
    else if (m.type === 'flushed') {
      this.lines.advance(m.bytes);
      this.index.advance(m.indexBytes);
    } else {
      this.records = { records: m.records, times: m.times };
      this.lines.finish(m.bytes);
      this.index.finish(m.indexBytes);
    }
  }

  fail(e: Error): void {
    this.lines.fail(e);
    this.index.fail(e);
  }

  /** Its documents in order, as their worker wrote them. */
  async *docs(): AsyncIterable<PreparedDoc> {
    try {
      while (!(await this.index.atEnd())) {
        const head = await this.index.take(4 * INDEX_HEADER_WORDS);
        const [lineBytes, textBytes, words] = [head.readUInt32LE(0), head.readUInt32LE(4), head.readUInt32LE(8)];
        const segments = this.masked ? wordsOf(await this.index.take(4 * words)) : undefined;
        yield lazyDoc(await this.lines.take(lineBytes), textBytes, segments);
      }
      if (!(await this.lines.atEnd())) throw new Error(`${this.lines.path}: holds more than its index lists`);
    } finally {
      this.lines.close();
      this.index.close();
    }
  }
}

/** Little-endian words, copied out (the bytes may not sit at a multiple of 4). */
function wordsOf(bytes: Buffer): Uint32Array {
  const words = new Uint32Array(bytes.length >> 2);
  new Uint8Array(words.buffer).set(bytes);
  return words;
}

function lazyDoc(line: Buffer, textBytes: number, segments: Uint32Array | undefined): PreparedDoc {
  return { doc: lineDoc(line), line, textBytes, segments };
}

const DOC_FIELDS = ['id', 'kind', 'source', 'text', 'meta', 'loss_mask_spans', 'special_spans'] as const;

/** A document read from its JSONL line (without its newline) on first use of any field. */
function lineDoc(line: Buffer): Doc {
  let parsed: Doc | undefined;
  const whole = () => (parsed ??= JSON.parse(line.toString('utf8', 0, line.length - 1)) as Doc);
  return Object.defineProperties({}, Object.fromEntries(DOC_FIELDS.map((f) => [f, { get: () => whole()[f], enumerable: true }]))) as Doc;
}

/**
 * The tasks as they are planned (plannedTasks), kept in order: workers start on the first ones
 * while a later source plans its pieces (a bundle cloned, its commits counted).
 */
class TaskPlan {
  readonly tasks: SourceTask[] = [];
  private complete = false;
  private failed: { error: unknown } | undefined;
  private waiting: (() => void)[] = [];
  readonly settled: Promise<void>;

  constructor(tasks: AsyncIterable<SourceTask>) {
    this.settled = this.fill(tasks);
  }

  private async fill(tasks: AsyncIterable<SourceTask>): Promise<void> {
    try {
      for await (const t of tasks) {
        this.tasks.push(t);
        this.wake();
      }
    } catch (error) {
      this.failed = { error };
    }
    this.complete = true;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiting.splice(0)) w();
  }

  /** Whether there is a task k, once known (planning's error, if it failed before k). */
  async has(k: number): Promise<boolean> {
    while (k >= this.tasks.length && !this.complete) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (k < this.tasks.length) return true;
    if (this.failed) throw this.failed.error;
    return false;
  }
}

const WORKER_URL = new URL('./prepare-worker.js', import.meta.url);

/** A prepare worker, started after the allocator is limited (limitAllocatorArenas). */
function newPrepareWorker(): Worker {
  limitAllocatorArenas();
  return new Worker(WORKER_URL);
}

/**
 * Prepare workers started before the run knows its setup and tasks (before it claims its output
 * and, for a bucket, loads the SDK and takes the prefix's lock), so their modules load meanwhile.
 * Each is given its setup with its first message, as every prepare worker is.
 */
export class WarmPrepareWorkers {
  private readonly idle: Worker[];
  private readonly gone = new Set<Worker>();

  constructor(n: number) {
    this.idle = Array.from({ length: n }, () => {
      const w = newPrepareWorker();
      // One that fails before it is taken is not taken: a new one takes its place and says why.
      w.on('error', () => {});
      w.once('exit', () => this.gone.add(w));
      return w;
    });
  }

  /** A started worker, or a new one when none is left. */
  take(): Worker {
    for (let w = this.idle.shift(); w; w = this.idle.shift()) if (!this.gone.has(w)) return w;
    return newPrepareWorker();
  }

  /** Stops the workers no run took. */
  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((w) => w.terminate()));
  }
}

/**
 * The documents of every source of `cfg`, in config order, each with its JSONL line (the bytes
 * the main thread writes); `onSource(done)` as each source's last document has been given.
 */
export async function* preparedInWorkers(
  cfg: RunConfig,
  rank: RankInfo,
  runDir: string,
  workers: number,
  onSource: (done: SourceDone) => void,
  warm?: WarmPrepareWorkers,
): AsyncIterable<PreparedDoc> {
  const partsDir = join(runDir, 'tmp', 'parts');
  mkdirSync(partsDir, { recursive: true });
  const plan = new TaskPlan(plannedTasks(cfg, rank, runDir));
  const { tasks } = plan;
  const parts: Part[] = [];
  // A worker gone before the last task was planned: the parts made after fail as those before did.
  let lost: Error | undefined;
  const partOf = (k: number) => {
    if (parts[k]) return parts[k];
    const part = (parts[k] = new Part(join(partsDir, String(k).padStart(4, '0')), cfg.mask !== undefined));
    if (lost) part.fail(lost);
    return part;
  };
  const threads: Worker[] = [];
  let next = 0;
  try {
    // min(workers, tasks), known once that many tasks are planned (or all are)
    const running = (await plan.has(Math.max(1, workers) - 1)) ? Math.max(1, workers) : tasks.length;
    const spawn = () => {
      const remote = knownRemoteInputs();
      // A worker reading a bucket has the main thread make its requests: it loads no SDK of its own.
      const relay = remote.entries.length ? objectRelay() : undefined;
      const setup: PrepareSetup = { cfg, rank, runDir, threads: running, remote, ...(relay ? { relay } : {}) };
      const w = warm ? warm.take() : newPrepareWorker();
      w.postMessage({ setup }, relay ? [relay] : []);
      threads.push(w);
      let k = -1;
      // The worker takes the next task when it is done with one: its modules load once. A task
      // not planned yet is waited for; planning's failure reaches the reader below (plan.has).
      const give = () => {
        const claimed = next++;
        plan.has(claimed).then(
          (known) => {
            if (!known) return;
            k = claimed;
            w.postMessage({ ...tasks[k]!, part: partOf(k).path } satisfies PrepareTask);
          },
          () => {},
        );
      };
      w.on('message', (m: PrepareMessage) => {
        parts[k]!.onMessage(m);
        if (m.type === 'done') give();
      });
      w.on('error', (e) => (k >= 0 ? parts[k]!.fail(e) : undefined));
      // Checked a turn later: a worker's last messages are delivered before its 'exit', never after.
      w.on('exit', (code) =>
        setImmediate(() => {
          lost ??= new Error(`a prepare worker exited (code ${code}) before the last document was prepared`);
          for (const part of parts) if (part && !part.done) part.fail(new Error(`a prepare worker exited (code ${code}) before the last document of ${part.path}`));
        }),
      );
      give();
    };
    for (let k = 0; k < running; k++) spawn();
    const pieces = new SourcePieces(tasks, onSource);
    for (let k = 0; await plan.has(k); k++) {
      const part = partOf(k);
      yield* part.docs();
      await plan.has(k + 1); // SourcePieces reads whether the next task is of the same source
      pieces.done(k, part.records!);
      for (const f of [part.lines, part.index]) rmSync(f.path, { force: true });
    }
  } finally {
    // Done, failed, or the consumer stopped: no source goes on writing, and no worker started ahead waits on.
    await Promise.all([...threads.map((w) => w.terminate()), warm?.close(), plan.settled]);
  }
}
