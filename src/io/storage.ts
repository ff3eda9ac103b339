import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { AsyncBuffer } from 'hyparquet';
import { hyparquet } from './hyparquet.js';
import { isRemote } from './remote.js';
import { getObject, getRange, headObject, listObjects, readObject, StorageError, type RemoteObject } from './s3.js';
import { getObjectSync, headObjectSync, listObjectsSync } from './s3-sync.js';
import { listenForReadHashes, readHash } from './read-hashes.js';

export { isRemote } from './remote.js';

/**
 * Storage as the readers see it: a local path or an `s3://bucket/prefix`, with one set of
 * calls. Local paths go straight to the filesystem (the same streams as before, no copy);
 * remote ones go through s3.ts: ranged GETs with bounded read-ahead, listing in stable order.
 */

/**
 * Rethrows a failure of the object store met while reading an input (the object deleted or
 * replaced mid-read, access refused, the store unreachable after the retries): the readers count
 * files whose bytes are bad, but this is none of the file's doing, and its sha256 for the
 * manifest could not be had either, so the job stops there, in one line naming the object,
 * and publishes nothing (a rerun resumes).
 */
export function rethrowStorageFailure(e: unknown): void {
  if (e instanceof StorageError) throw e;
}

/** The raw bytes of a file or object, as a stream (1 MiB local reads; 8 MiB ranged GETs, two ahead). */
export function openRaw(path: string): Readable {
  return isRemote(path) ? Readable.from(readObject(path), { objectMode: false }) : createReadStream(path, { highWaterMark: 1 << 20 });
}

/**
 * Random access for Parquet: the footer and each row group read by range (hyparquet reads
 * the footer first, then only the column chunks it needs); small reads near each other are
 * served from the cache hyparquet keeps.
 */
export async function asyncBufferOf(path: string): Promise<AsyncBuffer> {
  const { asyncBufferFromFile, cachedAsyncBuffer } = await hyparquet();
  if (!isRemote(path)) return asyncBufferFromFile(path);
  const head = await headObject(path);
  if (!head) throw new StorageError(`${path}: no such object (read)`, 'NoSuchKey');
  return cachedAsyncBuffer({
    byteLength: head.size,
    slice: async (start: number, end?: number) => {
      const { bytes } = await getRange(path, start, end ?? head.size, head.etag);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
  });
}

/** Sizes of remote objects already listed (expandInputs), so progress totals cost no request per file. */
const knownObjects = new Map<string, RemoteObject>();

export function rememberObjects(objects: readonly RemoteObject[]): void {
  for (const o of objects) knownObjects.set(o.url, o);
}

/** The object at a URL, from the listing that found it when there was one. */
export function remoteObjectSync(url: string): RemoteObject | undefined {
  const known = knownObjects.get(url);
  if (known) return known;
  const o = headObjectSync(url);
  if (o) knownObjects.set(url, o);
  return o;
}

/** What an input argument names: one object, or the objects under it as a folder. */
export type RemoteEntries = { file: RemoteObject } | { under: RemoteObject[] };

/** Input arguments already resolved (primeRemoteInputs), each to its entries or to null (neither exists). */
const knownEntries = new Map<string, RemoteEntries | null>();

/**
 * What an input argument names: one object (the URL is a key), or the objects under it as a
 * folder (`URL/`), in stable order; undefined when neither exists.
 */
export function remoteEntriesSync(url: string): RemoteEntries | undefined {
  const primed = knownEntries.get(url);
  if (primed !== undefined) return primed ?? undefined;
  const exact = url.endsWith('/') ? undefined : remoteObjectSync(url);
  if (exact) return { file: exact };
  const under = listObjectsSync(url.endsWith('/') ? url : `${url}/`);
  rememberObjects(under);
  return under.length ? { under } : undefined;
}

async function remoteEntries(url: string): Promise<RemoteEntries | undefined> {
  const exact = url.endsWith('/') ? undefined : await headObject(url);
  if (exact) {
    rememberObjects([exact]);
    return { file: exact };
  }
  const under = await listObjects(url.endsWith('/') ? url : `${url}/`);
  rememberObjects(under);
  return under.length ? { under } : undefined;
}

/**
 * Resolves a job's remote input arguments before it starts, all at once and without blocking:
 * the synchronous callers that follow (expanding inputs, the resume fingerprint, sizes for
 * progress) then find them known, and no request waits on another. An argument that fails here
 * is left to those callers, which say why in their own words. Also starts hearing the hashes of
 * objects other threads read (read-hashes.ts), before any of them reads.
 */
export async function primeRemoteInputs(paths: readonly string[]): Promise<void> {
  const remote = [...new Set(paths.filter(isRemote))];
  if (!remote.length) return;
  listenForReadHashes();
  await Promise.all(
    remote.map(async (url) => {
      knownEntries.delete(url);
      const found = await remoteEntries(url).catch(() => 'failed' as const);
      if (found !== 'failed') knownEntries.set(url, found ?? null);
    }),
  );
}

/** What this thread knows of remote inputs, for a worker thread to start from (adoptRemoteInputs). */
export function knownRemoteInputs(): { objects: RemoteObject[]; entries: [string, RemoteEntries | null][] } {
  return { objects: [...knownObjects.values()], entries: [...knownEntries] };
}

export function adoptRemoteInputs(known: ReturnType<typeof knownRemoteInputs>): void {
  rememberObjects(known.objects);
  for (const [url, entries] of known.entries) knownEntries.set(url, entries);
}

/** A file's size in bytes (0 when it cannot be found: its reader counts that). */
export function sizeOf(path: string): number {
  try {
    if (isRemote(path)) return remoteObjectSync(path)?.size ?? 0;
    const st = statSync(path);
    return st.isFile() ? st.size : 0;
  } catch {
    return 0;
  }
}

/** A whole file or object (small ones: options' files, markers, counts). */
export function readFileAnySync(path: string): Buffer {
  if (!isRemote(path)) return readFileSync(path);
  const b = getObjectSync(path);
  if (!b) throw Object.assign(new Error(`${path}: no such object`), { code: 'ENOENT' });
  return b;
}

export async function readFileAny(path: string): Promise<Buffer> {
  if (!isRemote(path)) return readFileSync(path);
  const b = await getObject(path);
  if (!b) throw Object.assign(new Error(`${path}: no such object`), { code: 'ENOENT' });
  return b;
}

/**
 * sha256 and size of a remote object's bytes (inputs' checksums for the manifest): as it was
 * read, when this process read it whole (read-hashes.ts), else streamed through now.
 */
export async function sha256Remote(url: string): Promise<{ sha256: string; bytes: number }> {
  const o = knownObjects.get(url);
  const read = o && readHash(url, o.etag, o.size);
  if (read) return { sha256: read, bytes: o.size };
  const h = createHash('sha256');
  let bytes = 0;
  for await (const c of readObject(url)) {
    h.update(c);
    bytes += c.byteLength;
  }
  return { sha256: h.digest('hex'), bytes };
}
