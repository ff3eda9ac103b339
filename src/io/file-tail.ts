import { closeSync, openSync, readSync } from 'node:fs';

/**
 * The lines of a file another writer is still appending to, read as it says how far the file
 * holds them (`advance`), to the end it gives (`finish`). A reader on the same machine follows
 * a writer through the page cache, with one read buffer of memory whatever the file's size:
 * a fast writer waits on disk, never in memory. A prepare worker's part is read so (prepare-pool.ts).
 */
const READ_BYTES = 4 << 20;

export class FileTail {
  private written = 0;
  private ended = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(readonly path: string) {}

  /** The file holds `bytes` bytes (it may end inside a line: the rest waits for its newline). */
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

  /** The writer failed: lines() throws `e`. */
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

  /** The file's lines as they are written, to its end. */
  async *lines(): AsyncIterable<string> {
    // Opened once there is something to read: a writer may create the file only as it first writes.
    while (this.written === 0 && !this.ended && !this.error) await this.changed();
    if (this.error) throw this.error;
    if (this.written === 0) return;
    const fd = openSync(this.path, 'r');
    const buf = Buffer.allocUnsafe(READ_BYTES);
    let pos = 0;
    let carry: Buffer | undefined;
    try {
      for (;;) {
        if (this.error) throw this.error;
        if (pos === this.written) {
          if (this.ended) break;
          await this.changed();
          continue;
        }
        const n = readSync(fd, buf, 0, Math.min(READ_BYTES, this.written - pos), pos);
        if (n <= 0) throw new Error(`${this.path}: ends at byte ${pos}, its writer wrote ${this.written}`);
        pos += n;
        const chunk = carry ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
        const end = chunk.lastIndexOf(10) + 1;
        // Copied: `buf` is read into again.
        carry = end < chunk.length ? Buffer.from(chunk.subarray(end)) : undefined;
        if (end > 0) yield* chunk.toString('utf8', 0, end - 1).split('\n');
      }
      if (carry) throw new Error(`${this.path}: ends inside a line (${carry.length} bytes after the last newline)`);
    } finally {
      closeSync(fd);
    }
  }
}
