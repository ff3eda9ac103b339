import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Doc } from '../doc/document.js';
import { Ledger } from '../core/ledger.js';
import { SINGLE_RANK, inputOwns, ownedBy, partitionKeys, type RankInfo } from '../core/ranks.js';
import { readDocuments, isDocumentFile, ByteTally } from '../io/documents.js';
import { expandInputs, portableNamer } from '../io/inputs.js';
import { isRemote, primeRemoteInputs, remoteObjectSync, sha256Remote } from '../io/storage.js';
import { checkWorkDir, stagingDir, withRemoteOut } from '../io/remote-out.js';
import { tokenizerInfo, resolveTokenizerBackend, fallbackMessage, type ResolvedBackend, type TokenizerBackend } from '../tokenize/tokenizer.js';
import { NATIVE_CACHE_ENTRIES } from '../tokenize/native-bpe.js';
import { TokenizePool } from '../tokenize/pool.js';
import { packRequest, untokenizable, type TokenizeResult } from '../tokenize/encode.js';
import type { LineBatchJob } from '../tokenize/line-docs.js';
import { openBytes, readLineBatches } from '../io/lines.js';
import { countFault } from '../io/jsonl.js';
import { sizeOf } from '../io/storage.js';
import { binOrder, planBins, planBatchOf, DocGroups, UnitTally, DEFAULT_MAX_OPEN_BINS, DEFAULT_PASS_UNITS, DEFAULT_PLAN_WINDOW_UNITS, type GroupableDoc, type DocGroupFigures, type OverlongPolicy, type PlanBatch, type PlanChunk, type PlanResult } from '../pack/index.js';
import { hashedWhileRead, sha256Local } from '../io/local-hashes.js';
import { ChunkStore, type ChunkIndex } from './chunk-store.js';
import { ChunkAccumulator } from './chunk-accumulator.js';
import { BinAssembler } from './bin-assembler.js';
import { PlanReader, PlanWriter } from './plan-store.js';
import type { PackOutputs } from './pack-outputs.js';
import type { Manifest } from './pack-manifest.js';
import { FiguresBuilder, type ReportJson } from '../report/figures.js';
import type { MixtureReport } from '../mix/report.js';
import { claimOutDir, fingerprintHash, inputsIdentity, manifestFiles, type Fingerprint, type OutDir } from './out-dir.js';
import { capWorkers } from './workers.js';
import { PhasePeaks } from '../core/phase-peaks.js';

export type { Manifest } from './pack-manifest.js';

export interface PackJobOptions {
  inputs: string[];
  out: string;
  tokenizer: string;
  /** auto (default): native where it has a splitter, else fast wherever it gives the reference's ids, else hf; hf; fast; native. Same bytes either way. */
  tokenizerBackend?: TokenizerBackend;
  /** Pieces each worker's native tokenizer keeps encoded (PACK_OPTIONS.tokenizerCache); changes no byte. */
  tokenizerCache?: number;
  workers: number;
  seqLen: number;
  overlong: OverlongPolicy;
  slideStride?: number;
  /** 0 (default): each planning pass placed best-fit decreasing as a whole; N: N units at a time. */
  windowUnits?: number;
  /** Partly filled bins carried between planning passes (their units: at most 2^21, 20 bytes each). */
  maxOpenBins?: number;
  /** Units one planning pass holds (about 56 bytes each); a larger corpus is planned in several passes. */
  passUnits?: number;
  /** Bins are written in a pseudo-random order from this seed (and the plan's hash is seeded by it); default 0. */
  shuffleSeed?: number;
  /** false: bins are written in plan order. Default true. */
  shuffle?: boolean;
  rowsPerShard: number;
  /** Megatron dataset name: megatron/NAME_text_document.bin/.idx ... */
  name: string;
  /** Tokens per work chunk: the resume granularity. */
  chunkTokens: number;
  keepWork: boolean;
  /** Progress of each phase, as increments (the CLI draws them; the library itself prints none). */
  onProgress?: (event: PackProgressEvent) => void;
  /** This process's part of the input (one rank of a job array); all of it by default. */
  rank?: RankInfo;
  /** Replace an --out that holds another midpack output (otherwise refused). */
  overwrite?: boolean;
  /** Local folder for the work store and staging of an s3:// --out (default: MIDPACK_WORK_DIR, else under the temporary folder). */
  workDir?: string;
  /** The row field holding the text, when it is not `text`. */
  textField?: string;
  /** More workers than cores (otherwise capped at the core count). */
  forceWorkers?: boolean;
  /** Peak RSS per phase (a run's earlier phases already in it); report.json `peak_rss_mb`. */
  memory?: PhasePeaks;
}

/** One step of a pack job: counts are increments since the last event of that phase. */
export interface PackProgressEvent {
  phase: 'tokenize' | 'plan' | 'write';
  documents?: number;
  tokens?: number;
  bins?: number;
  /** plan: the pass starting (0 is the counting pass, passes + 1 planning done) of `passes`. */
  pass?: number;
  passes?: number;
  /** tokenize: input bytes read since the last event, of `totalBytes`. */
  bytes?: number;
  totalBytes?: number;
  /** write: bins to write in all. */
  totalBins?: number;
}

export const PACK_DEFAULTS = {
  tokenizer: 'qwen3',
  tokenizerBackend: 'auto' as TokenizerBackend,
  tokenizerCache: NATIVE_CACHE_ENTRIES,
  seqLen: 262_144,
  overlong: 'split' as OverlongPolicy,
  rowsPerShard: 256,
  name: 'midpack',
  chunkTokens: 4_000_000,
  keepWork: false,
  windowUnits: DEFAULT_PLAN_WINDOW_UNITS,
  maxOpenBins: DEFAULT_MAX_OPEN_BINS,
  passUnits: DEFAULT_PASS_UNITS,
  shuffleSeed: 0,
  shuffle: true,
};

export interface PackSummary {
  manifest: Manifest;
  report: ReportJson;
}

/** Options that decide the output bytes: a resumed run must use the same ones. */
function outputConfig(o: PackJobOptions, tokenizerHash: string): Record<string, unknown> {
  return {
    tokenizer: o.tokenizer,
    tokenizer_sha256: tokenizerHash,
    seq_len: o.seqLen,
    overlong: o.overlong,
    slide_stride: o.slideStride ?? null,
    window_units: o.windowUnits ?? PACK_DEFAULTS.windowUnits,
    max_open_bins: o.maxOpenBins ?? PACK_DEFAULTS.maxOpenBins,
    pass_units: o.passUnits ?? PACK_DEFAULTS.passUnits,
    shuffle_seed: (o.shuffle ?? true) ? (o.shuffleSeed ?? 0) : null,
    rows_per_shard: o.rowsPerShard,
    name: o.name,
    chunk_tokens: o.chunkTokens,
    ...(o.textField && o.textField !== 'text' ? { text_field: o.textField } : {}),
  };
}

/** Documents from upstream stages (midpack run) instead of input files. */
export interface PackSource {
  /** The documents; absent when `lines` gives them. */
  docs?: AsyncIterable<Doc>;
  /** The documents as the JSONL lines of a file being written (a run tokenizing while it prepares). */
  lines?: PreparedLines;
  ledger: Ledger;
  inputs: string[];
  stages?: Record<string, unknown>;
  /** Wall and CPU time of each stage and phase (midpack run), into report.json `stage_times`. */
  stageTimes?: Record<string, unknown>;
  /** The output folder, claimed by the caller (else the job claims it). */
  outDir?: OutDir;
  /**
   * What identifies the documents, for resuming only work made from the same ones. Without it
   * (documents handed over as a stream) nothing proves a rerun is the same job, so its work is
   * never resumed: the identity is unique to this call.
   */
  identity?: Fingerprint;
  /** The run's mixture section (report.mixture, manifest.mixture), from the finished figures. */
  mixture?: (report: ReportJson) => MixtureReport;
  /** The input bytes `docs` reads (ReadDocumentsOptions.bytes), for progress by percentage. */
  bytes?: ByteTally;
}

/**
 * Documents as the JSONL lines of `file` while it is written (midpack run: OUT/.run/docs.jsonl as
 * it is prepared), read and tokenized by the workers exactly as reading the finished file would
 * (the same lines, numbers, checks and ledger counts: tokenizedLines).
 */
export interface PreparedLines {
  file: string;
  bytes: AsyncIterable<Buffer>;
  /** The tokens' character ranges are kept beside the chunks, for `finish` to place the loss mask (ChunkStore.remask). */
  ranges: boolean;
  /** The tokenize phase's name in `peak_rss_mb` (it overlaps the phase that writes the lines). */
  phase: string;
  /**
   * Called once every line is tokenized, before planning: places the masks (when `ranges`), and
   * returns what identifies the finished documents (PackSource.identity of a job that reads
   * `file` whole): the work store is stamped with it, so a rerun that reads the file resumes
   * from these chunks. Until then the work is unique to this call (never resumed).
   */
  finish: (store: ChunkStore) => Promise<Fingerprint>;
}

/**
 * The pack job, in three phases over the work store OUT/.work:
 *  1. tokenize: read documents, tokenize on worker threads (input order kept), write chunks;
 *  2. plan: place the units of the whole corpus into bins (planBins: seeded hash windows, best
 *     fit longest first), the plan written to the work store;
 *  3. write: the bins in a seeded shuffled order, gathered from the chunks by positioned reads,
 *     into Arrow shards, Megatron datasets; then report and manifest.
 *
 * Resume: complete chunks from a killed run with the same fingerprint are reused (not tokenized
 * again) and complete shards are kept; the plan is made again (it is deterministic) and
 * everything else is rewritten from the chunks, so the outputs are byte-identical to an
 * uninterrupted run, for any worker count.
 */
export async function runPackJob(o: PackJobOptions, source?: PackSource): Promise<PackSummary> {
  checkWorkDir(o.out, o.workDir);
  const requested = o.tokenizerBackend ?? PACK_DEFAULTS.tokenizerBackend;
  const workers = capWorkers(o.workers, o.forceWorkers ?? false);
  // Workers load their tokenizers (over half a second each) while the main thread reads the
  // tokenizer.json and resolves the backend (and, for a bucket --out, loads the SDK and takes the
  // prefix's lock): started on the likely one, restarted if it is not. They write nothing.
  const guess: ResolvedBackend = requested === 'auto' ? 'native' : requested;
  const cachePieces = o.tokenizerCache ?? PACK_DEFAULTS.tokenizerCache;
  const pool = { current: new TokenizePool({ workers, tokenizer: o.tokenizer, backend: guess, cachePieces }) };
  // The writers (Apache Arrow's library most of all) load once the workers are starting, not before.
  const writers = loadWriters();
  writers.catch(() => {}); // awaited by packWith; a job that fails first must not crash on it
  try {
    const job = async (out: string) => {
      // Remote inputs are resolved meanwhile, so the job's synchronous steps find them known.
      const [{ backend, reason }] = await Promise.all([resolveTokenizerBackend(o.tokenizer, requested), source ? undefined : primeRemoteInputs(o.inputs)]);
      if (reason) process.stderr.write(fallbackMessage(o.tokenizer, reason, backend));
      if (backend !== guess) {
        await pool.current.close();
        pool.current = new TokenizePool({ workers, tokenizer: o.tokenizer, backend, cachePieces });
      }
      return packInto({ ...o, out, workDir: undefined }, backend, pool.current, writers, source);
    };
    if (!isRemote(o.out)) return await job(o.out);
    const local = stagingDir(o.out, o.workDir);
    return await withRemoteOut({ remote: o.out, local, what: 'pack' }, () => job(local));
  } finally {
    await pool.current.close();
  }
}

/** The job in a local folder (a bucket --out's staging folder), its pool started. */
async function packInto(o: PackJobOptions, backend: ResolvedBackend, pool: TokenizePool, writers: Promise<Writers>, source?: PackSource): Promise<PackSummary> {
  const job = await setUpPackJob(o, backend, source);
  try {
    return await packWith(job, pool, await writers);
  } finally {
    if (!source?.outDir) job.outDir.release();
  }
}

/** Everything the phases share, settled before any document is read. */
interface PackJob {
  o: PackJobOptions;
  source?: PackSource;
  backend: ResolvedBackend;
  tokenizer: Awaited<ReturnType<typeof tokenizerInfo>>;
  config: Record<string, unknown>;
  outDir: OutDir;
  workDir: string;
  ledger: Ledger;
  rank: RankInfo;
  docs: AsyncIterable<Doc>;
  /** The input files when every one is plain JSONL: the workers read their lines (TokenizePool.mapLines). */
  lineInputs: string[] | undefined;
  /** The work store's fingerprint for documents of this identity (PackSource.identity). */
  workFingerprint: (documents: Fingerprint) => string;
  /** An input file's name in the rank partition's keys (ReadDocumentsOptions.nameOf). */
  nameOf: (file: string) => string;
  /**
   * Input checksums for the manifest, started by the write phase. Plain JSONL inputs were hashed
   * as they were read (io/local-hashes.ts); others are read again then, beside the writes.
   */
  inputsDescribed: () => Promise<Manifest['inputs']>;
  store: ChunkStore;
  /** The store's chunks as the planner reads them, made as they register. */
  planChunks: PlanChunks;
  /** Complete chunks of a killed run with the same fingerprint. */
  resumed: ChunkIndex[];
  progress: (e: PackProgressEvent) => void;
  /** Input bytes read, when the documents come from files. */
  bytes: ByteTally | undefined;
  fault: ReturnType<typeof faultPoint>;
}

/** The output folder claimed (see out-dir.ts), the work store opened (resumed when it matches). */
async function setUpPackJob(o: PackJobOptions, backend: ResolvedBackend, source?: PackSource): Promise<PackJob> {
  const tokenizer = await tokenizerInfo(o.tokenizer);
  const config = outputConfig(o, tokenizer.hash);
  const rank = o.rank ?? SINGLE_RANK;
  const inputFiles = source?.inputs ?? expandInputs(o.inputs, isDocumentFile);
  // Resume and reuse only what these documents, settings and rank made (lines still being written: nothing, until finishLines stamps the work).
  const documents = source ? ((!source.lines && source.identity) || { stream: randomUUID() }) : { inputs: inputsIdentity(inputFiles) };
  const fingerprintOf = (documents: Fingerprint): Fingerprint => ({ config, rank: rank.rank, world_size: rank.worldSize, ...partitionKeys(rank), documents });
  const workFingerprint = (documents: Fingerprint) => fingerprintHash(fingerprintOf(documents));
  const fingerprint = fingerprintOf(documents);
  const outDir = source?.outDir ?? claimOutDir({ out: o.out, fingerprint, overwrite: o.overwrite ?? false, megatronName: o.name, what: 'pack' });
  const workDir = join(o.out, '.work');
  try {
    outDir.openWork('.work', workFingerprint(documents));
  } catch (e) {
    if (!source?.outDir) outDir.release();
    throw e;
  }
  const ledger = source?.ledger ?? new Ledger();
  if (!ledger.onDrop) ledger.printDrops('pack');
  let described: Promise<Manifest['inputs']> | undefined;
  const inputsDescribed = () => {
    if (!described) {
      described = Promise.all(inputFiles.map(describeInput));
      described.catch(() => {}); // awaited by the manifest; a job that fails first must not crash on it
    }
    return described;
  };
  const bytes = source ? source.bytes : ByteTally.ofFiles(inputFiles);
  // Files named as the inputs given name them (not as the expanded list would): `run` reading the same inputs splits them alike.
  const nameOf = portableNamer(source ? [] : o.inputs);
  const docs = source ? (source.docs ?? noDocs()) : readDocuments(inputFiles, ledger, ownedBy(rank), { textField: o.textField, bytes, nameOf });
  const lineInputs = !source && inputFiles.every((f) => f.endsWith('.jsonl')) ? inputFiles : undefined;
  const store = new ChunkStore(workDir);
  const resumed = store.completed();
  const progress = o.onProgress ?? (() => {});
  return { o, source, backend, tokenizer, config, outDir, workDir, ledger, rank, docs, lineInputs, workFingerprint, nameOf, bytes, inputsDescribed, store, planChunks: new PlanChunks(), resumed, progress, fault: faultPoint() };
}

async function* noDocs(): AsyncIterable<Doc> {}

/** The modules that write a pack's outputs, imported when a job starts (see runPackJob). */
type Writers = Awaited<ReturnType<typeof loadWriters>>;
async function loadWriters() {
  const [{ PackOutputs }, { buildManifest, writeJobFiles }] = await Promise.all([import('./pack-outputs.js'), import('./pack-manifest.js')]);
  return { PackOutputs, buildManifest, writeJobFiles };
}

async function packWith(job: PackJob, pool: TokenizePool, { PackOutputs, buildManifest, writeJobFiles }: Writers): Promise<PackSummary> {
  const { o } = job;
  const outputs = new PackOutputs({ out: o.out, seqLen: o.seqLen, rowsPerShard: o.rowsPerShard, name: o.name, resume: job.resumed.length > 0 });
  const figures = new FiguresBuilder(o.seqLen);
  const memory = o.memory ?? new PhasePeaks();
  try {
    memory.start(job.source?.lines?.phase ?? 'tokenize');
    // With fewer workers than cores a core is mostly idle while they tokenize: the hash threads
    // start now (tens of milliseconds of CPU each) rather than on the serial tail after the last
    // document; with a worker on every core they wait for planning, as below.
    if (pool.size < availableParallelism()) outputs.prepareBins();
    await tokenizePhase(job, pool, outputs, figures);
    // The workers are done: they stop (their heaps go back to the system) while the bins are
    // planned on this thread, and are gone before the first bin is written. Documents tokenized
    // beside preparing wait for them first: their masks are placed before planning.
    const stopped = pool.close();
    if (job.source?.lines) {
      await stopped;
      await finishLines(job, job.source.lines, figures);
    }
    memory.start('plan');
    outputs.prepareBins();
    const plan = await planPhase(job);
    await stopped;
    memory.start('write');
    const fragmentedUnits = await writePhase(job, plan, outputs, figures);
    const written = await outputs.close();
    memory.end();
    const report = figures.finish({
      overlongPolicy: o.overlong,
      overlongDocs: plan.overlongDocs,
      droppedDocs: plan.droppedDocs,
      droppedTokens: plan.droppedTokens,
      duplicatedTokens: plan.duplicatedTokens,
      fragmentedUnits,
      groups: plan.groups,
    });
    if (job.source?.stages) report.stages = job.source.stages;
    if (job.source?.stageTimes) report.stage_times = job.source.stageTimes;
    report.peak_rss_mb = memory.toJSON();
    if (job.source?.mixture) report.mixture = job.source.mixture(report);
    checkOverlongDrops(job.ledger, plan.droppedDocs);
    const manifest = await jobManifest(job, report, written, buildManifest);
    await writeJobFiles(o.out, report, manifest);
    job.outDir.complete(manifestFiles(manifest));
    if (o.keepWork) job.store.close();
    else job.store.remove();
    return { manifest, report };
  } catch (e) {
    job.store.close();
    await outputs.abort();
    throw e;
  }
}

/** The manifest; the backend does not change the bytes, so it is recorded but not part of the resume check. */
async function jobManifest(job: PackJob, report: ReportJson, written: Awaited<ReturnType<PackOutputs['close']>>, buildManifest: Writers['buildManifest']): Promise<Manifest> {
  const t = job.tokenizer;
  return buildManifest({
    out: job.o.out,
    rank: job.rank,
    config: { ...job.config, tokenizer_backend: job.backend },
    tokenizer: { name: t.name, sha256: t.hash, eos_id: t.eosId, pad_id: t.padId },
    inputs: await job.inputsDescribed(),
    ledger: job.ledger,
    report,
    outputs: written,
    stages: job.source?.stages,
  });
}

/** The planner's overlong drops must be the ones the ledger recorded while tokenizing. */
function checkOverlongDrops(ledger: Ledger, plannerDropped: number): void {
  const counted = ledger.dropped.get('overlong_dropped') ?? 0;
  if (plannerDropped !== counted) throw new Error(`pack: the planner dropped ${plannerDropped} overlong documents, the ledger counts ${counted}`);
}

/** Phase 1: every document tokenized into the work store; resumed chunks are taken as they are. */
async function tokenizePhase(job: PackJob, pool: TokenizePool, outputs: PackOutputs, figures: FiguresBuilder): Promise<void> {
  const { ledger, store, resumed, progress, o } = job;
  // Masks placed after tokenizing (PreparedLines.ranges) count in the figures once placed: finishLines.
  const figuresNow = !job.source?.lines?.ranges;
  /** A chunk, new or resumed, goes through the same path: figures, lengths, registration. */
  const register = async (index: ChunkIndex) => {
    store.register(index);
    job.planChunks.add(index);
    for (const d of index.docs) {
      if (o.overlong === 'drop' && d.len > o.seqLen) {
        // The planner drops it: a dropped record in the ledger, not a packed one.
        ledger.recordsOut--;
        ledger.drop('overlong_dropped', `${d.source} (${d.id}): ${d.len} tokens, longer than L=${o.seqLen} (--overlong drop)`);
      }
      if (figuresNow) figures.addDoc(d);
    }
    await outputs.writeLengths(Uint32Array.from(index.docs, (d) => d.len));
    progress({ phase: 'tokenize', documents: index.docs.length, tokens: index.tokens, ...readBytes() });
  };
  // Input bytes read since the last event, when the total is known (documents from files).
  let reported = 0;
  const readBytes = (): { bytes?: number; totalBytes?: number } => {
    if (!job.bytes) return {};
    const bytes = job.bytes.read - reported;
    reported = job.bytes.read;
    return { bytes, totalBytes: job.bytes.total };
  };
  for (const index of resumed) {
    // The ledger counts the resumed chunks' documents as the first run did.
    ledger.output(index.docs.length);
    for (const f of index.failed) ledger.drop(f.reason, f.message);
    await register(index);
  }
  const last = resumed[resumed.length - 1];
  const resumeAccepted = last ? last.acceptedEnd : 0;
  if (resumed.length) process.stderr.write(`midpack: pack: resuming after ${resumed.length} complete chunks (${resumeAccepted} documents already tokenized)\n`);
  const chunks = new ChunkAccumulator(store, o.chunkTokens, last ? last.firstSeq + last.docs.length : 0);
  const completed = async (index: ChunkIndex | undefined) => {
    if (!index) return;
    job.fault('chunks');
    await register(index);
  };
  try {
    // Plain JSONL is read by the workers (a resumed run reads on this thread, to skip what it has).
    const lines = job.source?.lines;
    const tokenized = lines
      ? tokenizedLines(job, pool, (spare) => preparedLineBatches(lines, pool.lineBatchBytes, spare), lines.ranges)
      : job.lineInputs && resumeAccepted === 0
        ? tokenizedLines(job, pool, (spare) => lineBatches(job, pool.lineBatchBytes, spare))
        : pool.map(acceptedDocs(job.docs, ledger, resumeAccepted), ({ doc }) => packRequest(doc));
    for await (const [{ doc, seq }, r] of tokenized) {
      chunks.accepted(seq);
      if (!r.ids) {
        const reason = r.reason ?? 'tokenize_failed';
        const message = `${doc.source} (${doc.id}): ${r.error}`;
        ledger.drop(reason, message);
        chunks.fail(reason, message, seq);
        continue;
      }
      ledger.output();
      await completed(chunks.add(doc, r));
      if (job.bytes && job.bytes.read - reported >= job.bytes.total / 1000) progress({ phase: 'tokenize', ...readBytes() });
    }
    await completed(chunks.flush());
  } catch (e) {
    chunks.abort();
    throw e;
  }
}

/**
 * Once every prepared line is tokenized: the masks placed (PreparedLines.finish), their figures
 * counted, and the work store stamped as the work of the finished documents, so a rerun that
 * reads them resumes from these chunks (a rerun before this point starts over: a new stamp).
 */
async function finishLines(job: PackJob, lines: PreparedLines, figures: FiguresBuilder): Promise<void> {
  const identity = await lines.finish(job.store);
  if (lines.ranges) for (let k = 0; k < job.store.chunkCount; k++) for (const d of job.store.index(k).docs) figures.addDoc(d);
  job.outDir.stampWork('.work', job.workFingerprint(identity));
}

/**
 * Documents that can be tokenized, numbered in input order. Those an earlier run already
 * tokenized (seq < resumeAccepted) are read again, so the ledger counts them, but not yielded.
 */
async function* acceptedDocs(docs: AsyncIterable<Doc>, ledger: Ledger, resumeAccepted: number): AsyncIterable<{ doc: Doc; seq: number }> {
  let seq = 0;
  for await (const doc of docs) {
    const dropped = untokenizable(doc);
    if (dropped) {
      ledger.drop(dropped.drop, dropped.message);
      continue;
    }
    const s = seq++;
    if (s < resumeAccepted) continue; // in a resumed chunk, counted above
    yield { doc, seq: s };
  }
}

/**
 * The documents of plain JSONL inputs, read, checked and tokenized by the workers, with their
 * sequence numbers: the ledger counts each batch's records and drops in input order, as
 * readDocuments and acceptedDocs would have.
 */
async function* tokenizedLines(job: PackJob, pool: TokenizePool, batches: (spare: Uint8Array[]) => AsyncIterable<LineBatchJob>, ranges = false): AsyncIterable<[{ doc: Doc; seq: number }, TokenizeResult]> {
  let seq = 0;
  const spare: Uint8Array[] = [];
  for await (const batch of pool.mapLines(batches(spare), { ranges })) {
    // A buffer made for one huge line is let go: the spare ones stay about a batch each.
    if (batch.spent && batch.spent.byteLength <= 4 * pool.lineBatchBytes) spare.push(batch.spent);
    job.ledger.input(batch.records);
    for (const o of batch.outcomes) {
      if ('drop' in o) job.ledger.drop(o.drop, o.message);
      else yield [{ doc: o.doc, seq: seq++ }, o.result];
    }
  }
}

/**
 * The lines of a file being written (PreparedLines), in batches as lineBatches would read the
 * finished file: the same batching of the same bytes, the same numbers; as readDocumentFile reads
 * it, every line is this rank's (the file holds only its documents). A failure of the writer
 * fails the job (it is no fault of a file to count).
 */
async function* preparedLineBatches(lines: PreparedLines, batchBytes: number, spare: Uint8Array[]): AsyncIterable<LineBatchJob> {
  const name = portableNamer([lines.file])(lines.file);
  for await (const b of readLineBatches(lines.bytes, batchBytes, undefined, spare)) yield { ...b, file: lines.file, name };
}

/** The inputs' lines in batches, undecoded; input bytes tallied as they are read; a file that fails counted as readJsonl counts it. */
async function* lineBatches(job: PackJob, batchBytes: number, spare: Uint8Array[]): AsyncIterable<LineBatchJob> {
  const rank = job.rank.worldSize > 1 ? job.rank : undefined;
  for (const file of job.lineInputs!) {
    const name = job.nameOf(file);
    const size = job.bytes && file !== '-' ? sizeOf(file) : 0;
    let counted = 0;
    let lines = 0;
    const tally = async function* (chunks: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
      for await (const chunk of chunks) {
        const n = Math.min(chunk.length, size - counted);
        counted += n;
        if (job.bytes) job.bytes.read += n;
        yield chunk;
      }
    };
    try {
      for await (const b of readLineBatches(tally(hashedWhileRead(file, openBytes(file))), batchBytes, undefined, spare)) {
        lines = b.firstLineNo + b.lines - 1;
        yield { ...b, file, name, textField: job.o.textField, rank };
      }
    } catch (e) {
      countFault(file, e, lines, job.ledger, inputOwns(ownedBy(job.rank), name));
    }
    if (job.bytes) job.bytes.read += size - counted;
  }
}

/**
 * Phase 2: the bins of the whole corpus planned and written to the work store. Consecutive
 * documents of one group (meta.group) that fit in L together are planned as one unit
 * (pack/groups.ts), then written back as their documents, adjacent and in order.
 */
async function planPhase(job: PackJob): Promise<PlanResult & { groups: DocGroupFigures }> {
  const { o, store } = job;
  const plan = new PlanWriter(job.workDir);
  const groups = new DocGroups(o.seqLen);
  try {
    const result = await planBins(
      () => groups.batches(job.planChunks.walk(store)),
      { capacity: o.seqLen, overlong: o.overlong, slideStride: o.slideStride, windowUnits: o.windowUnits, maxOpenBins: o.maxOpenBins, passUnits: o.passUnits, seed: o.shuffleSeed ?? 0 },
      (bins) => {
        plan.add(groups.expand(bins));
        job.progress({ phase: 'plan', bins: bins.binCount });
        job.fault('plan');
      },
      (pass, passes) => job.progress({ phase: 'plan', pass, passes }),
    );
    job.progress({ phase: 'plan', pass: result.passes + 1, passes: result.passes });
    plan.commit();
    // The planner counted a merged run as one document and one unit; the plan holds its members.
    const extra = groups.extraDocs;
    return { ...result, docs: result.docs + extra, units: result.units + extra, groups: groups.figures() };
  } catch (e) {
    plan.abort();
    throw e;
  }
}

/** A chunk's documents as the planner sees them, keyed by document id. */
function chunkDocs(index: ChunkIndex): GroupableDoc[] {
  return index.docs.map((d) => ({ len: d.len, key: identityKey(d.id), group: d.group, boundaries: d.boundaries }));
}

/**
 * The planner's input, each chunk's made as the chunk registers, while the workers tokenize: the
 * planner walks its source twice or more (a counting pass, then each planning pass), and making
 * a chunk's documents into its batch on each walk (its ids hashed, an object a document) took
 * the main thread about 0.1 s of the serial tail on 13,000 documents. A chunk with a grouped
 * document, and chunks past HELD_PLAN_ENTRIES, are made on each walk from the work store.
 */
class PlanChunks {
  private readonly made: (Required<PlanBatch> | undefined)[] = [];
  private held = 0;

  constructor(private readonly heldEntries = HELD_PLAN_ENTRIES) {}

  /** Chunks are added in the order the store registers them. */
  add(index: ChunkIndex): void {
    const entries = index.docs.reduce((n, d) => n + 1 + (d.boundaries?.length ?? 0), 0);
    // A grouped chunk goes as its documents on each walk: its ids are not hashed here for nothing.
    const grouped = index.docs.some((d) => d.group !== undefined);
    const batch = !grouped && this.held + entries <= this.heldEntries ? planBatchOf(chunkDocs(index)) : undefined;
    if (batch) this.held += entries;
    this.made.push(batch);
  }

  /** Every chunk of the store, in order. */
  *walk(store: ChunkStore): Iterable<PlanChunk> {
    if (this.made.length !== store.chunkCount) throw new Error(`internal: ${this.made.length} chunks made for the planner, ${store.chunkCount} in the work store`);
    for (let k = 0; k < store.chunkCount; k++) yield this.made[k] ?? chunkDocs(store.index(k));
  }
}

/** Documents and boundaries whose planner batches are held (16 bytes a document, 4 a boundary: at most 16 MB). */
const HELD_PLAN_ENTRIES = 1 << 20;

/** A 32-bit hash of a document id (FNV-1a, then mixed): its identity for the planner, whatever its position. */
export function identityKey(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Phase 3: the planned bins in a seeded shuffled order (plan order with shuffle off), each
 * gathered from the work store; returns the units held by more than one bin, counted here.
 */
async function writePhase(job: PackJob, plan: PlanResult, outputs: PackOutputs, figures: FiguresBuilder): Promise<number> {
  const { o } = job;
  const reader = new PlanReader(job.workDir, plan.bins);
  const order = binOrder(plan.bins, (o.shuffle ?? true) ? (o.shuffleSeed ?? 0) : undefined);
  const assembler = new BinAssembler(job.store, o.seqLen, job.tokenizer.padId);
  const tally = new UnitTally(plan.units);
  void job.inputsDescribed();
  job.progress({ phase: 'write', totalBins: plan.bins });
  // A bin is assembled while the one before it is still being written: the writers wait on
  // their slabs (hashing, disk), and this thread would otherwise wait with them. The assembler
  // alternates two pairs of arrays, so the bin in flight keeps its own.
  let inFlight: Promise<void> | undefined;
  const written = async () => {
    if (!inFlight) return;
    await inFlight;
    job.progress({ phase: 'write', bins: 1 });
    job.fault('bins');
  };
  try {
    for (let i = 0; i < order.count; i++) {
      const b = order.at(i);
      const units = reader.bin(b);
      for (const u of units) tally.addUnit(u.id);
      const bin = assembler.assemble(units, b);
      figures.addBin(bin.docLens.reduce((s, x) => s + x, 0), units.length);
      await written();
      inFlight = outputs.writeBin(bin);
      inFlight.catch(() => {}); // awaited by written(); a failure meanwhile must not go unhandled
    }
    await written();
  } finally {
    await inFlight?.catch(() => {}); // the writers are left idle for close() or abort()
    reader.close();
  }
  if (tally.missing) throw new Error(`planner bug: ${tally.missing} of ${plan.units} units are in no written bin`);
  return tally.fragmented;
}

/**
 * Fault injection for the kill-and-resume tests: MIDPACK_FAULT=chunks:N (plan:N, bins:N, docs:N,
 * masks:N) kills the process with SIGKILL right after the N-th tokenized chunk (planning pass
 * that closed bins, written bin, prepared document, chunk whose masks a run placed after
 * tokenizing while it prepared) is written: a deterministic kill point.
 */
export function faultPoint(): (what: 'chunks' | 'plan' | 'bins' | 'docs' | 'masks') => void {
  const m = /^(chunks|plan|bins|docs|masks):(\d+)$/.exec(process.env.MIDPACK_FAULT ?? '');
  if (!m) return () => {};
  const counts = { chunks: 0, plan: 0, bins: 0, docs: 0, masks: 0 };
  return (what) => {
    if (what === m[1] && ++counts[what] === Number(m[2])) process.kill(process.pid, 'SIGKILL');
  };
}

async function describeInput(path: string): Promise<{ path: string; bytes: number; sha256: string }> {
  if (path === '-') return { path, bytes: 0, sha256: '' };
  if (isRemote(path)) return remoteObjectSync(path) ? { path, ...(await sha256Remote(path)) } : { path, bytes: 0, sha256: '' }; // a prefix: a folder
  const st = statSync(path);
  if (st.isDirectory()) return { path, bytes: 0, sha256: '' };
  return { path, bytes: st.size, sha256: (await sha256Local(path)).sha256 };
}
