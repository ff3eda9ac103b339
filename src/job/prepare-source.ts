import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc } from '../doc/document.js';
import { docToJson } from '../doc/document.js';
import type { LedgerJson } from '../core/ledger.js';
import { ownedBy, type RankInfo } from '../core/ranks.js';
import { countedIn, defaultContext, type Stage, type StageContext } from '../core/stage.js';
import { AtomicLineWriter } from '../io/jsonl.js';
import { asUnit, tagged } from '../mix/unit.js';
import { sourceEntry, stageEntry } from './registry.js';
import type { RunConfig, SourceConfig, ThenConfig } from './run-config.js';
import type { StageTime, StageTimes } from './stage-times.js';

/**
 * One source of a run's config through its `then:` stages, as the prepare step streams it. The
 * same function serves the prepare step on the main thread (one worker) and in a prepare worker
 * (prepare-pool.ts): a source's documents are the same bytes wherever it runs.
 */
export interface StageRecord {
  type: string;
  ledger: LedgerJson;
  balanced: boolean;
  stats: Record<string, unknown>;
}

export interface PreparedSource {
  docs: AsyncIterable<Doc>;
  /** The source's and its stages' names, in order (the keys of `records()` and of their times). */
  names: string[];
  /** The ledgers and figures, once `docs` is exhausted. */
  records: () => Record<string, StageRecord>;
  times: () => Record<string, StageTime>;
}

export function prepareSource(cfg: RunConfig, index: number, rank: RankInfo, runDir: string, times: StageTimes): PreparedSource {
  const source = cfg.sources[index]!;
  const owns = ownedBy(rank);
  const ctx = defaultContext({ seed: cfg.seed, owns, workDir: join(runDir, 'tmp', source.name) });
  mkdirSync(ctx.workDir!, { recursive: true });
  ctx.ledger.printDrops(source.name);
  let docs = sourceDocs(source, ctx);
  if (cfg.mixture) docs = mixtureUnits(docs, keepsBaseDocs(cfg, source) ? join(runDir, baseFileName(index)) : undefined);
  docs = times.wrap(source.name, docs);
  // Each stage after the source keeps its own ledger: its unit is the document it gets.
  // `owns` tells a stage that this is one rank of several (dedup then needs the merged index of all ranks).
  const thenCtx = source.then.map((t, i) => ({ t, c: defaultContext({ seed: cfg.seed, workDir: ctx.workDir, owns }), name: `${source.name}.${t.type}${source.then.length > 1 ? i : ''}` }));
  let last = source.name;
  for (const { t, c, name } of thenCtx) {
    docs = times.wrap(name, thenStage(t)(countedIn(docs, c.ledger), c), last);
    last = name;
  }
  if (cfg.mixture) docs = mapDocs(docs, (d) => tagged(d, source.name));
  const names = [source.name, ...thenCtx.map((x) => x.name)];
  const record = (c: StageContext, type: string): StageRecord => ({ type, ledger: c.ledger.toJSON(), balanced: c.ledger.balanced(), stats: c.stats });
  return {
    docs,
    names,
    records: () => Object.fromEntries([[source.name, record(ctx, source.type)], ...thenCtx.map(({ t, c, name }) => [name, record(c, t.type)] as const)]),
    times: () => Object.fromEntries(names.map((n) => [n, times.get(n)!])),
  };
}

/** One source of the config as a document stream, through the registry (src/job/registry.ts). */
export function sourceDocs(s: SourceConfig, ctx: StageContext): AsyncIterable<Doc> {
  const entry = sourceEntry(s.type);
  return entry.read(s.inputs, entry.resolve(s.options), ctx);
}

export function thenStage(t: ThenConfig): Stage {
  const entry = stageEntry(t.type);
  return entry.stage(entry.resolve(t.options));
}

export const mayRepeat = (s: SourceConfig) => (s.target?.maxRepeat ?? 1) > 1;

/** A source that may repeat and has stages keeps its documents as read, for repeats to go through the stages again. */
export function keepsBaseDocs(cfg: RunConfig, s: SourceConfig): boolean {
  return mayRepeat(s) && s.then.length > 0 && cfg.mixture !== undefined;
}

export const baseFileName = (i: number) => `base-${String(i).padStart(3, '0')}.jsonl`;

/** A source's documents as mixture units (meta.mixture_unit = their id), written to `baseFile` too when given. */
async function* mixtureUnits(docs: AsyncIterable<Doc>, baseFile?: string): AsyncIterable<Doc> {
  const writer = baseFile ? new AtomicLineWriter(baseFile) : undefined;
  try {
    for await (const d of docs) {
      const unit = asUnit(d);
      await writer?.write(docToJson(unit));
      yield unit;
    }
  } catch (e) {
    writer?.abort();
    throw e;
  }
  await writer?.close();
}

async function* mapDocs(docs: AsyncIterable<Doc>, f: (d: Doc) => Doc): AsyncIterable<Doc> {
  for await (const d of docs) yield f(d);
}
