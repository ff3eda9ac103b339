import type { Doc } from '../doc/document.js';
import { Ledger } from './ledger.js';

/**
 * A stage is a transform over a stream of documents (datatrove's pipeline step):
 * it pulls from its input as it goes, so a run holds a bounded window in memory.
 */
export interface StageContext {
  ledger: Ledger;
  seed: number;
  /** Where a stage may keep caches and spill files. */
  workDir?: string;
  /** Progress and warnings go here (stderr in the CLI), never to the data stream. */
  log: (message: string) => void;
  /**
   * Set when the run is one rank of several: a source reads only the records it owns
   * (see core/ranks.ts), before any costly work and before counting them.
   */
  owns?: (recordKey: string) => boolean;
  /** Figures a stage reports (LLM requests, cache hits, documents by ordering...): JSON values only. */
  stats: Record<string, unknown>;
  /**
   * Set when a mixture reads a source again for repeat N of its documents (docs/mixing.md): a
   * reader that makes seeded choices per record (a trajectory's template) draws them afresh from
   * the seed and N, and keeps each document's first-use id, which names its mixture unit.
   */
  repeat?: number;
}

export type Stage = (docs: AsyncIterable<Doc>, ctx: StageContext) => AsyncIterable<Doc>;

/** Composes stages left to right. */
export function pipeline(...stages: Stage[]): Stage {
  return (docs, ctx) => stages.reduce<AsyncIterable<Doc>>((acc, s) => s(acc, ctx), docs);
}

export function defaultContext(overrides: Partial<StageContext> = {}): StageContext {
  return { ledger: new Ledger(), seed: 0, log: (m) => process.stderr.write(m + '\n'), stats: {}, ...overrides };
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

export async function* fromArray<T>(xs: Iterable<T>): AsyncIterable<T> {
  for (const x of xs) yield x;
}

/** A reader counts records in and drops; what it yields is counted out here, so a source's ledger balances. */
export async function* countedOut(docs: AsyncIterable<Doc>, ledger: Ledger): AsyncIterable<Doc> {
  for await (const d of docs) {
    ledger.output();
    yield d;
  }
}

/** A transform stage counts what it emits and drops; what it receives is counted in here. */
export async function* countedIn(docs: AsyncIterable<Doc>, ledger: Ledger): AsyncIterable<Doc> {
  for await (const d of docs) {
    ledger.input();
    yield d;
  }
}
