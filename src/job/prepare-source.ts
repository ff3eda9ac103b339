import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc } from '../doc/document.js';
import { docToJson } from '../doc/document.js';
import { Ledger } from '../core/ledger.js';
import { mergePieceFigures } from './merge-report.js';
import { ownedBy, type RankInfo } from '../core/ranks.js';
import { countedIn, defaultContext, type Stage, type StageContext } from '../core/stage.js';
import { AtomicLineWriter } from '../io/jsonl.js';
import { asUnit, tagged } from '../mix/unit.js';
import { sourceEntry, stageEntry } from './registry.js';
import type { RunConfig, SourceConfig, ThenConfig } from './run-config.js';
import { stageTime, type StageTime, type StageTimes } from './stage-times.js';
import type { SourceDone, SourceTask, StageRecord } from './prepare-types.js';

/**
 * One source of a run's config through its `then:` stages, as the prepare step streams it. The
 * same function serves the prepare step on the main thread (one worker) and in a prepare worker
 * (prepare-pool.ts): a source's documents are the same bytes wherever it runs.
 */
export interface PreparedSource {
  docs: AsyncIterable<Doc>;
  /** The source's and its stages' names, in order (the keys of `records()` and of their times). */
  names: string[];
  /** The ledgers and figures, once `docs` is exhausted. */
  records: () => Record<string, StageRecord>;
  times: () => Record<string, StageTime>;
}

/** A source's context in a run: its work folder, this rank's share. */
function sourceContext(cfg: RunConfig, index: number, rank: RankInfo, runDir: string): StageContext {
  const ctx = defaultContext({ seed: cfg.seed, owns: ownedBy(rank), workDir: join(runDir, 'tmp', cfg.sources[index]!.name) });
  mkdirSync(ctx.workDir!, { recursive: true });
  return ctx;
}

/**
 * The prepare step's tasks in config order: each source whole, or its pieces in order where its
 * reader has them and nothing downstream keeps state across documents (no `then:` stages, no
 * mixture). The same tasks for any number of workers, so the same documents and figures.
 */
export async function sourceTasks(cfg: RunConfig, rank: RankInfo, runDir: string): Promise<SourceTask[]> {
  const tasks: SourceTask[] = [];
  for await (const task of plannedTasks(cfg, rank, runDir)) tasks.push(task);
  return tasks;
}

/** sourceTasks' tasks as each is planned: the tasks before a source read in pieces need not wait for its planning (a bundle cloned). */
export async function* plannedTasks(cfg: RunConfig, rank: RankInfo, runDir: string): AsyncIterable<SourceTask> {
  for (const [index, s] of cfg.sources.entries()) {
    const entry = sourceEntry(s.type);
    if (isWholeTask(cfg, s) || !entry.pieces) {
      yield { index };
      continue;
    }
    const wall0 = performance.now();
    const pieces = await entry.pieces(s.inputs, entry.resolve(s.options), sourceContext(cfg, index, rank, runDir));
    // Wall time only: planning's CPU is git's (a child process, in no thread's time), and this
    // thread's across the awaits would count the other work it does meanwhile (reading parts, counting).
    const planned = { name: s.name, wall: (performance.now() - wall0) / 1000 };
    if (pieces.length === 0) throw new Error(`${s.name}: its reader planned no pieces`);
    for (const [k, piece] of pieces.entries()) yield k === 0 ? { index, piece, planned } : { index, piece };
  }
}

/** A source prepared as one task: its reader has no pieces, or something after it keeps state across its documents. */
const isWholeTask = (cfg: RunConfig, s: SourceConfig) => !sourceEntry(s.type).pieces || s.then.length > 0 || Boolean(cfg.mixture);

/** How many tasks sourceTasks gives, when the config alone says (no source is read in pieces). */
export function knownTaskCount(cfg: RunConfig): number | undefined {
  return cfg.sources.every((s) => isWholeTask(cfg, s)) ? cfg.sources.length : undefined;
}

export function prepareSource(cfg: RunConfig, index: number, rank: RankInfo, runDir: string, times: StageTimes, piece?: unknown): PreparedSource {
  const source = cfg.sources[index]!;
  const owns = ownedBy(rank);
  const ctx = sourceContext(cfg, index, rank, runDir);
  ctx.ledger.printDrops(source.name);
  let docs = sourceDocs(source, ctx, piece);
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

/** One source of the config (or one piece of it) as a document stream, through the registry (src/job/registry.ts). */
export function sourceDocs(s: SourceConfig, ctx: StageContext, piece?: unknown): AsyncIterable<Doc> {
  const entry = sourceEntry(s.type);
  return entry.read(s.inputs, entry.resolve(s.options), ctx, piece);
}

/** Gathers each source's figures as its tasks finish, in order, and gives them merged (`onSource`) after its last. */
export class SourcePieces {
  private figures: SourceDone[] = [];
  private planned: SourceTask['planned'];

  constructor(
    private readonly tasks: readonly SourceTask[],
    private readonly onSource: (done: SourceDone) => void,
  ) {}

  done(k: number, figures: SourceDone): void {
    if (this.figures.length === 0) this.planned = this.tasks[k]!.planned;
    this.figures.push(figures);
    if (this.tasks[k + 1]?.index === this.tasks[k]!.index) return;
    this.onSource(withPlanning(mergePieces(this.figures), this.planned));
    this.figures = [];
  }
}

/** The source's own time with its planning's wall time added (its CPU is git's: see plannedTasks). */
function withPlanning(done: SourceDone, planned: SourceTask['planned']): SourceDone {
  const t = planned && done.times[planned.name];
  if (!t) return done;
  return { ...done, times: { ...done.times, [planned.name]: stageTime(t.wall_s + planned.wall, t.cpu_s, t.documents, t.bytes) } };
}

/**
 * A source's figures from its pieces': ledgers merged, figures as mergePieceFigures merges them,
 * times added (a source's time is then the sum over the threads its pieces ran on).
 */
export function mergePieces(parts: readonly SourceDone[]): SourceDone {
  if (parts.length === 1) return parts[0]!;
  const records: Record<string, StageRecord> = {};
  for (const name of Object.keys(parts[0]!.records)) {
    const all = parts.map((p) => p.records[name]!);
    const ledger = new Ledger();
    for (const r of all) ledger.merge(r.ledger);
    records[name] = { type: all[0]!.type, ledger: ledger.toJSON(), balanced: ledger.balanced(), stats: mergePieceFigures(all.map((r) => r.stats)) };
  }
  const times: Record<string, StageTime> = {};
  for (const name of Object.keys(parts[0]!.times)) {
    const sum = (f: (t: StageTime) => number) => parts.reduce((a, p) => a + f(p.times[name]!), 0);
    times[name] = stageTime(sum((t) => t.wall_s), sum((t) => t.cpu_s), sum((t) => t.documents), sum((t) => t.bytes));
  }
  return { records, times };
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
  let complete = false;
  try {
    for await (const d of docs) {
      const unit = asUnit(d);
      await writer?.write(docToJson(unit));
      yield unit;
    }
    complete = true;
  } finally {
    // Failed, or left unfinished by its reader (a later step failed): no partial file, no open stream.
    if (!complete) await writer?.abort();
  }
  await writer?.close();
}

async function* mapDocs(docs: AsyncIterable<Doc>, f: (d: Doc) => Doc): AsyncIterable<Doc> {
  for await (const d of docs) yield f(d);
}
