import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { basename, join } from 'node:path';
import type { Doc } from '../doc/document.js';
import { docToJson } from '../doc/document.js';
import { Ledger } from '../core/ledger.js';
import { SINGLE_RANK, ownedBy, rankOutDir, type RankInfo } from '../core/ranks.js';
import { parseWeights } from '../core/weights.js';
import { defaultContext, type StageContext } from '../core/stage.js';
import { AtomicLineWriter } from '../io/jsonl.js';
import { readDocumentFile, readDocuments } from '../io/documents.js';
import { writeFileAtomic } from '../write/files.js';
import { serializeRepos } from '../stages/repos/serialize.js';
import { parseOrderWeights } from '../stages/repos/order.js';
import { readWebInputs, DEFAULT_MAX_PAGE_BYTES } from '../stages/web/sources.js';
import { rewriteWeb, type RewriteWebOptions } from '../stages/web/stage.js';
import { LLM_DEFAULTS, DEFAULT_PROMPT } from '../stages/web/llm.js';
import { fimStage, DEFAULT_FIM_OPTIONS, FIM_FORMATS, type FimOptions } from '../stages/fim/stage.js';
import { fimInputDocs } from '../stages/fim/inputs.js';
import { DEFAULT_EDIT_OPTIONS, EDIT_FORMATS, editSamples, type EditOptions } from '../stages/fim/edit-sample.js';
import { DEFAULT_HISTORY_OPTIONS, historyUnits, rowUnits, type EditUnit, type HistoryOptions } from '../stages/fim/history.js';
import { countSegments } from '../stages/mask/count.js';
import { loadFrequent, maskApply } from '../stages/mask/apply.js';
import { runPackJob, faultPoint, PACK_DEFAULTS, type PackJobOptions, type PackSummary } from './pack-job.js';
import type { RunConfig, SourceConfig } from './run-config.js';

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
  /** The pack phase's progress (src/job/pack-job.ts PackProgressEvent). */
  onProgress?: PackJobOptions['onProgress'];
  keepWork?: boolean;
}

interface Prepared {
  config_sha256: string;
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
  mkdirSync(runDir, { recursive: true });
  const configHash = createHash('sha256').update(JSON.stringify({ ...cfg, file: undefined })).digest('hex');

  let prepared = readPrepared(runDir, configHash, rank);
  if (!prepared) prepared = await prepare(cfg, rank, runDir, configHash);
  if (phase === 'prepare') return { out, prepared };

  const ledger = new Ledger();
  ledger.printDrops('run');
  let docs: AsyncIterable<Doc> = readDocumentFile(join(runDir, 'docs.jsonl'), ledger);
  const stages: Record<string, unknown> = { ...prepared.stages };
  if (cfg.mask) {
    const countsPath = o.counts ?? join(runDir, prepared.counts!);
    const frequent = loadFrequent(countsPath, { minDocs: cfg.mask.minDocs as number | undefined, minFrac: cfg.mask.minFrac as number | undefined });
    const maskCtx = defaultContext({ seed: cfg.seed });
    docs = maskApply(frequent, { keepFirst: cfg.mask.keepFirst as boolean | undefined, bridge: cfg.mask.bridge as boolean | undefined, top: cfg.mask.top as number | undefined })(countedIn(docs, maskCtx.ledger), maskCtx);
    // The mask ledger fills while packing reads the documents: a getter, read when the manifest is written.
    stages.mask = { type: 'mask', counts: o.counts ?? prepared.counts, get ledger() { return maskCtx.ledger.toJSON(); }, stats: maskCtx.stats };
  }
  const summary = await runPackJob(
    {
      ...PACK_DEFAULTS,
      ...definedOnly(cfg.pack),
      inputs: [],
      out,
      tokenizer: cfg.tokenizer,
      workers: o.workers ?? cfg.workers ?? (await import('node:os')).availableParallelism(),
      keepWork: o.keepWork ?? false,
      onProgress: o.onProgress,
      rank,
    },
    { docs, ledger, inputs: cfg.sources.flatMap((s) => s.inputs), stages },
  );
  if (!o.keepWork) rmSync(runDir, { recursive: true, force: true });
  return { out, prepared, summary };
}

/** Readers count records in and drops; what they yield is counted out here. */
async function* countedOut(docs: AsyncIterable<Doc>, ledger: Ledger): AsyncIterable<Doc> {
  for await (const d of docs) {
    ledger.output();
    yield d;
  }
}

/** A transform stage counts what it emits and drops; what it receives is counted in here. */
async function* countedIn(docs: AsyncIterable<Doc>, ledger: Ledger): AsyncIterable<Doc> {
  for await (const d of docs) {
    ledger.input();
    yield d;
  }
}

function readPrepared(runDir: string, configHash: string, rank: RankInfo): Prepared | undefined {
  const p = join(runDir, 'prepared.json');
  if (!existsSync(p)) return undefined;
  const prepared = JSON.parse(readFileSync(p, 'utf8')) as Prepared;
  if (prepared.config_sha256 !== configHash || prepared.rank !== rank.rank || prepared.world_size !== rank.worldSize) {
    throw new Error(`${runDir} holds a run with another config or rank; remove it to start over`);
  }
  process.stderr.write(`midpack: run: reusing the prepared documents in ${runDir} (${prepared.documents})\n`);
  return prepared;
}

async function prepare(cfg: RunConfig, rank: RankInfo, runDir: string, configHash: string): Promise<Prepared> {
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
      let docs = sourceDocs(source, ctx, runDir);
      // Each stage after the source keeps its own ledger: its unit is the document it gets.
      const thenCtx = source.then.map((t) => ({ t, c: defaultContext({ seed: cfg.seed, workDir: ctx.workDir }) }));
      for (const { t, c } of thenCtx) docs = fimStage(fimOptions(t.options))(countedIn(docs, c.ledger), c);
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
      await countSegments(all(), join(runDir, counts), {
        minChars: cfg.mask.minChars as number | undefined,
        memoryMb: cfg.mask.memoryMb as number | undefined,
        samples: cfg.mask.samples as number | undefined,
        workDir: join(runDir, 'tmp', 'mask'),
      });
    } else {
      for await (const _ of all()) void _;
    }
  } catch (e) {
    writer.abort();
    throw e;
  }
  await writer.close();
  rmSync(join(runDir, 'tmp'), { recursive: true, force: true });
  const prepared: Prepared = { config_sha256: configHash, rank: rank.rank, world_size: rank.worldSize, documents, stages, ...(counts ? { counts } : {}) };
  writeFileAtomic(join(runDir, 'prepared.json'), JSON.stringify(prepared, null, 2) + '\n');
  return prepared;
}

/** One source of the config as a document stream. */
function sourceDocs(s: SourceConfig, ctx: StageContext, runDir: string): AsyncIterable<Doc> {
  const opt = s.options;
  switch (s.type) {
    case 'documents':
      return countedOut(readDocuments(s.inputs, ctx.ledger, ctx.owns), ctx.ledger);
    case 'code':
      return countedOut(fimInputDocs(s.inputs, ctx.ledger, ctx.seed, (opt.maxFileBytes as number | undefined) ?? 1 << 20, ctx.owns), ctx.ledger);
    case 'repos':
      return serializeRepos(s.inputs, { ...opt, ...(typeof opt.order === 'string' ? { order: parseOrderWeights(opt.order) } : {}) } as never, ctx);
    case 'web': {
      const web: RewriteWebOptions = { ...(opt as RewriteWebOptions) };
      if (opt.llm) web.llm = { ...LLM_DEFAULTS, prompt: DEFAULT_PROMPT, ...(opt.llm as object) } as RewriteWebOptions['llm'];
      const pages = readWebInputs(s.inputs, ctx, { maxPageBytes: (opt.maxPageBytes as number | undefined) ?? DEFAULT_MAX_PAGE_BYTES });
      return rewriteWeb(web)(pages, ctx);
    }
    case 'edits':
      return editSamples(editUnits(s, ctx, runDir), editOptions(opt), ctx);
  }
}

async function* editUnits(s: SourceConfig, ctx: StageContext, runDir: string): AsyncIterable<EditUnit> {
  const o = s.options;
  const history: HistoryOptions = {
    ...DEFAULT_HISTORY_OPTIONS,
    ...(definedOnly({ rev: o.rev, maxCommits: o.maxCommits, maxFileBytes: o.maxFileBytes, maxCommitBytes: o.maxCommitBytes, maxFiles: o.maxFiles, related: o.related, repoName: o.repoName }) as Partial<HistoryOptions>),
    granularity: o.per === 'file' ? 'file' : 'commit',
    owns: ctx.owns,
  };
  const files = new Ledger();
  for (const input of s.inputs) {
    if (input.endsWith('.bundle')) {
      // A git bundle (a history shipped as one file) is cloned into the work folder first.
      const dir = join(runDir, 'git', basename(input, '.bundle'));
      if (!existsSync(join(dir, '.git'))) {
        rmSync(dir, { recursive: true, force: true });
        const r = spawnSync('git', ['clone', '--quiet', input, dir], { encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`${input}: git clone of the bundle failed: ${r.stderr.trim()}`);
      }
      yield* historyUnits(dir, { ...history, repoName: history.repoName ?? basename(input, '.bundle') }, ctx.seed, ctx.ledger, files);
    } else if (statSync(input).isDirectory()) {
      yield* historyUnits(input, history, ctx.seed, ctx.ledger, files);
    } else {
      yield* rowUnits(input, ctx.ledger, ctx.owns);
    }
  }
  ctx.stats.edit_files = files.toJSON();
}

function editOptions(o: Record<string, unknown>): EditOptions {
  const spec = typeof o.formats === 'string' ? o.formats : undefined;
  return {
    ...DEFAULT_EDIT_OPTIONS,
    ...(definedOnly({ maskPrompt: o.maskPrompt, maxContextLines: o.maxContextLines, gitBatch: o.gitBatch }) as Partial<EditOptions>),
    ...(spec ? { formats: { mode: spec.includes('=') ? ('pick' as const) : ('all' as const), weights: parseWeights(spec, EDIT_FORMATS, 'edits formats') } } : {}),
  };
}

function fimOptions(o: Record<string, unknown>): FimOptions {
  const r: FimOptions = { ...DEFAULT_FIM_OPTIONS, ...(o as Partial<FimOptions>) };
  if (typeof o.formats === 'string') r.formats = { fim: 0, chat_fim: 0, sr_fim: 0, ...parseWeights(o.formats, FIM_FORMATS, 'fim formats') };
  if (typeof o.spans === 'string') r.spans = { char: 0, line: 0, unit: 0, ...parseWeights(o.spans, ['char', 'line', 'unit'] as const, 'fim spans') };
  return r;
}

function definedOnly<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
