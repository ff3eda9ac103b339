import { parentPort, workerData } from 'node:worker_threads';
import { loadTokenizer } from './tokenizer.js';
import { encodeForPacking, type TokenizeRequest, type TokenizeResult } from './encode.js';

/** A tokenizer worker: receives batches of documents, returns typed arrays (transferred, not copied). */
// The main thread resolved the backend (and checked the pipeline once): the worker trusts it.
const tokenizer = await loadTokenizer(workerData.tokenizer as string, workerData.backend ?? 'hf', true);
parentPort!.on('message', (msg: { batch: number; docs: TokenizeRequest[] }) => {
  const results: TokenizeResult[] = msg.docs.map((d) => encodeForPacking(tokenizer, d));
  const transfer = results.flatMap((r) => (r.ids ? [r.ids.buffer, r.mask!.buffer, r.boundaries!.buffer] : []));
  parentPort!.postMessage({ batch: msg.batch, results }, transfer as ArrayBuffer[]);
});
parentPort!.postMessage({ ready: true });
