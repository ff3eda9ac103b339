import { markLossMask } from '../tokenize/token-mask.js';
import type { ChunkStore } from './chunk-store.js';
import type { DocSpans } from './mask-thread.js';

/**
 * What a run needs to tokenize while it prepares (run.ts packWhilePreparing): the prepared lines
 * handed from the writer to the tokenizer, and the loss masks placed once the counts are known.
 */

const EMPTY = Buffer.alloc(0);

/** Bytes of lines the channel holds before the writer waits for the tokenizer (a few of its batches). */
const CHANNEL_BYTES = 8 << 20;

/**
 * The lines docs.jsonl gets, handed to the pack job's tokenizer as they are written (an async
 * stream of buffers). Bounded: the writer waits (push) while the tokenizer is `CHANNEL_BYTES`
 * behind, so a prepare step faster than tokenizing waits on it instead of holding the corpus.
 */
export class LineChannel implements AsyncIterable<Buffer> {
  /** Queued lines from `head` on (taken ones are dropped in bulk, not shifted one at a time). */
  private queue: Buffer[] = [];
  private head = 0;
  private queued = 0;
  private closed = false;
  private failure: { e: unknown } | undefined;
  private wakeReader: (() => void) | undefined;
  private wakeWriter: (() => void) | undefined;

  /** Queues a line; waits while the channel is full. Throws once the channel failed (the reader gave up). */
  async push(line: Buffer): Promise<void> {
    while (!this.failure && this.queued >= CHANNEL_BYTES) await new Promise<void>((resolve) => (this.wakeWriter = resolve));
    if (this.failure) throw this.failure.e;
    this.queue.push(line);
    this.queued += line.length;
    this.wake();
  }

  /** No more lines: the reader ends once it has taken the queued ones. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  /** Both ends stop: the reader throws `e`, and so does a writer's next push. */
  fail(e: unknown): void {
    this.failure ??= { e };
    this.wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      if (this.failure) throw this.failure.e;
      const line = this.queue[this.head];
      if (line) {
        this.queue[this.head++] = EMPTY;
        if (this.head >= 1024 && this.head * 2 >= this.queue.length) [this.queue, this.head] = [this.queue.slice(this.head), 0];
        this.queued -= line.length;
        this.wake();
        yield line;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wakeReader = resolve));
    }
  }

  private wake(): void {
    const [r, w] = [this.wakeReader, this.wakeWriter];
    this.wakeReader = this.wakeWriter = undefined;
    r?.();
    w?.();
  }
}

/**
 * Places the loss mask of every chunk (ChunkStore.remask) from `docs`: the prepared documents that
 * could be tokenized (untokenizable), in order, with their final loss_mask_spans (masking's spans
 * added to their own: maskApply, on the masking thread). Each chunk's document is the next one
 * not among the chunks' failures, as the tokenize phase numbered them, and its mask is what
 * tokenizing it with those spans gives (encodeBatch: markLossMask on the same character ranges).
 * Every document is taken to the end, so the mask stage's ledger and figures count them all.
 * `onChunk`: after each chunk (a kill point).
 */
export async function remaskChunks(store: ChunkStore, docs: AsyncIterable<DocSpans>, onChunk: () => void = () => {}): Promise<void> {
  const it = docs[Symbol.asyncIterator]();
  const failed = new Set<number>();
  let seq = 0;
  const next = async (): Promise<DocSpans> => {
    for (;;) {
      const r = await it.next();
      if (r.done) throw new Error('remask: the prepared documents end before the tokenized chunks do');
      if (!failed.delete(seq++)) return r.value;
    }
  };
  try {
    for (let k = 0; k < store.chunkCount; k++) {
      for (const f of store.index(k).failed) if (f.seq !== undefined) failed.add(f.seq);
      await store.remask(k, async (d, ranges, mask) => {
        const doc = await next();
        if (doc.id !== d.id) throw new Error(`remask: chunk ${k} holds ${d.id} where the prepared documents have ${doc.id}`);
        return doc.spans.length ? markLossMask(ranges(), doc.spans, mask) : 0;
      });
      onChunk();
    }
    for (let r = await it.next(); !r.done; r = await it.next());
  } finally {
    await it.return?.();
  }
}
