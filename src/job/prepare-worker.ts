import { closeSync, openSync, writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { docToJson } from '../doc/document.js';
import { prepareSource } from './prepare-source.js';
import type { PrepareMessage, PrepareSetup, PrepareTask } from './prepare-pool.js';
import { StageTimes } from './stage-times.js';
import { documentSegments } from '../stages/mask/count.js';
import { loadSegmenter, segmentParams } from '../stages/mask/segments.js';
import { resolveMaskOptions } from '../stages/mask/options.js';

/**
 * A prepare worker (prepare-pool.ts): the sources it is given, one at a time, each through its
 * stages, its documents appended to its part file as JSONL (with masking, each line followed by
 * the document's segments). After each flush it says how many bytes
 * of whole lines the file holds; at the end of a source, its ledgers, figures and stage times.
 */
const setup = workerData as PrepareSetup;
const post = (m: PrepareMessage) => parentPort!.postMessage(m);
/** A flush at least this often, so the main thread reads a slow source as it goes. */
const FLUSH_MS = 50;
const FLUSH_BYTES = 1 << 20;

/**
 * With masking, each document's segments are found and hashed here, where it was made, and go
 * after its JSON on its line (a tab, then base64 words: documentSegments); the main thread only
 * counts them. JSON never holds a raw tab, so the last tab of a line starts them.
 */
const segment = setup.cfg.mask ? loadSegmenter(segmentParams(resolveMaskOptions(setup.cfg.mask).minChars)) : undefined;

const segmentsField = (found: Uint32Array) => Buffer.from(found.buffer, found.byteOffset, found.byteLength).toString('base64');

async function prepareOne(task: PrepareTask): Promise<void> {
  const times = new StageTimes();
  const source = prepareSource(setup.cfg, task.index, setup.rank, setup.runDir, times);
  const fd = openSync(task.part, 'a');
  let pending: string[] = [];
  let pendingChars = 0;
  let bytes = 0;
  let last = performance.now();
  const flush = () => {
    if (pending.length) {
      const b = Buffer.from(pending.join(''), 'utf8');
      for (let at = 0; at < b.length; ) at += writeSync(fd, b, at);
      bytes += b.length;
      [pending, pendingChars] = [[], 0];
      post({ type: 'flushed', bytes });
    }
    last = performance.now();
  };
  try {
    for await (const d of source.docs) {
      const line = docToJson(d) + (segment ? `\t${segmentsField(documentSegments(d, segment))}\n` : '\n');
      pending.push(line);
      pendingChars += line.length;
      if (pendingChars >= FLUSH_BYTES || performance.now() - last >= FLUSH_MS) flush();
    }
    flush();
  } finally {
    closeSync(fd);
  }
  post({ type: 'done', bytes, records: source.records(), times: source.times() });
}

parentPort!.on('message', (task: PrepareTask) => {
  prepareOne(task).catch((e: unknown) => {
    const err = e instanceof Error ? e : new Error(String(e));
    post({ type: 'error', message: err.message, name: err.name, stack: err.stack });
  });
});
