import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, renameSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DirectFile } from './direct-file.js';
import { HashThread } from './hash-thread.js';

/** Temporary name beside the final one: a killed run never leaves a half file under the final name. */
export function tempPath(path: string): string {
  return `${path}.tmp-${process.pid}`;
}

/**
 * A binary output file written to a temporary name and renamed into place on commit(),
 * hashing its bytes as they pass (so the checksum costs no second read). Written past the page
 * cache where the filesystem allows it (DirectFile), else through a stream.
 */
export class AtomicFile {
  private readonly direct: DirectFile | undefined;
  private readonly stream: WriteStream | undefined;
  private readonly tmp: string;
  /** The stream path's hash (direct writes are hashed on the hash thread). */
  private readonly hash = createHash('sha256');
  /** A write error (disk full, ...) kept for the next call, instead of an unhandled 'error' event. */
  private error: Error | undefined;
  bytes = 0;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.tmp = tempPath(path);
    this.direct = DirectFile.open(this.tmp);
    if (!this.direct) {
      this.stream = createWriteStream(this.tmp, { highWaterMark: 4 << 20 });
      this.stream.on('error', (e) => (this.error ??= e));
    }
  }

  private check(): void {
    if (this.error) throw new Error(`${this.path}: ${this.error.message}`);
  }

  /**
   * Writes one chunk, copied: the caller may reuse it once this resolves. Waits when the bytes
   * in flight reach a few megabytes, so memory stays bounded.
   */
  async write(chunk: Uint8Array): Promise<void> {
    this.check();
    if (chunk.byteLength === 0) return;
    this.bytes += chunk.byteLength;
    if (this.direct) return this.direct.write(chunk); // hashed on the hash thread
    this.hash.update(chunk);
    if (!this.stream!.write(Buffer.from(chunk))) await once(this.stream!, 'drain');
  }

  /** Flushes, closes and renames into place; returns the sha256 of the content. */
  async commit(): Promise<string> {
    this.check();
    let sha256: string;
    if (this.direct) sha256 = await this.direct.finish(this.bytes);
    else {
      const closed = once(this.stream!, 'close');
      this.stream!.end();
      await closed;
      this.check();
      sha256 = this.hash.digest('hex');
    }
    renameSync(this.tmp, this.path);
    return sha256;
  }

  /** Gives up: once the file has closed, the temporary file is removed; nothing appears under the final name. */
  async abort(): Promise<void> {
    if (this.direct) await this.direct.abort();
    else if (!this.stream!.closed) {
      // Not once(): that rejects on the 'error' that destroying a stream with pending writes emits.
      const closed = new Promise<void>((resolve) => this.stream!.once('close', () => resolve()));
      this.stream!.destroy();
      await closed;
    }
    rmSync(this.tmp, { force: true });
  }
}

/** Writes a small file (JSON sidecars) atomically. */
export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempPath(path);
  writeFileSync(tmp, content);
  renameSync(tmp, path);
}

/**
 * sha256 of a file's bytes, read in 1 MiB pieces into shared memory and hashed on the hash
 * thread while the next piece is read (inputs and shards can be gigabytes).
 */
export async function sha256File(path: string): Promise<{ sha256: string; bytes: number }> {
  const PIECE = 1 << 20;
  const memory = new SharedArrayBuffer(2 * PIECE);
  const hash = HashThread.open();
  const file = await open(path, 'r');
  const hashing: (Promise<void> | undefined)[] = [undefined, undefined];
  let bytes = 0;
  try {
    for (let k = 0; ; k ^= 1) {
      await hashing[k]; // that half of the memory is free again
      const { bytesRead } = await file.read(new Uint8Array(memory, k * PIECE, PIECE), 0, PIECE, bytes);
      if (bytesRead === 0) break;
      hashing[k] = hash.update(memory, k * PIECE, bytesRead);
      bytes += bytesRead;
    }
    await Promise.all(hashing);
    return { sha256: await hash.digest(), bytes };
  } catch (e) {
    await Promise.allSettled(hashing);
    hash.drop();
    throw e;
  } finally {
    await file.close();
  }
}

/** The bytes of a typed array as a Buffer view (no copy). Files are little-endian, as numpy and Arrow expect. */
export function bytesOf(a: ArrayBufferView): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

type IntArray = Int32Array | Uint8Array;

/** A growable typed-array buffer: appends are amortised O(1), one set() per chunk. */
abstract class Grow<T extends IntArray> {
  length = 0;
  private data: T;

  protected constructor(private readonly make: (n: number) => T) {
    this.data = make(64);
  }

  /** Appends values; returns the start index of what was appended. */
  push(values: ArrayLike<number>): number {
    this.reserve(values.length);
    const start = this.length;
    this.data.set(values, start);
    this.length += values.length;
    return start;
  }

  pushOne(value: number): void {
    this.reserve(1);
    this.data[this.length++] = value;
  }

  reserve(extra: number): void {
    if (this.length + extra <= this.data.length) return;
    const next = this.make(Math.max(this.length + extra, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }

  /** A view of the filled part (valid until the next append). */
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }

  /** A view of the unfilled room after reserve(), for in-place writers such as encodeInto. */
  spare(): T {
    return this.data.subarray(this.length) as T;
  }

  clear(): void {
    this.length = 0;
  }
}

export class GrowInt32 extends Grow<Int32Array> {
  constructor() {
    super((n) => new Int32Array(n));
  }
}

export class GrowUint8 extends Grow<Uint8Array> {
  constructor() {
    super((n) => new Uint8Array(n));
  }
}

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
  throw new Error('midpack writers need a little-endian machine (the Arrow and Megatron files are little-endian)');
}

/** What a pack manifest records of its data files (the fields manifestDataFiles reads). */
export interface ManifestFileLists {
  shards?: { filename: string; bytes?: number; sha256?: string }[];
  megatron?: { path: string; bytes?: number; sha256?: string }[];
  doc_lengths?: { path: string; sha256?: string };
}

/** The data files a pack manifest names (shards, Megatron files, lengths), relative to its folder, with the size and sha256 it records. */
export function manifestDataFiles(m: ManifestFileLists): { path: string; bytes?: number; sha256?: string }[] {
  return [
    ...(m.shards ?? []).map((s) => ({ path: join('shards', s.filename), bytes: s.bytes, sha256: s.sha256 })),
    ...(m.megatron ?? []).map((f) => ({ path: f.path, bytes: f.bytes, sha256: f.sha256 })),
    ...(m.doc_lengths ? [{ path: m.doc_lengths.path, sha256: m.doc_lengths.sha256 }] : []),
  ];
}
