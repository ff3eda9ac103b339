import type { Doc } from '../doc/document.js';
import type { LedgerJson } from '../core/ledger.js';
import type { RankInfo } from '../core/ranks.js';
import type { RunConfig } from './run-config.js';
import type { StageTime } from './stage-times.js';
import type { knownRemoteInputs } from '../io/storage.js';
import type { MessagePort } from 'node:worker_threads';

/**
 * The types the prepare step's parts share: a task (prepare-source.ts makes them), what a prepare
 * worker is given and says (prepare-worker.ts), and what the pool gives the run (prepare-pool.ts).
 * Kept here so those modules import downward only: types, then source, then worker and pool.
 */

/** A stage's ledger and figures, as a prepared source reports them. */
export interface StageRecord {
  type: string;
  ledger: LedgerJson;
  balanced: boolean;
  stats: Record<string, unknown>;
}

/** One piece of work of the prepare step: the config's `index`th source, or one piece of it (SourceEntry.pieces). */
export interface SourceTask {
  index: number;
  piece?: unknown;
  /** On a source's first task: the time its pieces took to plan (bundles cloned, commits counted), counted as the source's own. */
  planned?: { name: string; wall: number };
}

/** A source's (or a piece's) ledgers, figures and stage times, once its last document is out. */
export interface SourceDone {
  records: Record<string, StageRecord>;
  times: Record<string, StageTime>;
}

/** Messages of a prepare worker (prepare-worker.ts): how far its part's two files hold whole records. */
export type PrepareMessage =
  | ({ type: 'flushed' } & PartBytes)
  | ({ type: 'done' } & PartBytes & SourceDone)
  | { type: 'error'; message: string; name: string; stack?: string; storageCode?: string };

/** Bytes of whole records in a part's JSONL file and in its index (prepare-worker.ts). */
export interface PartBytes {
  bytes: number;
  indexBytes: number;
}

/** What every prepare worker is started with. */
export interface PrepareSetup {
  cfg: RunConfig;
  rank: RankInfo;
  runDir: string;
  /** Prepare workers running at once: a run's stated cache budgets are split over them. */
  threads: number;
  /** The remote inputs the main thread has resolved: a worker makes no request to find them again. */
  remote?: ReturnType<typeof knownRemoteInputs>;
  /** The main thread's end of the worker's object reads (s3-relay.ts), when the inputs are in a bucket. */
  relay?: MessagePort;
}

/** One task for a worker: the config's `index`th source or a piece of it, its documents into `part` (`part`.jsonl and `part`.idx). */
export interface PrepareTask extends SourceTask {
  part: string;
}

/**
 * A part's index: per document, INDEX_HEADER_WORDS little-endian 32-bit words (its JSONL line's
 * bytes with the newline, its text's UTF-8 bytes, how many segment words follow), then those
 * words (with masking: documentSegments, four a segment). The JSONL file holds exactly the
 * lines that go to docs.jsonl, so the main thread copies them without decoding.
 */
export const INDEX_HEADER_WORDS = 3;

/**
 * A prepared document: its JSONL line with the newline (the bytes docs.jsonl gets), its text's
 * UTF-8 bytes, and (masking, from a worker) its segments found and hashed. A worker's `doc` is
 * parsed from the line on first use: counting needs a document's text only for the few segments
 * it samples.
 */
export interface PreparedDoc {
  doc: Doc;
  /** The document's JSONL line; absent when it is made on this thread, where it is serialized as part of the timed write. */
  line?: Buffer | string;
  textBytes: number;
  segments?: Uint32Array;
}

