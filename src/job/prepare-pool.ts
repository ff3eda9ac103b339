import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { FileTail } from '../io/file-tail.js';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Doc } from '../doc/document.js';
import type { RankInfo } from '../core/ranks.js';
import type { RunConfig } from './run-config.js';
import type { StageTime } from './stage-times.js';
import type { StageRecord } from './prepare-source.js';

/**
 * The prepare step's sources in worker threads, beside the main thread that writes and counts.
 *
 * Each source (with its `then:` stages) runs whole in one worker (prepare-worker.ts), through the
 * same prepareSource() as on the main thread, so its documents are the same bytes wherever it
 * runs; at most `workers` sources run at once, started in config order. A worker appends its
 * documents to a part file (OUT/.run/tmp/parts/) and says how far the file holds whole lines; the
 * main thread reads the parts in config order, the one it is on while it is being written, so
 * the prepared documents (and the segment counts taken from them) are the same bytes for any
 * number of workers. Memory is one read buffer per part: a fast source waits on disk, never in
 * memory.
 */
export interface SourceDone {
  records: Record<string, StageRecord>;
  times: Record<string, StageTime>;
}

/** Messages of a prepare worker (prepare-worker.ts). */
export type PrepareMessage =
  | { type: 'flushed'; bytes: number }
  | ({ type: 'done'; bytes: number } & SourceDone)
  | { type: 'error'; message: string; name: string; stack?: string };

/** What every prepare worker is started with. */
export interface PrepareSetup {
  cfg: RunConfig;
  rank: RankInfo;
  runDir: string;
}

/** One source for a worker: the config's `index`th, its documents into `part`. */
export interface PrepareTask {
  index: number;
  part: string;
}

/** One source's part: the file its worker appends to, and the source's figures once it is done. */
class Part extends FileTail {
  records: SourceDone | undefined;

  onMessage(m: PrepareMessage): void {
    if (m.type === 'error') this.fail(Object.assign(new Error(m.message), { name: m.name }));
    else if (m.type === 'flushed') this.advance(m.bytes);
    else {
      this.records = { records: m.records, times: m.times };
      this.finish(m.bytes);
    }
  }
}

/** A prepared document, its JSONL line, and (masking, from a worker) its segments found and hashed. */
export interface PreparedDoc {
  doc: Doc;
  line: string;
  segments?: Uint32Array;
}

/** A part's line: the document's JSON, then with masking a tab and its segments in base64 (prepare-worker.ts). */
function preparedLine(text: string, masked: boolean): PreparedDoc {
  if (!masked) return { doc: JSON.parse(text) as Doc, line: text };
  const tab = text.lastIndexOf('\t');
  const line = text.slice(0, tab);
  const bytes = Buffer.from(text.slice(tab + 1), 'base64');
  const segments = new Uint32Array(bytes.length >> 2);
  new Uint8Array(segments.buffer).set(bytes);
  return { doc: JSON.parse(line) as Doc, line, segments };
}

/**
 * The documents of every source of `cfg`, in config order, each with its JSONL line (the bytes
 * the main thread writes); `onSource(done)` as each source's last document has been given.
 */
export async function* preparedInWorkers(
  cfg: RunConfig,
  rank: RankInfo,
  runDir: string,
  workers: number,
  onSource: (done: SourceDone) => void,
): AsyncIterable<PreparedDoc> {
  const partsDir = join(runDir, 'tmp', 'parts');
  mkdirSync(partsDir, { recursive: true });
  const parts = cfg.sources.map((_, i) => new Part(join(partsDir, `${String(i).padStart(3, '0')}.jsonl`)));
  const threads: Worker[] = [];
  let next = 0;
  const spawn = () => {
    const w = new Worker(new URL('./prepare-worker.js', import.meta.url), { workerData: { cfg, rank, runDir } satisfies PrepareSetup });
    threads.push(w);
    let index = -1;
    // The worker takes the next source when it is done with one: its modules load once.
    const give = () => {
      if (next >= parts.length) return;
      index = next++;
      writeFileSync(parts[index]!.path, ''); // there for the main thread to open before the worker's first write
      w.postMessage({ index, part: parts[index]!.path } satisfies PrepareTask);
    };
    w.on('message', (m: PrepareMessage) => {
      parts[index]!.onMessage(m);
      if (m.type === 'done') give();
    });
    w.on('error', (e) => parts[index]!.fail(e));
    // Checked a turn later: a worker's last messages are delivered before its 'exit', never after.
    w.on('exit', (code) =>
      setImmediate(() => {
        for (const part of parts) if (!part.done) part.fail(new Error(`a prepare worker exited (code ${code}) before the last document of ${part.path}`));
      }),
    );
    give();
  };
  try {
    for (let k = 0; k < Math.min(Math.max(1, workers), parts.length); k++) spawn();
    for (const part of parts) {
      for await (const line of part.lines()) yield preparedLine(line, cfg.mask !== undefined);
      onSource(part.records!);
      rmSync(part.path, { force: true });
    }
  } finally {
    // Done, failed, or the consumer stopped: no source goes on writing.
    await Promise.all(threads.map((w) => w.terminate()));
  }
}
