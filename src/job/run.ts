import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Doc } from '../doc/document.js';
import { docToJson } from '../doc/document.js';
import { Ledger } from '../core/ledger.js';
import { SINGLE_RANK, ownedBy, partitionKeys, rankOutDir, type RankInfo } from '../core/ranks.js';
import { countedIn, defaultContext } from '../core/stage.js';
import { AtomicLineWriter } from '../io/jsonl.js';
import { readDocumentFile, ByteTally } from '../io/documents.js';
import { writeFileAtomic } from '../write/files.js';
import { countSegments } from '../stages/mask/count.js';
import { loadFrequent, maskApply } from '../stages/mask/apply.js';
import { checkCountsCover, readCountsHeader, type CountsHeader } from '../stages/mask/counts-file.js';
import { resolveMaskOptions } from '../stages/mask/options.js';
import { runPackJob, faultPoint, PACK_DEFAULTS, type PackJobOptions, type PackSummary } from './pack-job.js';
import { packPerSource, type Masker } from './run-per-source.js';
import type { RunConfig } from './run-config.js';
import { tokenizerInfo } from '../tokenize/tokenizer.js';
import { isRemote, joinRemote } from '../io/remote.js';
import { primeRemoteInputs } from '../io/storage.js';
import { checkWorkDir, stagingDir, withRemoteOut } from '../io/remote-out.js';
import { withLocalInputs } from '../io/remote-files.js';
import { claimOutDir, fingerprintHash, inputsIdentity, type OutDir } from './out-dir.js';
import { resolvePackOptions } from './pack-options.js';
import { sourceEntry } from './registry.js';
import { baseFileName, knownTaskCount, keepsBaseDocs, mayRepeat, prepareSource, sourceDocs, sourceTasks, SourcePieces, thenStage } from './prepare-source.js';
import { preparedInWorkers, WarmPrepareWorkers } from './prepare-pool.js';
import type { PreparedDoc, SourceDone } from './prepare-types.js';
import { availableParallelism } from 'node:os';
import { MixtureError, countStep, mixtureStep, type MixtureStepOptions } from './run-mixture.js';
import { Clock, StageTimes, startPhase, stageTime, threadCpuSeconds, timesInReport, type StageTime } from './stage-times.js';
import { PhasePeaks } from '../core/phase-peaks.js';
import { withMemoryBudget } from './memory-budget.js';
import { LineChannel, remaskChunks } from './prepared-lines.js';
import { MaskThread } from './mask-thread.js';
import type { ChunkStore } from './chunk-store.js';

/**
 * `midpack run`: one config, the whole pipeline, bounded memory.
 *
 *   prepare  every source through its stages, in config order, streamed to OUT/.run/docs.jsonl;
 *            with masking, segment counts are taken from the same stream (pass 1). On W > 1
 *            workers the sources run in W worker threads (prepare-pool.ts) beside the main
 *            thread, which writes and counts: the same bytes for any W
 *   pack     the prepared documents, masked with the counts (pass 2), tokenized and packed
 *
 * Without a mixture, tokenizing starts while preparing (packWhilePreparing): the lines docs.jsonl
 * gets go to the tokenizer workers as they are written, and with masking, whose counts are
 * complete only once preparing ends, the workers keep each token's character range and the masks
 * are placed after (docs.jsonl masked on a thread of its own, the chunks' masks placed from its
 * spans on this one: MaskThread, remaskChunks), before planning. A
 * mixture needs the token counts of every source first: prepare, then pack, one after the other.
 *
 * Both steps resume: a finished prepare step is kept (OUT/.run/prepared.json), and packing resumes
 * from its tokenized chunks. On several ranks with masking the two steps run as two phases with a
 * counts merge between them (`--phase prepare`, `midpack mask merge`, `--phase pack --counts`).
 */
export type RunPhase = 'all' | 'prepare' | 'count' | 'pack';

export interface RunOptions {
  rank?: RankInfo;
  phase?: RunPhase;
  /** Merged segment counts from all ranks (phase pack of a multi-rank masked run). */
  counts?: string;
  /** Where `counts` is read: the local copy of an s3:// counts file (set by runPipeline itself). */
  countsFile?: string;
  workers?: number;
  /** Progress events of the pack step. */
  onProgress?: PackJobOptions['onProgress'];
  keepWork?: boolean;
  /** Replace an output folder that holds another midpack output. */
  overwrite?: boolean;
  /** Local folder for the work store and staging of an s3:// out (default: MIDPACK_WORK_DIR, else under the temporary folder). */
  workDir?: string;
  /** More tokenizer workers than cores. */
  forceWorkers?: boolean;
  /** Merged mixture counts of all ranks (a multi-rank run with a mixture; `midpack mixture merge`). */
  mixtureCounts?: string;
  /** A mixture target that cannot be met within maxRepeat is an error (default: reported). */
  strictMixture?: boolean;
  /** Called as each stage (and phase) finishes, with its time: one progress line per stage. */
  onStageTime?: (name: string, t: StageTime) => void;
  /** The run's memory budget in MB (memory-budget.ts; default: the config's memoryMb, else 1024). */
  memoryMb?: number;
  /** Peak RSS per phase, filled as the run goes into report.json `peak_rss_mb` (one is made when not given). */
  memory?: PhasePeaks;
  /** Prepare workers already started (runPipeline starts them before it claims the output). */
  prepareWorkers?: WarmPrepareWorkers;
}

interface Prepared {
  config_sha256: string;
  /** The run's fingerprint (config, tokenizer, source inputs, rank): prepared documents are reused only for the same one. */
  fingerprint?: string;
  rank: number;
  world_size: number;
  documents: number;
  stages: Record<string, { type: string; ledger: ReturnType<Ledger['toJSON']>; balanced: boolean; stats: Record<string, unknown> }>;
  counts?: string;
  /** Wall and CPU time of each stage and of the prepare phase (stage-times.ts). */
  stage_times?: Record<string, StageTime>;
}

type RunResult = { out: string; prepared: Prepared; summary?: PackSummary; stageTimes?: Record<string, StageTime> };

export async function runPipeline(cfg: RunConfig, options: RunOptions = {}): Promise<RunResult> {
  if (options.counts && isRemote(options.counts) && !options.countsFile) {
    return withLocalInputs([options.counts], ([local]) => runPipeline(cfg, { ...options, countsFile: local }));
  }
  // The prepare workers load their modules (half a second each) while this thread claims the
  // output (for a bucket: loads the SDK, takes the prefix's lock): given their setup after.
  const warm = options.prepareWorkers ? undefined : warmPrepareWorkers(cfg, options);
  try {
    return await runClaimed(cfg, warm ? { ...options, prepareWorkers: warm } : options);
  } finally {
    await warm?.close();
  }
}

/** Prepare workers to start ahead, unless the run prepares on one thread or has its documents prepared already. */
function warmPrepareWorkers(cfg: RunConfig, o: RunOptions): WarmPrepareWorkers | undefined {
  const workers = workersOf(cfg, o);
  if (workers <= 1) return undefined;
  const base = isRemote(cfg.out) ? stagingDir(cfg.out, o.workDir ?? cfg.workDir) : cfg.out;
  if (existsSync(join(rankOutDir(base, o.rank ?? SINGLE_RANK), '.run', 'prepared.json'))) return undefined;
  // As many as will have a task (the pool runs min(workers, tasks)), when the config alone says.
  return new WarmPrepareWorkers(Math.min(workers, knownTaskCount(cfg) ?? workers));
}

async function runClaimed(cfg: RunConfig, options: RunOptions): Promise<RunResult> {
  const o = { ...options, memory: options.memory ?? new PhasePeaks() };
  const rank = o.rank ?? SINGLE_RANK;
  // --work-dir, else the config's workDir (a path from the config's folder, as the run reads it).
  const workDir = o.workDir ?? cfg.workDir;
  checkWorkDir(cfg.out, workDir);
  if (isRemote(cfg.out)) {
    // Run into the local staging folder; its finished output goes up to the rank's prefix.
    const base = stagingDir(cfg.out, workDir);
    const remote = rank.worldSize > 1 ? joinRemote(cfg.out, basename(rankOutDir(base, rank))) : cfg.out;
    const r = await withRemoteOut({ remote, local: rankOutDir(base, rank), what: 'run' }, () => runClaimed({ ...cfg, out: base, workDir: undefined }, { ...options, workDir: undefined }));
    return { ...r, out: remote };
  }
  const phase = o.phase ?? 'all';
  if (cfg.mask && rank.worldSize > 1 && phase === 'all') {
    throw new Error('masking over several ranks needs the counts of every rank: run --phase prepare on each rank, `midpack mask merge` the counts, then --phase pack --counts MERGED');
  }
  if (phase === 'pack' && cfg.mask && rank.worldSize > 1 && !o.counts) throw new Error('--phase pack of a masked multi-rank run needs --counts (the merged counts of all ranks)');
  if (cfg.mixture && rank.worldSize > 1 && (phase === 'all' || phase === 'pack') && !o.mixtureCounts) {
    throw new MixtureError(
      `a mixture over ${rank.worldSize} ranks needs the token counts of every rank: run --phase count on each rank, ` +
        '`midpack mixture merge OUT/rank-*/.run/mixture-counts.json --out COUNTS`, then --phase pack --mixture-counts COUNTS on each rank',
    );
  }
  // Before any work: counts that never saw this rank's documents would mask them wrongly.
  if (phase === 'pack' && cfg.mask && o.counts) checkCountsCover(o.counts, readCountsHeader(o.countsFile ?? o.counts), rank);
  const out = rankOutDir(cfg.out, rank);
  const runDir = join(out, '.run');
  // Remote inputs resolved at once, before the fingerprint and the prepare workers need them.
  await primeRemoteInputs(cfg.sources.flatMap((s) => s.inputs));
  // The tokenizer backend and its cache do not change the bytes: switching them must not redo the prepare step.
  const configHash = createHash('sha256').update(JSON.stringify({ ...cfg, file: undefined, workDir: undefined, pack: { ...cfg.pack, tokenizerBackend: undefined, tokenizerCache: undefined } })).digest('hex');
  // Everything that decides the bytes but the merged counts, which only phase pack is given.
  const fingerprint = {
    command: 'run',
    config_sha256: configHash,
    tokenizer_sha256: (await tokenizerInfo(cfg.tokenizer)).hash,
    rank: rank.rank,
    world_size: rank.worldSize,
    ...partitionKeys(rank),
    sources: cfg.sources.map((s) => ({ name: s.name, inputs: inputsIdentity(s.inputs) })),
  };
  const outDir = claimOutDir({ out, fingerprint, overwrite: o.overwrite ?? false, megatronName: (cfg.pack.name as string | undefined) ?? PACK_DEFAULTS.name, what: 'run' });
  try {
    mkdirSync(runDir, { recursive: true });
    const runFingerprint = fingerprintHash(fingerprint);
    let prepared = readPrepared(runDir, runFingerprint);
    const overlapped = !prepared && phase === 'all' && !cfg.mixture;
    // After the fingerprint: the budget changes what is held in memory, not the output's bytes.
    cfg = withMemoryBudget(cfg, o.memoryMb ?? cfg.memoryMb, overlapped);
    if (overlapped) {
      const ids = { configHash, fingerprint: runFingerprint };
      const r = await packWhilePreparing(cfg, o, rank, outDir, ids, { workers: workersOf(cfg, o), warm: o.prepareWorkers });
      o.onStageTime?.('pack', r.times.pack!);
      return { out, ...r, stageTimes: r.times };
    }
    if (!prepared) {
      o.memory.start('prepare');
      prepared = await prepare(cfg, rank, runDir, { configHash, fingerprint: runFingerprint }, { workers: workersOf(cfg, o), warm: o.prepareWorkers }, o.onStageTime);
      o.memory.end();
    }
    if (phase === 'prepare') return { out, prepared };
    if (phase === 'count') {
      if (!cfg.mixture) throw new Error('--phase count takes the mixture counts, and this config states no mixture (share, tokens, maxRepeat, pack.tokens or pack.perSource)');
      await countStep({ cfg: cfg as MixtureConfig, rank, runDir, workers: workersOf(cfg, o) });
      return { out, prepared };
    }
    const times: Record<string, StageTime> = { ...prepared.stage_times };
    const summary = await packPrepared(cfg, o, rank, outDir, prepared, times);
    o.onStageTime?.('pack', times.pack!);
    return { out, prepared, summary, stageTimes: times };
  } finally {
    outDir.release();
  }
}

/** Pack step: the prepared documents, masked when the config masks, into OUT. `times` gets its phase time (`pack`), read live by the report. */
async function packPrepared(cfg: RunConfig, o: RunOptions, rank: RankInfo, outDir: OutDir, prepared: Prepared, times: Record<string, StageTime>): Promise<PackSummary> {
  const phase = startPhase();
  const preparedBytes = prepared.stage_times?.prepare?.bytes ?? 0;
  // A getter: report.json is written at the end of the pack phase, and takes its time then.
  Object.defineProperty(times, 'pack', { enumerable: true, configurable: true, get: () => phase.stop(prepared.documents, preparedBytes) });
  const out = outDir.dir;
  const runDir = join(out, '.run');
  const identity = preparedIdentity(o, runDir, prepared);

  const stages: Record<string, unknown> = { ...prepared.stages };
  if (cfg.mixture) o.memory?.start('mixture');
  const mixture = cfg.mixture ? await mixtureStep(mixtureOptions(cfg as MixtureConfig, o, rank, runDir)) : undefined;
  if (mixture) {
    stages.mixture = mixture.stage;
    identity.mixture = mixture.identity;
  }
  const masked = masker(cfg, o, prepared, runDir);
  const packOptions = packOptionsOf(cfg, o, rank, out);
  const inputs = cfg.sources.flatMap((s) => s.inputs);
  let summary: PackSummary;
  if (mixture && cfg.mixture?.perSource) {
    summary = await packPerSource({ packOptions, mixture, outDir, stages, identity, inputs, masked });
  } else {
    const ledger = new Ledger();
    ledger.printDrops('run');
    const docsPath = mixture?.docsFile ?? join(runDir, 'docs.jsonl');
    const bytes = ByteTally.ofFiles([docsPath]);
    const docs = masked(readDocumentFile(docsPath, ledger, undefined, { bytes }), stages);
    summary = await runPackJob(packOptions, { docs, ledger, inputs, stages, outDir, identity, mixture: mixture?.report, bytes, ...(timesInReport() ? { stageTimes: times } : {}) });
  }
  Object.defineProperty(times, 'pack', { enumerable: true, value: phase.stop(prepared.documents, preparedBytes) });
  if (!o.keepWork) rmSync(runDir, { recursive: true, force: true });
  return summary;
}

/** The pack work resumes only from chunks of these very documents and counts. */
function preparedIdentity(o: RunOptions, runDir: string, prepared: Prepared): Record<string, unknown> {
  const docsFile = statSync(join(runDir, 'docs.jsonl'));
  return {
    prepared: prepared.fingerprint,
    docs: { bytes: docsFile.size, mtime_ms: Math.round(docsFile.mtimeMs) },
    counts: o.counts ? inputsIdentity([o.counts]) : (prepared.counts ?? null),
  };
}

function packOptionsOf(cfg: RunConfig, o: RunOptions, rank: RankInfo, out: string): PackJobOptions {
  return {
    ...PACK_DEFAULTS,
    ...resolvePackOptions(cfg.pack),
    inputs: [],
    out,
    tokenizer: cfg.tokenizer,
    workers: workersOf(cfg, o),
    keepWork: o.keepWork ?? false,
    onProgress: o.onProgress,
    forceWorkers: o.forceWorkers,
    rank,
    memory: o.memory,
  };
}

/**
 * Prepare and pack side by side (phase all, no mixture, nothing prepared yet): the prepared lines
 * go to the tokenizer as docs.jsonl gets them (LineChannel), and once both are done the masks are
 * placed (MaskThread: maskApply with the same counts, options and ledger as packPrepared's masker,
 * on its own thread from the moment the counts are complete; remaskChunks places its spans), then
 * planning and writing as in packPrepared: the same bytes. A run killed before the masks are
 * placed prepares again (it has no prepared.json) and tokenizes again (its chunks carry a work
 * stamp no rerun has); killed after, its rerun reuses the prepared documents and resumes from the
 * chunks, stamped then as packPrepared's work of those documents.
 *
 * Times: the prepare phase and its stages as measured by prepare(); `prepare+tokenize` from the
 * start until both are done; `mask.apply` the pass that places the masks; `pack` the rest (masks,
 * planning, writing): `prepare+tokenize` and `pack` add up to the run.
 */
async function packWhilePreparing(
  cfg: RunConfig,
  o: RunOptions & { memory: PhasePeaks },
  rank: RankInfo,
  outDir: OutDir,
  ids: { configHash: string; fingerprint: string },
  threads: { workers: number; warm?: WarmPrepareWorkers },
): Promise<{ prepared: Prepared; summary: PackSummary; times: Record<string, StageTime> }> {
  const runDir = join(outDir.dir, '.run');
  const docsPath = join(runDir, 'docs.jsonl');
  const channel = new LineChannel();
  const both = startPhase();
  o.memory.start('prepare+tokenize');
  // With masking, the masking pass starts on a thread of its own once the counts are complete (while the tokenizer catches up).
  let maskThread: MaskThread | undefined;
  const preparing = prepare(cfg, rank, runDir, ids, threads, o.onStageTime, (line) => channel.push(line)).then(
    (p) => {
      channel.close();
      if (cfg.mask) maskThread = new MaskThread({ docsPath, countsPath: countsPathOf(o, p, runDir), options: resolveMaskOptions(cfg.mask), seed: cfg.seed });
      return p;
    },
    (e: unknown) => {
      channel.fail(e);
      throw e;
    },
  );
  preparing.catch(() => {}); // awaited below; a pack job that fails first must not crash on it
  const stages: Record<string, unknown> = {};
  const times: Record<string, StageTime> = {};
  const fault = faultPoint();
  const finish = async (store: ChunkStore): Promise<Record<string, unknown>> => {
    const prepared = await preparing;
    const bytes = prepared.stage_times?.prepare?.bytes ?? 0;
    Object.assign(stages, prepared.stages);
    Object.assign(times, prepared.stage_times, { 'prepare+tokenize': both.stop(prepared.documents, bytes) });
    o.onStageTime?.('prepare+tokenize', times['prepare+tokenize']!);
    const after = startPhase();
    if (cfg.mask) {
      o.memory.start('mask');
      // In its place among the stages now (as packPrepared's masker puts it); its ledger and figures once the thread is done.
      const mask = (stages.mask = maskStageHead(o, prepared, readCountsHeader(countsPathOf(o, prepared, runDir))));
      await remaskChunks(store, maskThread!, () => fault('masks'));
      const { ledger, stats } = maskThread!.result();
      Object.assign(mask, { stats, ledger }); // the order packPrepared's manifest has them in
      times['mask.apply'] = after.stop(prepared.documents, bytes);
      o.onStageTime?.('mask.apply', times['mask.apply']);
    }
    // A getter: report.json is written at the end of the pack job, and takes its time then.
    Object.defineProperty(times, 'pack', { enumerable: true, configurable: true, get: () => after.stop(prepared.documents, bytes) });
    return preparedIdentity(o, runDir, prepared);
  };
  const ledger = new Ledger();
  ledger.printDrops('run');
  const lines = { file: docsPath, bytes: channel, ranges: cfg.mask !== undefined, phase: 'prepare+tokenize', finish };
  const inputs = cfg.sources.flatMap((s) => s.inputs);
  let summary: PackSummary;
  try {
    summary = await runPackJob({ ...packOptionsOf(cfg, o, rank, outDir.dir), workers: tokenizersBesidePreparing(workersOf(cfg, o)) }, { lines, ledger, inputs, stages, outDir, ...(timesInReport() ? { stageTimes: times } : {}) });
  } catch (e) {
    channel.fail(e);
    await preparing; // its failure first: the pack job's may only be that the lines stopped
    throw e;
  } finally {
    await maskThread?.close();
  }
  const prepared = await preparing;
  Object.defineProperty(times, 'pack', { enumerable: true, value: times.pack });
  if (!o.keepWork) rmSync(runDir, { recursive: true, force: true });
  return { prepared, summary, times };
}

/**
 * Tokenizer workers while preparing: one fewer than the run's workers (at least one). The prepare
 * pool holds W threads and their memory through the phase; a native tokenizer worker outruns
 * what the stages prepare (5-10 MB/s of documents on bench:run's corpora against 50 MB/s and
 * more a core), and each worker is about 105 MB: on the full bench:run corpus, 2 workers beside
 * preparing peaked at 1,108 MB, 1 at 985 MB, in the same wall time. Workers do not change the bytes.
 */
function tokenizersBesidePreparing(workers: number): number {
  return Math.max(1, workers - 1);
}

/** The documents masked with the counts when the config masks (its ledger and figures into `stages.mask`). */
function masker(cfg: RunConfig, o: RunOptions, prepared: Prepared, runDir: string): Masker {
  if (!cfg.mask) return (docs) => docs;
  const m = resolveMaskOptions(cfg.mask);
  const frequent = loadFrequent(countsPathOf(o, prepared, runDir), m);
  return (docs, stages) => {
    const maskCtx = defaultContext({ seed: cfg.seed });
    // The mask ledger fills while packing reads the documents: a getter, read when the manifest is written.
    stages.mask = { ...maskStageHead(o, prepared, frequent.header), get ledger() { return maskCtx.ledger.toJSON(); }, stats: maskCtx.stats };
    return maskApply(frequent, m)(countedIn(docs, maskCtx.ledger), maskCtx);
  };
}

function countsPathOf(o: RunOptions, prepared: Prepared, runDir: string): string {
  return o.countsFile ?? o.counts ?? join(runDir, prepared.counts!);
}

/**
 * The mask stage's record but its ledger and figures: the counts it masked with. Counts merged
 * with --allow-missing-ranks say so in every rank's figures, and so in the merged manifest.
 */
function maskStageHead(o: RunOptions, prepared: Prepared, header: CountsHeader): Record<string, unknown> {
  const missing = header.missing_ranks?.length ? { counts_missing_ranks: header.missing_ranks } : {};
  return { type: 'mask', counts: o.counts ?? prepared.counts, ...missing };
}

type MixtureConfig = RunConfig & { mixture: NonNullable<RunConfig['mixture']> };

function workersOf(cfg: RunConfig, o: RunOptions): number {
  return o.workers ?? cfg.workers ?? availableParallelism();
}

/** Where the mixture step finds this run's files, and how it sends a repeat through its source's stages again. */
function mixtureOptions(cfg: MixtureConfig, o: RunOptions, rank: RankInfo, runDir: string): MixtureStepOptions {
  const baseFiles = new Map<string, string>();
  cfg.sources.forEach((s, i) => {
    if (keepsBaseDocs(cfg, s)) baseFiles.set(s.name, join(runDir, baseFileName(i)));
  });
  const restage = (name: string, docs: AsyncIterable<Doc>) => {
    const source = cfg.sources.find((s) => s.name === name)!;
    const owns = ownedBy(rank);
    for (const t of source.then) docs = thenStage(t)(docs, defaultContext({ seed: cfg.seed, workDir: join(runDir, 'tmp', `repeat-${name}`), owns }));
    return docs;
  };
  const reread = new Map<string, (repeat: number) => AsyncIterable<Doc>>();
  for (const s of cfg.sources) {
    if (!mayRepeat(s) || s.then.length > 0 || !sourceEntry(s.type).redraws) continue;
    // A throwaway context: the source's ledger and figures were taken when it was first read.
    reread.set(s.name, (repeat) => {
      const workDir = join(runDir, 'tmp', `repeat-${s.name}`);
      mkdirSync(workDir, { recursive: true });
      return sourceDocs(s, defaultContext({ seed: cfg.seed, owns: ownedBy(rank), repeat, log: () => {}, workDir }));
    });
  }
  return { cfg, rank, runDir, workers: workersOf(cfg, o), mixtureCounts: o.mixtureCounts, strict: o.strictMixture ?? false, baseFiles, restage, reread };
}

function readPrepared(runDir: string, fingerprint: string): Prepared | undefined {
  const p = join(runDir, 'prepared.json');
  if (!existsSync(p)) return undefined;
  const prepared = JSON.parse(readFileSync(p, 'utf8')) as Prepared;
  if (prepared.fingerprint !== fingerprint) {
    // Documents of another config, rank or inputs: midpack's own work folder, started over.
    process.stderr.write(`midpack: run: ${runDir} holds documents prepared from another config, rank or inputs: preparing again\n`);
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(runDir, { recursive: true });
    return undefined;
  }
  process.stderr.write(`midpack: run: reusing the prepared documents in ${runDir} (${prepared.documents})\n`);
  return prepared;
}

/** `onLine`: each line as docs.jsonl gets it, waited on (packWhilePreparing's tokenizer). */
async function prepare(
  cfg: RunConfig,
  rank: RankInfo,
  runDir: string,
  ids: { configHash: string; fingerprint: string },
  threads: { workers: number; warm?: WarmPrepareWorkers },
  onStageTime?: RunOptions['onStageTime'],
  onLine?: (line: Buffer) => Promise<void>,
): Promise<Prepared> {
  const { workers } = threads;
  const stages: Prepared['stages'] = {};
  const writer = new AtomicLineWriter(join(runDir, 'docs.jsonl'));
  let documents = 0;
  let bytes = 0;
  const fault = faultPoint();
  const times = new StageTimes();
  const phase = startPhase();
  const mainCpu0 = threadCpuSeconds();
  const write = new Clock();
  const sourceDone = (done: SourceDone) => {
    Object.assign(stages, done.records);
    for (const [name, t] of Object.entries(done.times)) {
      times.set(name, t);
      onStageTime?.(name, t);
    }
  };
  // With W workers, the sources take W threads: the main thread, which writes and counts, waits on them half the time.
  const pooled = workers > 1;
  // Segments the prepare workers found and hashed, for the counter (the one being counted at a time).
  const found = new WeakMap<Doc, Uint32Array>();
  // Their JSONL lines, which counting samples from without parsing them (a worker's document is parsed on use).
  const lineOfDoc = new WeakMap<Doc, Uint8Array>();
  async function* all(): AsyncIterable<Doc> {
    const docs = pooled ? preparedInWorkers(cfg, rank, runDir, workers, sourceDone, threads.warm) : preparedHere(cfg, rank, runDir, sourceDone);
    // `p.doc` is not read here: a worker's documents are parsed only where counting needs their text.
    for await (const p of docs) {
      if (p.segments) found.set(p.doc, p.segments);
      if (p.segments && Buffer.isBuffer(p.line)) lineOfDoc.set(p.doc, p.line);
      // Bytes once: the file stream would encode a string, and the tokenizer takes bytes too.
      const line = Buffer.isBuffer(p.line) ? p.line : Buffer.from(p.line ?? docToJson(p.doc) + '\n');
      await write.time(() => writer.writeRaw(line));
      if (onLine) await onLine(line);
      documents++;
      bytes += p.textBytes;
      fault('docs');
      yield p.doc;
    }
  }
  // The time in the documents' next(): the stages (or, pooled, waiting for and reading the workers' parts) and the writes.
  const feed = new Clock();
  let counts: string | undefined;
  try {
    if (cfg.mask) {
      counts = 'mask-counts.bin';
      const m = resolveMaskOptions(cfg.mask);
      await countSegments(clocked(all(), feed), join(runDir, counts), { minChars: m.minChars, memoryMb: m.memoryMb, samples: m.samples, workDir: join(runDir, 'tmp', 'mask'), rank, segmentsOf: (d) => found.get(d), lineOf: (d) => lineOfDoc.get(d) });
    } else {
      for await (const _ of clocked(all(), feed)) void _;
    }
  } catch (e) {
    await writer.abort();
    throw e;
  }
  await writer.close();
  rmSync(join(runDir, 'tmp'), { recursive: true, force: true });
  const mainThread = { wall: phase.elapsed().wall - feed.wall, cpu: threadCpuSeconds() - mainCpu0 - feed.cpu };
  finishPrepareTimes(times, phase.stop(documents, bytes), write, mainThread, counts !== undefined, onStageTime);
  const prepared: Prepared = { config_sha256: ids.configHash, fingerprint: ids.fingerprint, rank: rank.rank, world_size: rank.worldSize, documents, stages, ...(counts ? { counts } : {}), stage_times: times.toJSON() };
  writeFileAtomic(join(runDir, 'prepared.json'), JSON.stringify(prepared, null, 2) + '\n');
  return prepared;
}

/** The sources one after the other on this thread (one worker, or one source). */
async function* preparedHere(cfg: RunConfig, rank: RankInfo, runDir: string, onSource: (done: SourceDone) => void): AsyncIterable<PreparedDoc> {
  const tasks = await sourceTasks(cfg, rank, runDir);
  const pieces = new SourcePieces(tasks, onSource);
  for (const [k, task] of tasks.entries()) {
    const times = new StageTimes();
    const source = prepareSource(cfg, task.index, rank, runDir, times, task.piece);
    for await (const doc of source.docs) yield { doc, textBytes: Buffer.byteLength(doc.text) };
    pieces.done(k, { records: source.records(), times: source.times() });
  }
}

/** `docs`, the time of each next() added to `clock`. */
async function* clocked<T>(docs: AsyncIterable<T>, clock: Clock): AsyncIterable<T> {
  const it = docs[Symbol.asyncIterator]();
  try {
    for (;;) {
      const r = await clock.time(() => it.next());
      if (r.done) return;
      yield r.value;
    }
  } finally {
    await it.return?.();
  }
}

/**
 * The prepare phase's own parts beside the stages: writing OUT/.run/docs.jsonl, and (masking)
 * counting the segments: the main thread's time outside the documents' next() (`counting`).
 */
function finishPrepareTimes(
  times: StageTimes,
  total: StageTime,
  write: { wall: number; cpu: number },
  counting: { wall: number; cpu: number },
  masked: boolean,
  onStageTime?: RunOptions['onStageTime'],
): void {
  times.set('prepare.write', stageTime(write.wall, write.cpu, total.documents, total.bytes));
  if (masked) times.set('mask.count', stageTime(Math.max(0, counting.wall), Math.max(0, counting.cpu), total.documents, total.bytes));
  times.set('prepare', total);
  for (const name of ['prepare.write', ...(masked ? ['mask.count'] : []), 'prepare']) onStageTime?.(name, times.get(name)!);
}
