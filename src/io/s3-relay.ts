import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { getRange, headObject, readThrough, StorageError, type RemoteObject } from './s3.js';

/**
 * A worker thread's object reads (ranged GETs and HEADs) made for it by the thread that started
 * it, over a MessagePort, the bytes moved, not copied. A worker reading a bucket otherwise loads
 * the SDK itself (a third of a second of compiling before its first byte, and its heap) while
 * the main thread, which holds the prefix's lock, has it loaded already. Everything else stays
 * in the worker: read-ahead, the ETag pinning, the hashing (readObject).
 */
type RelayAsk = { op: 'range'; url: string; start: number; end: number; etag?: string } | { op: 'head'; url: string };
type RelayRequest = RelayAsk & { id: number };
type RangeResult = { bytes: Uint8Array; size: number; etag: string };
type RelayReply = { id: number; result: RangeResult | RemoteObject | null } | { id: number; error: { message: string; code: string } };

/** This thread's end of a relay: the port to give the worker (in its workerData and transfer list). */
export function objectRelay(): MessagePort {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (req: RelayRequest) => {
    void answer(req).then(({ reply, transfer }) => port1.postMessage(reply, transfer));
  });
  port1.on('close', () => port1.close());
  port1.unref(); // the worker's requests keep it open, never this end
  return port2;
}

async function answer(req: RelayRequest): Promise<{ reply: RelayReply; transfer: ArrayBuffer[] }> {
  try {
    if (req.op === 'head') return { reply: { id: req.id, result: (await headObject(req.url)) ?? null }, transfer: [] };
    const r = await getRange(req.url, req.start, req.end, req.etag);
    // A buffer that is all of its memory is moved (Node's small-buffer pool never is: it is under 4 KiB a piece).
    const whole = r.bytes.byteOffset === 0 && r.bytes.byteLength === r.bytes.buffer.byteLength && r.bytes.byteLength > 4096;
    const bytes = whole ? r.bytes : new Uint8Array(r.bytes);
    return { reply: { id: req.id, result: { bytes, size: r.size, etag: r.etag } }, transfer: [bytes.buffer as ArrayBuffer] };
  } catch (e) {
    return { reply: { id: req.id, error: { message: (e as Error).message, code: e instanceof StorageError ? e.code : 'Error' } }, transfer: [] };
  }
}

/** In a worker: its object reads go through `port` (objectRelay's other end) from now on. */
export function useObjectRelay(port: MessagePort): void {
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 0;
  port.on('message', (r: RelayReply) => {
    const p = pending.get(r.id)!;
    pending.delete(r.id);
    if (pending.size === 0) port.unref();
    if ('error' in r) p.reject(new StorageError(r.error.message, r.error.code));
    else p.resolve(r.result);
  });
  port.unref();
  const ask = (req: RelayAsk) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      port.ref(); // a worker waiting on a reply stays alive
      port.postMessage({ ...req, id });
    });
  readThrough({
    range: async (url, start, end, etag) => {
      const r = (await ask({ op: 'range', url, start, end, etag })) as RangeResult;
      return { bytes: Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength), size: r.size, etag: r.etag };
    },
    head: async (url) => ((await ask({ op: 'head', url })) as RemoteObject | null) ?? undefined,
  });
}
