import { workerData, type MessagePort } from 'node:worker_threads';
import { getObject, headObject, listObjects, StorageError } from './s3.js';
import type { SyncReply, SyncRequest } from './s3-sync.js';

/** The thread behind s3-sync.ts: runs one object-store request at a time and wakes the waiting caller. */
const port = (workerData as { port: MessagePort }).port;

async function answer(req: SyncRequest): Promise<SyncReply> {
  try {
    if (req.op === 'list') return { result: await listObjects(req.url) };
    if (req.op === 'head') return { result: (await headObject(req.url)) ?? null };
    const bytes = await getObject(req.url);
    return { result: bytes ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null };
  } catch (e) {
    return { error: { message: (e as Error).message, code: e instanceof StorageError ? e.code : 'Error' } };
  }
}

port.on('message', (req: SyncRequest) => {
  void answer(req).then((reply) => {
    port.postMessage(reply);
    Atomics.store(req.flag, 0, 1);
    Atomics.notify(req.flag, 0);
  });
});
