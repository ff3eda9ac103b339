import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { Ledger } from '../core/ledger.js';
import { resolveRank } from '../core/ranks.js';
import { countedIn, fromArray } from '../core/stage.js';
import type { Doc } from '../doc/document.js';
import { type PackJobOptions, runPackJob, PACK_DEFAULTS, type PackSummary } from './pack-job.js';
import { resolvePackOptions } from './pack-options.js';
import { runPipeline, type RunOptions } from './run.js';
import { loadRunConfig, parseRunConfig } from './run-config.js';

/**
 * The job layer for code (src/index.ts): what `midpack pack` and `midpack run` do, with options
 * checked by the same resolvers as the CLI and the config, and without progress output by default.
 */
export interface PackOptionsInput {
  out: string;
  /** qwen3 (shipped) or a path to a tokenizer.json. */
  tokenizer?: string;
  workers?: number;
  keepWork?: boolean;
  /** Progress events while tokenizing and writing (none are printed by the library). */
  onProgress?: PackJobOptions['onProgress'];
  /** seqLen, overlong, slideStride, windowUnits, maxOpenBins, rowsPerShard, name, chunkTokens. */
  [packOption: string]: unknown;
}

/**
 * Packs documents into OUT (shards, Megatron files, manifest.json, report.json, report.html).
 * `docs`: paths of document files and folders, or the documents themselves (an array or stream).
 */
export async function pack(docs: string[] | Doc[] | AsyncIterable<Doc>, options: PackOptionsInput): Promise<PackSummary> {
  const { out, tokenizer, workers, keepWork, onProgress, ...raw } = options;
  const common = {
    ...PACK_DEFAULTS,
    ...resolvePackOptions(raw),
    out,
    tokenizer: tokenizer ?? PACK_DEFAULTS.tokenizer,
    workers: workers ?? availableParallelism(),
    keepWork: keepWork ?? false,
    onProgress,
    rank: resolveRank({}),
  };
  if (Array.isArray(docs) && docs.every((d) => typeof d === 'string')) return runPackJob({ ...common, inputs: docs as string[] });
  const ledger = new Ledger();
  const stream = Array.isArray(docs) ? fromArray(docs as Doc[]) : (docs as AsyncIterable<Doc>);
  return runPackJob({ ...common, inputs: [] }, { docs: countedIn(stream, ledger), ledger, inputs: [] });
}

/**
 * Runs a whole pipeline (`midpack run`). A config file's paths are relative to its folder, so the
 * run works from there (the process's working folder is restored after); a config object's paths
 * are relative to the working folder.
 */
export async function run(config: string | Record<string, unknown>, options: RunOptions = {}): ReturnType<typeof runPipeline> {
  const opts = { ...options };
  if (typeof config !== 'string') return runPipeline(parseRunConfig(config, '(config object)'), opts);
  const cfg = loadRunConfig(config);
  const cwd = process.cwd();
  process.chdir(dirname(resolve(config)));
  try {
    const r = await runPipeline(cfg, opts);
    return { ...r, out: resolve(r.out) };
  } finally {
    process.chdir(cwd);
  }
}
