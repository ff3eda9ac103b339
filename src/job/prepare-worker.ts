import { closeSync, openSync, writeSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { Doc } from '../doc/document.js';
import { appendDocLine, LineBuffer } from '../doc/json-line.js';
import { prepareSource } from './prepare-source.js';
import type { PrepareMessage, PrepareSetup, PrepareTask } from './prepare-types.js';
import { StageTimes } from './stage-times.js';
import { documentSegments } from '../stages/mask/count.js';
import { loadSegmenter, segmentParams } from '../stages/mask/segments.js';
import { resolveMaskOptions } from '../stages/mask/options.js';
import { shareContentCaches } from '../stages/edits/content-cache.js';
import { adoptRemoteInputs } from '../io/storage.js';
import { useObjectRelay } from '../io/s3-relay.js';
import { StorageError } from '../io/s3.js';

/**
 * A prepare worker (prepare-pool.ts): the sources it is given, one at a time, each through its
 * stages, its documents appended to its part: the JSONL lines docs.jsonl gets (PART.jsonl) and
 * their index (PART.idx: each line's bytes, its text's bytes and, with masking, its segments;
 * INDEX_HEADER_WORDS). After each flush it says how many bytes of whole records both files
 * hold; at the end of a source, its ledgers, figures and stage times. Its setup comes with its
 * first message: a worker may be started before the run knows it (WarmPrepareWorkers).
 */
let setup: PrepareSetup;
/**
 * With masking, each document's segments are found and hashed here, where it was made
 * (documentSegments), and go to the index; the main thread only counts them.
 */
let segment: ReturnType<typeof loadSegmenter> | undefined;

function begin(s: PrepareSetup): void {
  setup = s;
  if (s.remote) adoptRemoteInputs(s.remote);
  if (s.relay) useObjectRelay(s.relay);
  shareContentCaches(s.threads);
  segment = s.cfg.mask ? loadSegmenter(segmentParams(resolveMaskOptions(s.cfg.mask).minChars)) : undefined;
}

const post = (m: PrepareMessage) => parentPort!.postMessage(m);
/** A flush at least this often, so the main thread reads a slow source as it goes. */
const FLUSH_MS = 50;
const FLUSH_BYTES = 1 << 20;

/** A file appended to through a growing buffer (LineBuffer's), written out at flush(). */
class Appender extends LineBuffer {
  written = 0;
  private readonly fd: number;

  constructor(path: string) {
    super(FLUSH_BYTES * 2);
    this.fd = openSync(path, 'a');
  }

  /** Appends a document's JSONL line (json-line.ts); returns its bytes. */
  docLine(doc: Doc): number {
    const from = this.used;
    appendDocLine(doc, this);
    return this.used - from;
  }

  /** Appends 32-bit words in the host's order (little-endian, as the native core requires too). */
  words(words: Uint32Array): void {
    this.used += Buffer.from(words.buffer, words.byteOffset, words.byteLength).copy(this.room(words.byteLength), this.used);
  }

  flush(): void {
    for (let at = 0; at < this.used; ) at += writeSync(this.fd, this.buf, at, this.used - at);
    this.written += this.used;
    this.used = 0;
  }

  close(): void {
    closeSync(this.fd);
  }
}

async function prepareOne(task: PrepareTask): Promise<void> {
  const times = new StageTimes();
  const source = prepareSource(setup.cfg, task.index, setup.rank, setup.runDir, times, task.piece);
  const lines = new Appender(`${task.part}.jsonl`);
  const index = new Appender(`${task.part}.idx`);
  let last = performance.now();
  const flush = () => {
    if (lines.used || index.used) {
      lines.flush();
      index.flush();
      post({ type: 'flushed', bytes: lines.written, indexBytes: index.written });
    }
    last = performance.now();
  };
  try {
    for await (const d of source.docs) {
      const found = segment ? documentSegments(d, segment) : undefined;
      index.words(Uint32Array.of(lines.docLine(d), Buffer.byteLength(d.text), found?.length ?? 0));
      if (found) index.words(found);
      if (lines.used + index.used >= FLUSH_BYTES || performance.now() - last >= FLUSH_MS) flush();
    }
    flush();
  } finally {
    lines.close();
    index.close();
  }
  post({ type: 'done', bytes: lines.written, indexBytes: index.written, records: source.records(), times: source.times() });
}

parentPort!.on('message', (m: PrepareTask | { setup: PrepareSetup }) => {
  if ('setup' in m) return begin(m.setup);
  const task = m;
  prepareOne(task).catch((e: unknown) => {
    const err = e instanceof Error ? e : new Error(String(e));
    // The object store failing stays that on the main thread (an input changed mid-read: its staged work is removed).
    post({ type: 'error', message: err.message, name: err.name, stack: err.stack, ...(e instanceof StorageError ? { storageCode: e.code } : {}) });
  });
});
