import { closeSync, openSync, readSync } from 'node:fs';

/**
 * A file another writer is still appending to, read as it says how far the file holds whole
 * records (`advance`), to the end it gives (`finish`). A reader on the same machine follows a
 * writer through the page cache, with about one read buffer of memory whatever the file's size:
 * a fast writer waits on disk, never in memory. A prepare worker's part is read so (prepare-pool.ts).
 */
const READ_BYTES = 4 << 20;

export interface FileTailOptions {
  /**
   * The bytes take() gives are used before the next take(): the file is read into one buffer,
   * used again, not into new memory for every chunk. Memory touched for the first time is slow on
   * some VMs (a page fault a page, and an munmap when a chunk is let go): a prepare part's index,
   * about as large as its documents with masking, was most of the main thread's reads.
   */
  reuse?: boolean;
  /** Bytes a read asks for (READ_BYTES); tests make it small, to cross chunks. */
  readBytes?: number;
}

export class FileTail {
  private written = 0;
  private ended = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;
  private fd: number | undefined;
  /** Bytes read from the file: `pos`; of them, those not yet taken are chunk[at..]. */
  private pos = 0;
  private chunk: Buffer = Buffer.alloc(0);
  private at = 0;
  /** With `reuse`: the one buffer chunks are read into. */
  private own: Buffer | undefined;

  constructor(
    readonly path: string,
    private readonly opts: FileTailOptions = {},
  ) {}

  /** The file holds `bytes` bytes of whole records. */
  advance(bytes: number): void {
    this.written = Math.max(this.written, bytes);
    this.notify();
  }

  /** The file is complete at `bytes` bytes. */
  finish(bytes: number): void {
    this.advance(bytes);
    this.ended = true;
    this.notify();
  }

  /** The writer failed: take() and atEnd() throw `e`. */
  fail(e: Error): void {
    this.error ??= e;
    this.notify();
  }

  get done(): boolean {
    return this.ended;
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  /** True once every byte the writer wrote has been taken and it has finished; waits for either. */
  async atEnd(): Promise<boolean> {
    for (;;) {
      if (this.error) throw this.error;
      if (this.at < this.chunk.length || this.pos < this.written) return false;
      if (this.ended) return true;
      await this.changed();
    }
  }

  /**
   * The next `n` bytes, waiting for the writer as needed. The buffer is the caller's to keep
   * (chunks are read into new memory, never into one reused buffer), so a write stream may hold
   * it; with `reuse`, only until the next take().
   */
  async take(n: number): Promise<Buffer> {
    if (this.chunk.length - this.at >= n) return this.chunk.subarray(this.at, (this.at += n));
    if (this.opts.reuse) {
      while (this.chunk.length - this.at < n) await this.readMore(n - (this.chunk.length - this.at));
      return this.chunk.subarray(this.at, (this.at += n));
    }
    const parts: Buffer[] = [];
    let need = n;
    while (need > 0) {
      if (this.at === this.chunk.length) await this.readMore(need);
      const got = Math.min(need, this.chunk.length - this.at);
      parts.push(this.chunk.subarray(this.at, (this.at += got)));
      need -= got;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, n);
  }

  private async readMore(need: number): Promise<void> {
    while (this.pos === this.written) {
      if (this.error) throw this.error;
      if (this.ended) throw new Error(`${this.path}: ends at byte ${this.pos}, inside a record (${need} more bytes wanted)`);
      await this.changed();
    }
    if (this.error) throw this.error;
    this.fd ??= openSync(this.path, 'r');
    const want = Math.min(this.opts.readBytes ?? READ_BYTES, this.written - this.pos);
    // The bytes not taken yet (with `reuse`, the start of a record) move to the buffer's start; the read follows them.
    const left = this.chunk.length - this.at;
    const into = this.opts.reuse ? this.reused(left + Math.max(want, need)) : Buffer.allocUnsafe(want);
    this.chunk.copy(into, 0, this.at);
    const n = readSync(this.fd, into, left, Math.min(want, into.length - left), this.pos);
    if (n <= 0) throw new Error(`${this.path}: ends at byte ${this.pos}, its writer wrote ${this.written}`);
    this.pos += n;
    [this.chunk, this.at] = [into.subarray(0, left + n), 0];
  }

  /** The one buffer of `reuse`, grown (never shrunk) to hold `bytes`. */
  private reused(bytes: number): Buffer {
    if (!this.own || this.own.length < bytes) this.own = Buffer.allocUnsafe(Math.max(bytes, this.own?.length ?? 0));
    return this.own;
  }

  /** Closes the file (the reader is done with it, or gives up). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
