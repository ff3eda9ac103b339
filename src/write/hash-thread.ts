import { Worker } from 'node:worker_threads';
import type { HashReply, HashRequest } from './hash-worker.js';

/**
 * sha256 computed on one background thread, of bytes in shared memory. The output writers hash
 * every byte they write (the manifest's checksums); on the main thread that was about 0.45 s of
 * a 200 MB pack's write phase, which now overlaps the writes and the next bin's assembly.
 * The thread holds the process open only while a request is outstanding.
 */
export class HashStream {
  private seq = 0;

  constructor(
    private readonly thread: HashThread,
    private readonly id: number,
  ) {}

  /** Resolves once `length` bytes at `offset` are hashed: the memory may then be reused. */
  update(memory: SharedArrayBuffer, offset: number, length: number): Promise<void> {
    return this.thread.request({ op: 'update', stream: this.id, seq: this.seq++, memory, offset, length }).then(() => {});
  }

  /** The sha256 (hex) of everything updated, in order. */
  async digest(): Promise<string> {
    return (await this.thread.request({ op: 'digest', stream: this.id, seq: this.seq++ }))!;
  }

  /** Forgets the stream without a digest (an aborted file). */
  drop(): void {
    this.thread.post({ op: 'drop', stream: this.id });
  }
}

export class HashThread {
  private static instance: HashThread | undefined;
  private readonly worker: Worker;
  private nextStream = 0;
  private readonly waiting = new Map<string, { resolve: (hex: string | undefined) => void; reject: (e: Error) => void }>();
  private failure: Error | undefined;

  private constructor() {
    this.worker = new Worker(new URL('./hash-worker.js', import.meta.url));
    this.worker.on('message', (r: HashReply) => this.settle(r));
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => this.fail(new Error(`the hash thread exited (code ${code})`)));
    // After the listeners: adding a 'message' listener refs a worker again, and a job that failed
    // before its first hash request would then never exit.
    this.worker.unref();
  }

  /** The process's hash thread, started on first use. */
  static shared(): HashThread {
    return (HashThread.instance ??= new HashThread());
  }

  open(): HashStream {
    return new HashStream(this, this.nextStream++);
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
    if (HashThread.instance === this) HashThread.instance = undefined;
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
  }
}
