import { closeSync, constants, ftruncate, openSync, write, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { HashThread, type HashStream } from './hash-thread.js';

/** O_DIRECT wants memory, file offsets and lengths in multiples of the device's block; 4 KiB covers 512-byte and 4K devices. */
const ALIGN = 4096;
/** Bytes gathered before one write is issued. */
export const SLAB_BYTES = 2 << 20;
/** Slabs per file: one filling while the others are written, so the caller waits on the disk only when all are in flight. */
export const SLABS = 3;

/** The one WebAssembly API used here (the project's lib settings declare none). */
declare const WebAssembly: { Memory: new (d: { initial: number; maximum: number; shared: true }) => { buffer: SharedArrayBuffer } };

const writeAsync = promisify(write);
const ftruncateAsync = promisify(ftruncate);

/** 64 KiB WebAssembly pages per file: its slabs. */
const WASM_PAGES = (SLABS * SLAB_BYTES) / 65_536;

/**
 * Slab memories of closed files, reused by the next ones: a run writing thousands of shards
 * holds a few, and their pages stay the ones already touched.
 */
const idleMemories: SharedArrayBuffer[] = [];
const MAX_IDLE_MEMORIES = 8;

function takeMemory(): SharedArrayBuffer {
  return idleMemories.pop() ?? slabMemory();
}

/** A file's slabs: page-aligned memory (as O_DIRECT needs) that another thread can read without a copy. */
export function slabMemory(): SharedArrayBuffer {
  return new WebAssembly.Memory({ initial: WASM_PAGES, maximum: WASM_PAGES, shared: true }).buffer;
}

interface Slab {
  bytes: Uint8Array;
  /** The write and the hashing of this slab's bytes, while in flight; never rejects (a failure is kept in `error`). */
  inFlight?: Promise<unknown>;
}

/**
 * One file written past the page cache (O_DIRECT), in aligned slabs written by the thread pool
 * and hashed (sha256) by the hash thread while the next fills. A pack writes each output byte
 * once and never reads it back, so a copy into cache pages buys nothing; and on a VM that hands
 * freed memory back to its host, filling cache pages costs several times the write itself (measured here: dd of 560 MB took 1.7 s of
 * CPU through the cache, 0.09 s direct, 0.5 s wall). The last partial block is written padded
 * and the file then truncated to its length, so the bytes are exactly those written.
 *
 * The slabs are one shared WebAssembly memory: the one allocation JavaScript has that is
 * page-aligned (O_DIRECT needs aligned memory; a probe write at open checks it) and that
 * another thread can read without a copy.
 *
 * `open` returns undefined where direct writes are not possible (no O_DIRECT on this platform,
 * a filesystem that refuses it, MIDPACK_DIRECT_IO=off): the caller then writes through a stream.
 */
export class DirectFile {
  private readonly memory = takeMemory();
  private readonly slabs: Slab[];
  private readonly hash: HashStream = HashThread.open();
  private current = 0;
  private fill = 0;
  /** File offset of the current slab's first byte. */
  private offset = 0;
  private error: Error | undefined;
  private closed = false;

  private constructor(
    private readonly path: string,
    private readonly fd: number,
  ) {
    this.slabs = Array.from({ length: SLABS }, (_, k) => ({ bytes: new Uint8Array(this.memory, k * SLAB_BYTES, SLAB_BYTES) }));
  }

  static open(path: string): DirectFile | undefined {
    const direct = (constants as Record<string, number>).O_DIRECT;
    if (!direct || process.env.MIDPACK_DIRECT_IO === 'off') return undefined;
    let fd: number;
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | direct, 0o644);
    } catch {
      return undefined; // the filesystem refuses O_DIRECT (EINVAL): written through the cache instead
    }
    try {
      const file = new DirectFile(path, fd);
      // Some filesystems accept the flag but fail the first write, and the memory must be
      // aligned: find out now, not mid-file.
      writeSync(fd, file.slabs[0]!.bytes, 0, ALIGN, 0);
      return file;
    } catch {
      closeSync(fd);
      return undefined;
    }
  }

  /** Copies `chunk` in (the caller may reuse it once this resolves); waits only when every slab is being written. */
  async write(chunk: Uint8Array): Promise<void> {
    this.check();
    for (let at = 0; at < chunk.byteLength; ) {
      const slab = this.slabs[this.current]!;
      const n = Math.min(SLAB_BYTES - this.fill, chunk.byteLength - at);
      slab.bytes.set(chunk.subarray(at, at + n), this.fill);
      this.fill += n;
      at += n;
      if (this.fill === SLAB_BYTES) await this.issue(SLAB_BYTES);
    }
  }

  /** Writes what is left, truncates the file to `length` (the bytes written), closes it; returns the sha256 of its bytes. */
  async finish(length: number): Promise<string> {
    try {
      if (this.fill > 0) await this.issue(this.fill);
      await this.settled();
      this.check();
      await ftruncateAsync(this.fd, length);
      return await this.hash.digest();
    } finally {
      await this.settled();
      this.close();
    }
  }

  /** Gives up: waits for writes in flight (their memory must outlive them), then closes. */
  async abort(): Promise<void> {
    await this.settled();
    this.hash.drop();
    this.close();
  }

  /** Every slab's write and hashing finished (they never reject: a failure is kept in `error`). */
  private async settled(): Promise<void> {
    await Promise.all(this.slabs.map((s) => s.inFlight));
  }

  /** Called once settled: the memory goes back to the pool. */
  private close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    if (idleMemories.length < MAX_IDLE_MEMORIES) idleMemories.push(this.memory);
  }

  /**
   * Starts writing and hashing the current slab's first `bytes` (a last partial block is written
   * padded with zeros, and hashed without them), then moves to the next slab, waiting for it if
   * it is still in flight.
   */
  private async issue(bytes: number): Promise<void> {
    const slab = this.slabs[this.current]!;
    const padded = Math.ceil(bytes / ALIGN) * ALIGN;
    slab.bytes.fill(0, bytes, padded);
    const hashed = this.hash.update(this.memory, slab.bytes.byteOffset, bytes);
    slab.inFlight = Promise.all([this.writeAll(slab.bytes, padded, this.offset), hashed]).catch((e: Error) => {
      this.error ??= e;
    });
    this.offset += padded;
    this.fill = 0;
    this.current = (this.current + 1) % SLABS;
    const next = this.slabs[this.current]!;
    if (next.inFlight) {
      await next.inFlight;
      next.inFlight = undefined;
    }
    this.check();
  }

  private async writeAll(bytes: Uint8Array, length: number, offset: number): Promise<void> {
    for (let done = 0; done < length; ) {
      const { bytesWritten } = await writeAsync(this.fd, bytes, done, length - done, offset + done);
      if (bytesWritten <= 0) throw new Error('short write');
      done += bytesWritten;
    }
  }

  private check(): void {
    if (this.error) throw new Error(`${this.path}: ${this.error.message}`);
  }
}
