import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { StorageError, type RemoteObject } from './s3.js';

/**
 * Synchronous object-store requests, for the few callers that are synchronous by design and
 * run once at the start of a job: expanding input arguments into files, the inputs' identity
 * for the resume fingerprint, sizes for progress, small option files (outcomes, benchmark
 * lists). The request runs on a helper thread while this thread waits on a shared flag; the
 * thread is started on first use and holds the process open only while a request is out.
 */
export type SyncRequest = { op: 'list' | 'head' | 'get'; url: string; flag: Int32Array };
export type SyncReply = { result: unknown; error?: undefined } | { error: { message: string; code: string } };

let bridge: { worker: Worker; port: MessagePort } | undefined;

function start(): { worker: Worker; port: MessagePort } {
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL('./s3-sync-worker.js', import.meta.url), { workerData: { port: port2 }, transferList: [port2] });
  worker.unref();
  port1.unref();
  return { worker, port: port1 };
}

function call(op: SyncRequest['op'], url: string): unknown {
  bridge ??= start();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  bridge.port.postMessage({ op, url, flag } satisfies SyncRequest);
  Atomics.wait(flag, 0, 0);
  const reply = receiveMessageOnPort(bridge.port)?.message as SyncReply | undefined;
  if (!reply) throw new StorageError(`${url}: the object-store thread gave no answer`, 'Error');
  if (reply.error) throw new StorageError(reply.error.message, reply.error.code);
  return reply.result;
}

/** The objects under a prefix, in stable key order (see listObjects). */
export function listObjectsSync(url: string): RemoteObject[] {
  return call('list', url) as RemoteObject[];
}

export function headObjectSync(url: string): RemoteObject | undefined {
  return (call('head', url) as RemoteObject | null) ?? undefined;
}

/** A whole small object, or undefined when there is none. */
export function getObjectSync(url: string): Buffer | undefined {
  const bytes = call('get', url) as Uint8Array | null;
  return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : undefined;
}

/** Stops the helper thread (the environment changed: a new endpoint or credentials). */
export async function stopSyncBridge(): Promise<void> {
  const b = bridge;
  bridge = undefined;
  if (b) await b.worker.terminate();
}
