import type { Doc } from '../doc/document.js';
import type { TokenizeResult } from '../tokenize/encode.js';
import type { ChunkDoc, ChunkIndex, ChunkStore, ChunkWriter } from './chunk-store.js';

/**
 * Tokenized documents gathered until a chunk holds `chunkTokens` tokens, then committed to the
 * work store as one chunk (the resume granularity); their tokens are written as they come.
 * Failures are kept with the chunk so a resumed run counts them again.
 */
export class ChunkAccumulator {
  private docs: ChunkDoc[] = [];
  private files: ChunkWriter | undefined;
  private tokens = 0;
  private failed: ChunkIndex['failed'] = [];
  private acceptedEnd = 0;

  constructor(
    private readonly store: ChunkStore,
    private readonly chunkTokens: number,
    /** Sequence number of the next document (documents in resumed chunks come first). */
    private nextSeq: number,
  ) {}

  /** Input documents consumed so far (failed ones included): where a resumed run goes on. */
  accepted(seq: number): void {
    this.acceptedEnd = seq + 1;
  }

  /** A document that failed to tokenize: `seq`, its number among those that could be (acceptedDocs). */
  fail(reason: string, message: string, seq: number): void {
    this.failed.push({ reason, message, seq });
  }

  /** Adds a tokenized document; returns the chunk's index when this one completed a chunk. */
  add(doc: Doc, r: TokenizeResult): ChunkIndex | undefined {
    this.docs.push(chunkDoc(doc, r));
    (this.files ??= this.store.begin(this.store.chunkCount)).append(r.ids!, r.mask!, r.starts && r.ends ? { starts: r.starts, ends: r.ends } : undefined);
    this.tokens += r.ids!.length;
    return this.tokens >= this.chunkTokens ? this.flush() : undefined;
  }

  /** Gives up the chunk being gathered (the job failed): its files are closed, not committed. */
  abort(): void {
    this.files?.abort();
    this.files = undefined;
  }

  /** Writes what is gathered as one chunk (nothing when empty). */
  flush(): ChunkIndex | undefined {
    if (this.docs.length === 0) return undefined;
    const index: ChunkIndex = { firstSeq: this.nextSeq, tokens: this.tokens, docs: this.docs, acceptedEnd: this.acceptedEnd, failed: this.failed };
    this.nextSeq += this.docs.length;
    this.files!.commit(index);
    this.files = undefined;
    this.docs = [];
    this.tokens = 0;
    this.failed = [];
    return index;
  }
}

export function chunkDoc(doc: Doc, r: TokenizeResult): ChunkDoc {
  const d: ChunkDoc = { id: doc.id, kind: doc.kind, source: doc.source, len: r.ids!.length, masked: r.masked ?? 0 };
  if (r.boundaries && r.boundaries.length) d.boundaries = Array.from(r.boundaries);
  if (typeof doc.meta.ordering === 'string') d.ordering = doc.meta.ordering;
  if (typeof doc.meta.language === 'string') d.language = doc.meta.language; // repos set their main language
  if (typeof doc.meta.template === 'string' && doc.kind === 'trajectory') d.template = doc.meta.template;
  if (typeof doc.meta.mixture_source === 'string') d.mix = doc.meta.mixture_source;
  if (typeof doc.meta.group === 'string' && doc.meta.group) d.group = doc.meta.group;
  return d;
}
