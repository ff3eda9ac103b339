import { BroadcastChannel } from 'node:worker_threads';

/**
 * The sha256 of objects this process has read whole, from their first byte to their last
 * (readObject hashes as it reads): the manifest's input checksums come from here, so an input in
 * a bucket is fetched once, not once to pack and again to hash. A hash is known by URL, ETag
 * and size, so a replaced object is never taken for the one that was read. Inputs are often
 * read on a worker thread (a run's prepare step) while the manifest is written on the main
 * thread: each hash is also posted on a BroadcastChannel, heard by every thread that listens
 * (`listenForReadHashes`, called before the job starts reading). A hash not known (a resumed
 * job that read nothing, a Parquet file read by ranges) is computed by reading the object again.
 */
const CHANNEL = 'midpack:read-sha256';

interface ReadHash {
  url: string;
  etag: string;
  size: number;
  sha256: string;
}

const known = new Map<string, string>();
let channel: BroadcastChannel | undefined;

const keyOf = (url: string, etag: string, size: number) => `${url}\n${etag}\n${size}`;

function open(): BroadcastChannel {
  if (channel) return channel;
  channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (m) => {
    const h = (m as { data: ReadHash }).data;
    known.set(keyOf(h.url, h.etag, h.size), h.sha256);
  };
  channel.unref(); // never keeps the process alive
  return channel;
}

/** Hears the hashes other threads of this process compute from now on. */
export function listenForReadHashes(): void {
  open();
}

/** Records the sha256 of an object read whole, here and on every listening thread. */
export function rememberReadHash(url: string, etag: string, size: number, sha256: string): void {
  known.set(keyOf(url, etag, size), sha256);
  if (etag) open().postMessage({ url, etag, size, sha256 } satisfies ReadHash);
}

/** The sha256 of this object as it was read, if it was read whole (and has not been replaced). */
export function readHash(url: string, etag: string, size: number): string | undefined {
  return etag ? known.get(keyOf(url, etag, size)) : undefined;
}
