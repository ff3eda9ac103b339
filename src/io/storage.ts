import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { asyncBufferFromFile, cachedAsyncBuffer, type AsyncBuffer } from 'hyparquet';
import { isRemote } from './remote.js';
import { getObject, getRange, headObject, readObject, type RemoteObject } from './s3.js';
import { getObjectSync, headObjectSync, listObjectsSync } from './s3-sync.js';

export { isRemote } from './remote.js';

/**
 * Storage as the readers see it: a local path or an `s3://bucket/prefix`, with one set of
 * calls. Local paths go straight to the filesystem (the same streams as before, no copy);
 * remote ones go through s3.ts: ranged GETs with bounded read-ahead, listing in stable order.
 */

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
  if (!isRemote(path)) return asyncBufferFromFile(path);
  const head = await headObject(path);
  if (!head) throw new Error(`${path}: no such object`);
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

/**
 * What an input argument names: one object (the URL is a key), or the objects under it as a
 * folder (`URL/`), in stable order; undefined when neither exists.
 */
export function remoteEntriesSync(url: string): { file: RemoteObject } | { under: RemoteObject[] } | undefined {
  const exact = url.endsWith('/') ? undefined : remoteObjectSync(url);
  if (exact) return { file: exact };
  const under = listObjectsSync(url.endsWith('/') ? url : `${url}/`);
  rememberObjects(under);
  return under.length ? { under } : undefined;
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

/** sha256 and size of a remote object's bytes, streamed through (inputs' checksums for the manifest). */
export async function sha256Remote(url: string): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const c of readObject(url)) {
    h.update(c);
    bytes += c.byteLength;
  }
  return { sha256: h.digest('hex'), bytes };
}
