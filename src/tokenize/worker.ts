import { parentPort, workerData } from 'node:worker_threads';
import { loadTokenizer } from './tokenizer.js';
import { encodeBatch } from './batch.js';
import type { TokenizeRequest } from './encode.js';

/**
 * A tokenizer worker: receives batches of documents, replies with one EncodedBatch per batch
 * (its typed arrays transferred, not copied) and the time it spent, so the pool can report
 * how busy its workers were.
 */
// The main thread resolved the backend (and checked the pipeline once): the worker trusts it.
// The fast backend's vocabulary memo is the pool's, in shared memory: one copy for all workers.
const tokenizer = await loadTokenizer(workerData.tokenizer as string, workerData.backend ?? 'hf', true, workerData.vocabulary);
parentPort!.on('message', (msg: { batch: number; docs: TokenizeRequest[] } | { stop: true }) => {
  if ('stop' in msg) process.exit(0); // the pool is closing: after the batches sent before this
  const t0 = performance.now();
  const result = encodeBatch(tokenizer, msg.docs);
  const transfer = [result.ids, result.mask, result.boundaries, result.lens, result.boundaryCounts, result.masked].map((a) => a.buffer as ArrayBuffer);
  parentPort!.postMessage({ batch: msg.batch, result, busyMs: performance.now() - t0 }, transfer);
});
parentPort!.postMessage({ ready: true });
