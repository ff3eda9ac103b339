import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc } from '../doc/document.js';
import { docToJson } from '../doc/document.js';
import { Ledger } from '../core/ledger.js';
import { SINGLE_RANK, ownedBy, rankOutDir, type RankInfo } from '../core/ranks.js';
import { countedIn, defaultContext, type Stage, type StageContext } from '../core/stage.js';
import { AtomicLineWriter } from '../io/jsonl.js';
import { readDocumentFile } from '../io/documents.js';
import { writeFileAtomic } from '../write/files.js';
import { countSegments } from '../stages/mask/count.js';
import { loadFrequent, maskApply } from '../stages/mask/apply.js';
import { resolveMaskOptions } from '../stages/mask/options.js';
import { runPackJob, faultPoint, PACK_DEFAULTS, type PackJobOptions, type PackSummary } from './pack-job.js';
import type { RunConfig, SourceConfig, ThenConfig } from './run-config.js';
import { tokenizerInfo } from '../tokenize/tokenizer.js';
import { claimOutDir, fingerprintHash, inputsIdentity, type OutDir } from './out-dir.js';
import { resolvePackOptions } from './pack-options.js';
import { sourceEntry, stageEntry } from './registry.js';

/**
 * `midpack run`: one config, the whole pipeline, bounded memory.
 *
 *   prepare  every source through its stages, in config order, streamed to OUT/.run/docs.jsonl;
 *            with masking, segment counts are taken from the same stream (pass 1)
 *   pack     the prepared documents, masked with the counts (pass 2), tokenized and packed
 *
 * Both steps resume: a finished prepare step is kept (OUT/.run/prepared.json), and packing resumes
 * from its tokenized chunks. On several ranks with masking the two steps run as two phases with a
 * counts merge between them (`--phase prepare`, `midpack mask merge`, `--phase pack --counts`).
 */
export type RunPhase = 'all' | 'prepare' | 'pack';

export interface RunOptions {
  rank?: RankInfo;
  phase?: RunPhase;
  /** Merged segment counts from all ranks (phase pack of a multi-rank masked run). */
  counts?: string;
  workers?: number;
  /** Progress events of the pack step. */
  onProgress?: PackJobOptions['onProgress'];
  keepWork?: boolean;
  /** Replace an output folder that holds another midpack output. */
  overwrite?: boolean;
  /** More tokenizer workers than cores. */
  forceWorkers?: boolean;
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
}

export async function runPipeline(cfg: RunConfig, o: RunOptions = {}): Promise<{ out: string; prepared: Prepared; summary?: PackSummary }> {
  const rank = o.rank ?? SINGLE_RANK;
  const phase = o.phase ?? 'all';
  if (cfg.mask && rank.worldSize > 1 && phase === 'all') {
    throw new Error('masking over several ranks needs the counts of every rank: run --phase prepare on each rank, `midpack mask merge` the counts, then --phase pack --counts MERGED');
  }
  if (phase === 'pack' && cfg.mask && rank.worldSize > 1 && !o.counts) throw new Error('--phase pack of a masked multi-rank run needs --counts (the merged counts of all ranks)');
  const out = rankOutDir(cfg.out, rank);
  const runDir = join(out, '.run');
  // The tokenizer backend does not change the bytes: switching it must not redo the prepare step.
  const configHash = createHash('sha256').update(JSON.stringify({ ...cfg, file: undefined, pack: { ...cfg.pack, tokenizerBackend: undefined } })).digest('hex');
  // Everything that decides the bytes but the merged counts, which only phase pack is given.
  const fingerprint = {
    command: 'run',
    config_sha256: configHash,
    tokenizer_sha256: (await tokenizerInfo(cfg.tokenizer)).hash,
    rank: rank.rank,
    world_size: rank.worldSize,
    sources: cfg.sources.map((s) => ({ name: s.name, inputs: inputsIdentity(s.inputs) })),
  };
  const outDir = claimOutDir({ out, fingerprint, overwrite: o.overwrite ?? false, megatronName: (cfg.pack.name as string | undefined) ?? PACK_DEFAULTS.name, what: 'run' });
  try {
    mkdirSync(runDir, { recursive: true });
    const runFingerprint = fingerprintHash(fingerprint);
    let prepared = readPrepared(runDir, runFingerprint);
    if (!prepared) prepared = await prepare(cfg, rank, runDir, configHash, runFingerprint);
    if (phase === 'prepare') return { out, prepared };
    return { out, prepared, summary: await packPrepared(cfg, o, rank, outDir, prepared) };
  } finally {
    outDir.release();
  }
}

/** Pack step: the prepared documents, masked when the config masks, into OUT. */
async function packPrepared(cfg: RunConfig, o: RunOptions, rank: RankInfo, outDir: OutDir, prepared: Prepared): Promise<PackSummary> {
  const out = outDir.dir;
  const runDir = join(out, '.run');
  const docsFile = statSync(join(runDir, 'docs.jsonl'));
  // The pack work resumes only from chunks of these very documents and counts.
  const identity = {
    prepared: prepared.fingerprint,
    docs: { bytes: docsFile.size, mtime_ms: Math.round(docsFile.mtimeMs) },
    counts: o.counts ? inputsIdentity([o.counts]) : (prepared.counts ?? null),
  };

  const ledger = new Ledger();
  ledger.printDrops('run');
  let docs: AsyncIterable<Doc> = readDocumentFile(join(runDir, 'docs.jsonl'), ledger);
  const stages: Record<string, unknown> = { ...prepared.stages };
  if (cfg.mask) {
    const countsPath = o.counts ?? join(runDir, prepared.counts!);
    const m = resolveMaskOptions(cfg.mask);
    const frequent = loadFrequent(countsPath, m);
    const maskCtx = defaultContext({ seed: cfg.seed });
    docs = maskApply(frequent, m)(countedIn(docs, maskCtx.ledger), maskCtx);
    // The mask ledger fills while packing reads the documents: a getter, read when the manifest is written.
    stages.mask = { type: 'mask', counts: o.counts ?? prepared.counts, get ledger() { return maskCtx.ledger.toJSON(); }, stats: maskCtx.stats };
  }
  const summary = await runPackJob(
    {
      ...PACK_DEFAULTS,
      ...resolvePackOptions(cfg.pack),
      inputs: [],
      out,
      tokenizer: cfg.tokenizer,
      workers: o.workers ?? cfg.workers ?? (await import('node:os')).availableParallelism(),
      keepWork: o.keepWork ?? false,
      onProgress: o.onProgress,
      forceWorkers: o.forceWorkers,
      rank,
    },
    { docs, ledger, inputs: cfg.sources.flatMap((s) => s.inputs), stages, outDir, identity },
  );
  if (!o.keepWork) rmSync(runDir, { recursive: true, force: true });
  return summary;
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

async function prepare(cfg: RunConfig, rank: RankInfo, runDir: string, configHash: string, fingerprint: string): Promise<Prepared> {
  const owns = ownedBy(rank);
  const stages: Prepared['stages'] = {};
  const writer = new AtomicLineWriter(join(runDir, 'docs.jsonl'));
  let documents = 0;
  const fault = faultPoint();
  async function* all(): AsyncIterable<Doc> {
    for (const source of cfg.sources) {
      const ctx = defaultContext({ seed: cfg.seed, owns, workDir: join(runDir, 'tmp', source.name) });
      mkdirSync(ctx.workDir!, { recursive: true });
      ctx.ledger.printDrops(source.name);
      let docs = sourceDocs(source, ctx);
      // Each stage after the source keeps its own ledger: its unit is the document it gets.
      // `owns` tells a stage that this is one rank of several (dedup then needs the merged index of all ranks).
      const thenCtx = source.then.map((t) => ({ t, c: defaultContext({ seed: cfg.seed, workDir: ctx.workDir, owns }) }));
      for (const { t, c } of thenCtx) docs = thenStage(t)(countedIn(docs, c.ledger), c);
      for await (const d of docs) {
        await writer.write(docToJson(d));
        documents++;
        fault('docs');
        yield d;
      }
      const record = (c: StageContext, type: string) => ({ type, ledger: c.ledger.toJSON(), balanced: c.ledger.balanced(), stats: c.stats });
      stages[source.name] = record(ctx, source.type);
      thenCtx.forEach(({ t, c }, i) => (stages[`${source.name}.${t.type}${thenCtx.length > 1 ? i : ''}`] = record(c, t.type)));
    }
  }
  let counts: string | undefined;
  try {
    if (cfg.mask) {
      counts = 'mask-counts.bin';
      const m = resolveMaskOptions(cfg.mask);
      await countSegments(all(), join(runDir, counts), { minChars: m.minChars, memoryMb: m.memoryMb, samples: m.samples, workDir: join(runDir, 'tmp', 'mask') });
    } else {
      for await (const _ of all()) void _;
    }
  } catch (e) {
    writer.abort();
    throw e;
  }
  await writer.close();
  rmSync(join(runDir, 'tmp'), { recursive: true, force: true });
  const prepared: Prepared = { config_sha256: configHash, fingerprint, rank: rank.rank, world_size: rank.worldSize, documents, stages, ...(counts ? { counts } : {}) };
  writeFileAtomic(join(runDir, 'prepared.json'), JSON.stringify(prepared, null, 2) + '\n');
  return prepared;
}

/** One source of the config as a document stream, through the registry (src/job/registry.ts). */
function sourceDocs(s: SourceConfig, ctx: StageContext): AsyncIterable<Doc> {
  const entry = sourceEntry(s.type);
  return entry.read(s.inputs, entry.resolve(s.options), ctx);
}

function thenStage(t: ThenConfig): Stage {
  const entry = stageEntry(t.type);
  return entry.stage(entry.resolve(t.options));
}
