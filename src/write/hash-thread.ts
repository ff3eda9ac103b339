import { Worker } from 'node:worker_threads';
import type { HashReply, HashRequest } from './hash-worker.js';

/**
 * Hash threads in the pool. The files a pack's write phase fills at once (a shard and three
 * Megatron files, about 300 MB for 100 MB of input) hashed on one thread kept the main thread
 * waiting for slabs to come back; on two threads they hash on both cores.
 */
const POOL_THREADS = 2;

/**
 * sha256 computed on a background thread, of bytes in shared memory. The output writers hash
 * every byte they write (the manifest's checksums); on the main thread that was about 0.45 s of
 * a 200 MB pack's write phase, which now overlaps the writes and the next bin's assembly.
 * A stream takes its thread at its first request: the pool's thread with the fewest bytes of
 * streams still open, so files written side by side spread over the threads.
 */
export class HashStream {
  private seq = 0;
  private bound: { thread: HashThread; id: number } | undefined;
  private bytes = 0;

  /** Resolves once `length` bytes at `offset` are hashed: the memory may then be reused. */
  update(memory: SharedArrayBuffer, offset: number, length: number): Promise<void> {
    const { thread, id } = this.target();
    this.bytes += length;
    thread.openBytes += length;
    return thread.request({ op: 'update', stream: id, seq: this.seq++, memory, offset, length }).then(() => {});
  }

  /** The sha256 (hex) of everything updated, in order. */
  async digest(): Promise<string> {
    const { thread, id } = this.target();
    this.release();
    return (await thread.request({ op: 'digest', stream: id, seq: this.seq++ }))!;
  }

  /** Forgets the stream without a digest (an aborted file). */
  drop(): void {
    if (!this.bound) return;
    this.release();
    this.bound.thread.post({ op: 'drop', stream: this.bound.id });
  }

  private target(): { thread: HashThread; id: number } {
    return (this.bound ??= HashThread.leastLoaded().register());
  }

  private release(): void {
    this.bound!.thread.openBytes -= this.bytes;
    this.bytes = 0;
  }
}

/** One hash thread; it holds the process open only while a request is outstanding. */
export class HashThread {
  private static readonly pool: (HashThread | undefined)[] = [];
  /** Bytes given to this thread by its streams not yet digested or dropped. */
  openBytes = 0;
  private readonly worker: Worker;
  private nextStream = 0;
  private readonly waiting = new Map<string, { resolve: (hex: string | undefined) => void; reject: (e: Error) => void }>();
  private failure: Error | undefined;

  private constructor(private readonly slot: number) {
    this.worker = new Worker(new URL('./hash-worker.js', import.meta.url));
    this.worker.on('message', (r: HashReply) => this.settle(r));
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => this.fail(new Error(`the hash thread exited (code ${code})`)));
    // After the listeners: adding a 'message' listener refs a worker again, and a job that failed
    // before its first hash request would then never exit.
    this.worker.unref();
  }

  /**
   * A new stream; it takes a thread at its first request. The pool's first thread starts now if
   * it is not running (the others with startPool), so its start is not on the first write's path.
   */
  static open(): HashStream {
    HashThread.at(0);
    return new HashStream();
  }

  /**
   * Starts the pool's threads not running (each takes tens of milliseconds of CPU and about
   * 10 MB to start): a pack calls this as it starts planning, the workers gone and a core free.
   */
  static startPool(): void {
    for (let k = 0; k < POOL_THREADS; k++) HashThread.at(k);
  }

  /** The pool's thread with the fewest open bytes (a thread not running counts none), started if it is not. */
  static leastLoaded(): HashThread {
    let slot = 0;
    const load = (k: number) => HashThread.pool[k]?.openBytes ?? 0;
    for (let k = 1; k < POOL_THREADS; k++) if (load(k) < load(slot)) slot = k;
    return HashThread.at(slot);
  }

  private static at(slot: number): HashThread {
    return (HashThread.pool[slot] ??= new HashThread(slot));
  }

  /** A new stream id on this thread. */
  register(): { thread: HashThread; id: number } {
    return { thread: this, id: this.nextStream++ };
  }

  request(m: Exclude<HashRequest, { op: 'drop' }>): Promise<string | undefined> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(`${m.stream}:${m.seq}`, { resolve, reject });
      this.worker.postMessage(m);
    });
  }

  post(m: HashRequest): void {
    if (!this.failure) this.worker.postMessage(m);
  }

  private settle(r: HashReply): void {
    const key = `${r.stream}:${r.seq}`;
    const w = this.waiting.get(key);
    this.waiting.delete(key);
    if (this.waiting.size === 0) this.worker.unref();
    if (r.error) w?.reject(new Error(`sha256: ${r.error}`));
    else w?.resolve(r.hex);
  }

  private fail(e: Error): void {
    this.failure ??= e;
    if (HashThread.pool[this.slot] === this) HashThread.pool[this.slot] = undefined;
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
  }
}
