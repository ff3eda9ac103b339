import { once } from 'node:events';
import { parentPort, workerData } from 'node:worker_threads';
import { loadTokenizer, MidTokenizer, type ResolvedBackend } from './tokenizer.js';
import { revivePrepared, type PreparedData } from './prepared.js';
import type { MemoBuffers } from './piece-memo.js';
import { encodeBatch, type EncodedBatch } from './batch.js';
import { packRequest, type TokenizeRequest } from './encode.js';
import { docsOfLines, type LineBatchJob, type LineOutcome } from './line-docs.js';

/**
 * A tokenizer worker: receives batches of documents, or of JSONL lines to read first
 * (TokenizePool.mapLines), replies with one EncodedBatch per batch (its typed arrays
 * transferred, not copied) and the time it spent, so the pool can report how busy its workers
 * were.
 */
/** The pool's first message to a worker it hands the tokenizer to (TokenizePool.handOver). */
export interface WorkerSetup {
  /** Prepared by the main thread; undefined when that failed (the worker prepares it itself). */
  prepared: PreparedData | undefined;
  /** The fast backend's vocabulary memo, the pool's, in shared memory: one copy for all workers. */
  vocabulary?: MemoBuffers;
}

// The main thread resolved the backend (and checked the pipeline once): the worker trusts it.
const tokenizer = await workerTokenizer();

async function workerTokenizer(): Promise<MidTokenizer> {
  const { tokenizer: spec, backend, cachePieces } = workerData as { tokenizer: string; backend: ResolvedBackend; handed: boolean; cachePieces?: number };
  if (!workerData.handed) return loadTokenizer(spec, backend, true, { cachePieces });
  const [setup] = (await once(parentPort!, 'message')) as [WorkerSetup];
  if (!setup.prepared) return loadTokenizer(spec, backend, true, { cachePieces });
  return new MidTokenizer(revivePrepared(setup.prepared), backend, { vocabulary: setup.vocabulary, cachePieces });
}
parentPort!.on('message', (msg: { batch: number; docs?: TokenizeRequest[]; lines?: LineBatchJob; ranges?: boolean } | { stop: true }) => {
  if ('stop' in msg) process.exit(0); // the pool is closing: after the batches sent before this
  const t0 = performance.now();
  let reply: { batch: number; result: EncodedBatch; records?: number; outcomes?: LineOutcome[]; spent?: Uint8Array };
  if (msg.lines) {
    const { records, outcomes, docs, literals } = docsOfLines(msg.lines, tokenizer.readsAsciiLiterals);
    const result = encodeBatch(tokenizer, docs.map((doc, i) => (literals[i] ? { ...packRequest(doc), asciiLiteral: literals[i] } : packRequest(doc))), msg.ranges);
    // The main thread keeps what a chunk records of each document, not its text.
    // The batch's buffer goes back, to be filled again (readLineBatches' spare buffers).
    reply = { batch: msg.batch, result, records, outcomes: outcomes.map((o) => ('doc' in o ? { doc: { ...o.doc, text: '' } } : o)), spent: new Uint8Array(msg.lines.bytes.buffer) };
  } else {
    reply = { batch: msg.batch, result: encodeBatch(tokenizer, msg.docs!, msg.ranges) };
  }
  const r = reply.result;
  const transfer = [r.ids, r.mask, r.boundaries, r.lens, r.boundaryCounts, r.masked, ...(r.starts && r.ends ? [r.starts, r.ends] : []), ...(reply.spent ? [reply.spent] : [])].map((a) => a.buffer as ArrayBuffer);
  parentPort!.postMessage({ ...reply, busyMs: performance.now() - t0 }, transfer);
});
parentPort!.postMessage({ ready: true });
