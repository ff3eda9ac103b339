import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Doc } from '../doc/document.js';
import { Ledger } from '../core/ledger.js';
import { SINGLE_RANK, ownedBy, type RankInfo } from '../core/ranks.js';
import { readDocuments, isDocumentFile } from '../io/documents.js';
import { expandInputs } from '../io/inputs.js';
import { tokenizerInfo, resolveTokenizerBackend, fallbackMessage, type TokenizerBackend } from '../tokenize/tokenizer.js';
import { TokenizePool } from '../tokenize/pool.js';
import type { TokenizeResult } from '../tokenize/encode.js';
import { StreamingPacker, type ClosedBins, type OverlongPolicy } from '../pack/index.js';
import { ArrowShardWriter, completedShards, type ShardsResult } from '../write/arrow-shards.js';
import { MegatronBinsWriter, type MegatronFileInfo } from '../write/megatron.js';
import { writeFileAtomic, AtomicFile, sha256File } from '../write/files.js';
import type { PackedBin } from '../write/bin.js';
import { ChunkStore, type ChunkDoc, type ChunkIndex } from './chunk-store.js';
import { FiguresBuilder, type ReportJson } from '../report/figures.js';
import { writeReportHtml } from '../report/html.js';
import { claimOutDir, fingerprintHash, inputsIdentity, manifestFiles, type Fingerprint, type OutDir } from './out-dir.js';
import { capWorkers } from './workers.js';
import { inputsFingerprint } from './merge-checks.js';
import { VERSION } from '../version.js';
import type { MixtureReport } from '../mix/report.js';

export interface PackJobOptions {
  inputs: string[];
  out: string;
  tokenizer: string;
  /** auto (default): the fast backend wherever it gives the reference's ids; hf; fast. Same bytes either way. */
  tokenizerBackend?: TokenizerBackend;
  workers: number;
  seqLen: number;
  overlong: OverlongPolicy;
  slideStride?: number;
  windowUnits?: number;
  maxOpenBins?: number;
  rowsPerShard: number;
  /** Megatron dataset name: megatron/NAME_text_document.bin/.idx ... */
  name: string;
  /** Tokens per work chunk: the resume granularity. */
  chunkTokens: number;
  keepWork: boolean;
  /** Progress events (the CLI draws them; the library itself prints none). */
  onProgress?: (e: PackProgressEvent) => void;
  /** This process's part of the input (one rank of a job array); all of it by default. */
  rank?: RankInfo;
  /** Replace an --out that holds another midpack output (otherwise refused). */
  overwrite?: boolean;
  /** The row field holding the text, when it is not `text`. */
  textField?: string;
  /** More workers than cores (otherwise capped at the core count). */
  forceWorkers?: boolean;
}

export const PACK_DEFAULTS = {
  tokenizer: 'qwen3',
  tokenizerBackend: 'auto' as TokenizerBackend,
  seqLen: 262_144,
  overlong: 'split' as OverlongPolicy,
  rowsPerShard: 256,
  name: 'midpack',
  chunkTokens: 4_000_000,
  keepWork: false,
};

export interface PackSummary {
  manifest: Manifest;
  report: ReportJson;
}

export interface Manifest {
  midpack_version: string;
  rank: number;
  world_size: number;
  config: Record<string, unknown>;
  tokenizer: { name: string; sha256: string; eos_id: number; pad_id: number };
  inputs: { path: string; bytes: number; sha256: string }[];
  ledger: ReturnType<Ledger['toJSON']>;
  balanced: boolean;
  counts: { documents: number; tokens: number; masked_tokens: number; units: number; bins: number; padding_tokens: number };
  shards: { filename: string; rows: number; bytes: number; sha256: string }[];
  shards_fingerprint: string;
  /** sha256 over the inputs' sizes and checksums: ranks of one job have the same (merge checks it). */
  inputs_fingerprint?: string;
  megatron: MegatronFileInfo[];
  doc_lengths: { path: string; sha256: string };
  /** Ledgers and figures of the stages that made the documents (from `midpack run`). */
  stages?: Record<string, unknown>;
  /** The token-budgeted mixture: targets, decisions, achieved shares (docs/mixing.md). */
  mixture?: MixtureReport;
}

/** Options that decide the output bytes: a resumed run must use the same ones. */
function outputConfig(o: PackJobOptions, tokenizerHash: string): Record<string, unknown> {
  return {
    tokenizer: o.tokenizer,
    tokenizer_sha256: tokenizerHash,
    seq_len: o.seqLen,
    overlong: o.overlong,
    slide_stride: o.slideStride ?? null,
    window_units: o.windowUnits ?? null,
    max_open_bins: o.maxOpenBins ?? null,
    rows_per_shard: o.rowsPerShard,
    name: o.name,
    chunk_tokens: o.chunkTokens,
    ...(o.textField && o.textField !== 'text' ? { text_field: o.textField } : {}),
  };
}

/**
 * The pack job: read documents → tokenize on worker threads (input order kept) → tokenized
 * chunks on disk → best-fit pack (native) → Arrow shards, Megatron datasets, manifest, report.
 *
 * Resume: complete chunks from a killed run are reused (not tokenized again) and complete
 * shards are kept; everything else is rewritten from the chunks, deterministically, so the
 * outputs are byte-identical to an uninterrupted run, for any worker count.
 */
export async function runPackJob(o: PackJobOptions, source?: PackSource): Promise<PackSummary> {
  const { backend, reason } = await resolveTokenizerBackend(o.tokenizer, o.tokenizerBackend ?? PACK_DEFAULTS.tokenizerBackend);
  if (reason) process.stderr.write(fallbackMessage(o.tokenizer, reason));
  // Workers load their tokenizers (about a second each) while the main thread sets up.
  const pool = new TokenizePool({ workers: capWorkers(o.workers, o.forceWorkers ?? false), tokenizer: o.tokenizer, backend });
  try {
    return await packWith(pool, o, backend, source);
  } finally {
    await pool.close();
  }
}

/** Documents from upstream stages (midpack run) instead of input files. */
export interface PackSource {
  docs: AsyncIterable<Doc>;
  ledger: Ledger;
  inputs: string[];
  stages?: Record<string, unknown>;
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
}

async function packWith(pool: TokenizePool, o: PackJobOptions, backend: 'hf' | 'fast', source?: PackSource): Promise<PackSummary> {
  const tokenizer = await tokenizerInfo(o.tokenizer);
  const config = outputConfig(o, tokenizer.hash);
  const rank = o.rank ?? SINGLE_RANK;
  const inputFiles = source?.inputs ?? expandInputs(o.inputs, isDocumentFile);
  // Resume and reuse only what these documents, settings and rank made (see out-dir.ts).
  const fingerprint: Fingerprint = { config, rank: rank.rank, world_size: rank.worldSize, documents: source ? (source.identity ?? { stream: randomUUID() }) : { inputs: inputsIdentity(inputFiles) } };
  const outDir = source?.outDir ?? claimOutDir({ out: o.out, fingerprint, overwrite: o.overwrite ?? false, megatronName: o.name, what: 'pack' });
  try {
    const workDir = join(o.out, '.work');
    outDir.openWork('.work', fingerprintHash(fingerprint));
    return await packInto(pool, o, workDir, outDir, config, tokenizer, backend, inputFiles, source);
  } finally {
    if (!source) outDir.release();
  }
}

async function packInto(
  pool: TokenizePool,
  o: PackJobOptions,
  workDir: string,
  outDir: OutDir,
  config: Record<string, unknown>,
  tokenizer: Awaited<ReturnType<typeof tokenizerInfo>>,
  backend: 'hf' | 'fast',
  inputFiles: string[],
  source?: PackSource,
): Promise<PackSummary> {
  const ledger = source?.ledger ?? new Ledger();
  if (!ledger.onDrop) ledger.printDrops('pack');
  // Input checksums for the manifest, computed while the job runs rather than after it.
  const inputsDescribed = Promise.all(inputFiles.map(describeInput));
  inputsDescribed.catch(() => {});
  const rank = o.rank ?? SINGLE_RANK;
  const docs = source?.docs ?? readDocuments(inputFiles, ledger, ownedBy(rank), { textField: o.textField });

  const store = new ChunkStore(workDir);
  const resumed = store.completed();
  const last = resumed[resumed.length - 1];
  const resumeAccepted = last ? last.acceptedEnd : 0;
  let packedDocs = last ? last.firstSeq + last.docs.length : 0;

  const packer = new StreamingPacker({
    capacity: o.seqLen,
    overlong: o.overlong,
    slideStride: o.slideStride,
    windowUnits: o.windowUnits,
    maxOpenBins: o.maxOpenBins,
  });
  const shardsDir = join(o.out, 'shards');
  const arrow = new ArrowShardWriter({ dir: shardsDir, seqLen: o.seqLen, rowsPerShard: o.rowsPerShard, startShard: resumed.length ? completedShards(shardsDir) : 0 });
  const megatron = new MegatronBinsWriter({ dir: join(o.out, 'megatron'), name: o.name, seqLen: o.seqLen });
  const lengthsFile = new AtomicFile(join(o.out, 'doc_lengths.u32'));
  const figures = new FiguresBuilder(o.seqLen);
  const progress = progressCounter(o.onProgress);
  const fault = faultPoint();

  const bins = new BinAssembler(store, o.seqLen, tokenizer.padId);
  const emit = async (closed: ClosedBins) => {
    for (let b = 0; b < closed.binCount; b++) {
      const bin = bins.assemble(closed, b);
      figures.addBin(bins.lastTokens, bin.docLens.length);
      await arrow.writeBin(bin);
      await megatron.writeBin(bin);
      progress.add('write', 'bins', 1);
      fault('bins');
    }
  };

  /** A chunk, new or resumed, goes through the same path: figures, lengths, packer. */
  const packChunk = async (index: ChunkIndex) => {
    store.register(index);
    const lengths = new Uint32Array(index.docs.length);
    const counts = new Uint32Array(index.docs.length);
    const headers = new Uint32Array(index.docs.length);
    const offsets: number[] = [];
    index.docs.forEach((d, i) => {
      lengths[i] = d.len;
      if (o.overlong === 'drop' && d.len > o.seqLen) {
        // The packer drops it: a dropped record in the ledger, not a packed one.
        ledger.recordsOut--;
        ledger.drop('overlong_dropped', `${d.source} (${d.id}): ${d.len} tokens, longer than L=${o.seqLen} (--overlong drop)`);
      }
      figures.addDoc(d);
      const b = d.boundaries ?? [];
      counts[i] = b.length;
      headers[i] = b.length ? b[0]! : 0;
      for (const x of b) offsets.push(x);
    });
    await lengthsFile.write(Buffer.from(lengths.buffer));
    await emit(packer.push({ lengths, boundaryCounts: counts, boundaryOffsets: Uint32Array.from(offsets), headerLens: headers }));
  };

  try {
    for (const index of resumed) {
      // The ledger counts the resumed chunks' documents as the first run did.
      ledger.output(index.docs.length);
      for (const f of index.failed) ledger.drop(f.reason, f.message);
      await packChunk(index);
      progress.add('tokenize', 'documents', index.docs.length, index.tokens);
    }
    if (resumed.length) process.stderr.write(`midpack: pack: resuming after ${resumed.length} complete chunks (${resumeAccepted} documents already tokenized)\n`);

    // Documents the earlier run already tokenized are read again (the ledger must count
    // them) but not tokenized again.
    let seq = 0;
    async function* accepted(): AsyncIterable<{ doc: Doc; seq: number }> {
      for await (const doc of docs) {
        if (doc.text.length === 0) {
          ledger.drop('empty_text', `${doc.source} (${doc.id}): empty text`);
          continue;
        }
        if (!isWellFormed(doc.text)) {
          ledger.drop('invalid_unicode', `${doc.source} (${doc.id}): text has unpaired UTF-16 surrogates`);
          continue;
        }
        const s = seq++;
        if (s < resumeAccepted) continue; // in a resumed chunk, counted above
        yield { doc, seq: s };
      }
    }

    type Pending = { docs: ChunkDoc[]; ids: Int32Array[]; masks: Uint8Array[]; tokens: number; failed: ChunkIndex['failed']; acceptedEnd: number };
    const fresh = (): Pending => ({ docs: [], ids: [], masks: [], tokens: 0, failed: [], acceptedEnd: 0 });
    let pending = fresh();
    const flush = async () => {
      if (pending.docs.length === 0) return;
      const index: ChunkIndex = { firstSeq: packedDocs, tokens: pending.tokens, docs: pending.docs, acceptedEnd: pending.acceptedEnd, failed: pending.failed };
      packedDocs += pending.docs.length;
      store.write(store.chunkCount, index, pending.ids, pending.masks);
      fault('chunks');
      pending = fresh();
      await packChunk(index);
    };
    for await (const [{ doc, seq: s }, r] of pool.map(accepted(), toRequest)) {
      pending.acceptedEnd = s + 1;
      if (!r.ids) {
        const failure = { reason: r.reason ?? 'tokenize_failed', message: `${doc.source} (${doc.id}): ${r.error}` };
        ledger.drop(failure.reason, failure.message);
        pending.failed.push(failure);
        continue;
      }
      ledger.output();
      pending.docs.push(chunkDoc(doc, r));
      pending.ids.push(r.ids);
      pending.masks.push(r.mask!);
      pending.tokens += r.ids.length;
      progress.add('tokenize', 'documents', 1, r.ids.length);
      if (pending.tokens >= o.chunkTokens) await flush();
    }
    await flush();
    await emit(packer.finish());

    const shards = await arrow.close();
    const megatronFiles = await megatron.close();
    const lengthsSha = await lengthsFile.commit();
    const st = packer.stats();
    const report = figures.finish({
      overlongPolicy: o.overlong,
      overlongDocs: st.overlongDocs,
      droppedDocs: st.droppedDocs,
      droppedTokens: st.droppedTokens,
      duplicatedTokens: st.duplicatedTokens,
      // Best fit places every unit whole in one bin (the packer's property tests check it).
      fragmentedUnits: 0,
    });
    if (source?.stages) report.stages = source.stages;
    if (source?.mixture) report.mixture = source.mixture(report);
    const overlongDropped = ledger.dropped.get('overlong_dropped') ?? 0;
    if (st.droppedDocs !== overlongDropped) throw new Error(`pack: the packer dropped ${st.droppedDocs} overlong documents, the ledger counts ${overlongDropped}`);

    const manifest: Manifest = {
      midpack_version: VERSION,
      rank: rank.rank,
      world_size: rank.worldSize,
      // The backend does not change the bytes, so it is recorded here but not in the resume check.
      config: { ...config, tokenizer_backend: backend },
      tokenizer: { name: tokenizer.name, sha256: tokenizer.hash, eos_id: tokenizer.eosId, pad_id: tokenizer.padId },
      inputs: await inputsDescribed,
      ledger: ledger.toJSON(),
      balanced: ledger.balanced(),
      counts: {
        documents: report.packing.documents,
        tokens: report.packing.tokens,
        masked_tokens: report.masked_tokens,
        units: report.packing.units,
        bins: report.packing.bins,
        padding_tokens: report.packing.padding_tokens,
      },
      shards: shards.shards.map(({ filename, rows, bytes, sha256 }) => ({ filename, rows, bytes, sha256 })),
      shards_fingerprint: shards.fingerprint,
      inputs_fingerprint: inputsFingerprint(await inputsDescribed),
      megatron: megatronFiles.map((f) => ({ ...f, path: relative(o.out, f.path) })),
      doc_lengths: { path: 'doc_lengths.u32', sha256: lengthsSha },
    };
    if (source?.stages) manifest.stages = source.stages;
    if (report.mixture) manifest.mixture = report.mixture;
    writeFileAtomic(join(o.out, 'report.json'), JSON.stringify(report, null, 2) + '\n');
    writeReportHtml(join(o.out, 'report.html'), report, manifest);
    writeFileAtomic(join(o.out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    outDir.complete(manifestFiles(manifest));
    if (o.keepWork) store.close();
    else store.remove();
    return { manifest, report };
  } catch (e) {
    store.close();
    arrow.abort();
    megatron.abort();
    lengthsFile.abort();
    throw e;
  }
}

function toRequest({ doc }: { doc: Doc }) {
  // Repositories cut at file starts, trajectories at turn starts; both repeat the header before the first boundary.
  const boundaries = Array.isArray(doc.meta.boundaries) && (doc.kind === 'repo' || doc.kind === 'trajectory') ? (doc.meta.boundaries as number[]) : undefined;
  return { text: doc.text, special_spans: doc.special_spans, loss_mask_spans: doc.loss_mask_spans, boundaries };
}

function chunkDoc(doc: Doc, r: TokenizeResult): ChunkDoc {
  const d: ChunkDoc = { id: doc.id, kind: doc.kind, source: doc.source, len: r.ids!.length, masked: r.masked ?? 0 };
  if (r.boundaries && r.boundaries.length) d.boundaries = Array.from(r.boundaries);
  if (typeof doc.meta.ordering === 'string') d.ordering = doc.meta.ordering;
  if (typeof doc.meta.language === 'string') d.language = doc.meta.language; // repos set their main language
  if (typeof doc.meta.template === 'string' && doc.kind === 'trajectory') d.template = doc.meta.template;
  if (typeof doc.meta.mixture_source === 'string') d.mix = doc.meta.mixture_source;
  return d;
}

/** Builds each closed bin's exactly-L token and mask arrays from the chunk store. */
class BinAssembler {
  lastTokens = 0;
  constructor(
    private readonly store: ChunkStore,
    private readonly seqLen: number,
    private readonly padId: number,
  ) {}

  assemble(c: ClosedBins, b: number): PackedBin {
    const inputIds = new Int32Array(this.seqLen).fill(this.padId);
    const lossMask = new Uint8Array(this.seqLen);
    const from = c.binUnitStart[b]!;
    const to = c.binUnitStart[b + 1]!;
    const n = to - from;
    const docLens = new Int32Array(n);
    const docOffsets = new Int32Array(n);
    const docIds: string[] = [];
    const docKinds: string[] = [];
    let at = 0;
    for (let u = from; u < to; u++) {
      const seq = c.unitDoc[u]!;
      const header = c.unitHeader[u]!;
      const start = c.unitStart[u]!;
      const end = c.unitEnd[u]!;
      const len = header + end - start;
      if (at + len > this.seqLen) throw new Error(`packer bug: bin ${b} overflows ${this.seqLen} tokens`);
      this.store.read(seq, 0, header, inputIds, lossMask, at);
      this.store.read(seq, start, end, inputIds, lossMask, at + header);
      const d = this.store.doc(seq);
      docLens[u - from] = len;
      docOffsets[u - from] = start;
      docIds.push(d.id);
      docKinds.push(d.kind);
      at += len;
    }
    this.lastTokens = at;
    return { inputIds, lossMask, docLens, docIds, docKinds, docOffsets };
  }
}

/**
 * Fault injection for the kill-and-resume tests: MIDPACK_FAULT=chunks:N (bins:N, docs:N) kills the
 * process with SIGKILL right after the N-th tokenized chunk (packed bin, prepared document) is
 * written: a deterministic kill point.
 */
export function faultPoint(): (what: 'chunks' | 'bins' | 'docs') => void {
  const m = /^(chunks|bins|docs):(\d+)$/.exec(process.env.MIDPACK_FAULT ?? '');
  if (!m) return () => {};
  const counts = { chunks: 0, bins: 0, docs: 0 };
  return (what) => {
    if (what === m[1] && ++counts[what] === Number(m[2])) process.kill(process.pid, 'SIGKILL');
  };
}

async function describeInput(path: string): Promise<{ path: string; bytes: number; sha256: string }> {
  if (path === '-') return { path, bytes: 0, sha256: '' };
  const st = statSync(path);
  if (st.isDirectory()) return { path, bytes: 0, sha256: '' };
  return { path, bytes: st.size, sha256: (await sha256File(path)).sha256 };
}


/** String.prototype.isWellFormed (Node 20) without the ES2024 lib typings. */
function isWellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** A pack job's progress: documents and tokens while tokenizing, bins while writing (increments). */
export interface PackProgressEvent {
  phase: 'tokenize' | 'write';
  documents?: number;
  tokens?: number;
  bins?: number;
}

function progressCounter(onProgress?: (e: PackProgressEvent) => void) {
  return {
    add(phase: PackProgressEvent['phase'], what: 'documents' | 'bins', n: number, tokens?: number): void {
      if (!onProgress) return;
      onProgress(what === 'bins' ? { phase, bins: n } : { phase, documents: n, tokens });
    },
  };
}
