import type { OptionTable } from '../core/options.js';
import { pathOptions } from '../io/paths.js';
import { benchmarkPaths } from '../stages/hygiene/benchmarks.js';
import { resolveTable } from '../core/options.js';
import type { Stage, StageContext } from '../core/stage.js';
import type { Doc } from '../doc/document.js';
import { EDITS_OPTIONS, resolveEditsOptions } from '../stages/edits/options.js';
import { editsPieces, editsSource } from '../stages/edits/source.js';
import { CODE_OPTIONS, resolveCodeOptions } from '../stages/fim/code-options.js';
import { FIM_OPTIONS, resolveFimOptions } from '../stages/fim/options.js';
import { fimStage } from '../stages/fim/stage.js';
import { REPOS_OPTIONS, resolveReposOptions } from '../stages/repos/options.js';
import { codeSource, documentsSource, reposSource, webSource } from '../stages/sources.js';
import { WEB_OPTIONS, resolveWebOptions } from '../stages/web/options.js';
import { rewriteWeb } from '../stages/web/stage.js';
import { TRAJECTORIES_TABLE, resolveTrajectoriesOptions } from '../stages/trajectories/options.js';
import { trajectoriesSource } from '../stages/trajectories/stage.js';
import { hygieneStage, resolveHygieneOptions, type HygieneStage } from '../stages/hygiene/stage.js';
import { SYNTH_QA_OPTIONS, resolveSynthQaOptions } from '../stages/synth-qa/options.js';
import { synthQaStage } from '../stages/synth-qa/stage.js';

/**
 * The registry `midpack run` composes a pipeline from, without a switch.
 *
 *   SOURCES: `type:` of a config source → its option table, resolver and reader
 *            `(inputs, options, ctx) => AsyncIterable<Doc>` (ranks: read only what `ctx.owns` accepts).
 *   STAGES:  `type:` of a `then:` entry → its option table, resolver and `(options) => Stage`,
 *            a transform `(docs, ctx) => AsyncIterable<Doc>`.
 *
 * A new source or stage plugs in with ONE line here, e.g.
 *   hygiene: { options: HYGIENE_OPTIONS, resolve: resolveHygieneOptions, stage: hygieneStage },
 * after which the config accepts it (its keys and values checked by the resolver, errors naming
 * the path and the value) and `run` runs it; its CLI command uses the same table and resolver
 * (src/cli/options.ts: addOptions, resolveFlags).
 */
export interface SourceEntry<O = never, P = never> {
  options: OptionTable;
  resolve: (raw: Record<string, unknown>) => O;
  read: (inputs: string[], options: O, ctx: StageContext, piece?: P) => AsyncIterable<Doc>;
  /** The reader makes seeded choices per record and honours `ctx.repeat`: mixture repeats read it again. */
  redraws?: boolean;
  /**
   * The source's pieces, for a run to prepare them apart (in several workers) and read back in
   * order: read() of each piece, concatenated, gives read() of the whole. Plain data: a piece
   * crosses to a worker thread.
   */
  pieces?: (inputs: string[], options: O, ctx: StageContext) => Promise<P[]>;
  /** The files or folders the raw options name that must exist, by key (default: the table's `path` options). */
  paths?: (raw: Record<string, unknown>) => Record<string, string[]>;
}

export interface StageEntry<O = never> {
  options: OptionTable;
  resolve: (raw: Record<string, unknown>) => O;
  stage: (options: O) => Stage;
  /** As SourceEntry.paths. */
  paths?: (raw: Record<string, unknown>) => Record<string, string[]>;
}

// Each entry pairs a resolver with the reader of its own options type; the maps hold them erased.
/* eslint-disable @typescript-eslint/no-explicit-any */
export const SOURCES: Record<string, SourceEntry<any, any>> = {
  repos: { options: REPOS_OPTIONS, resolve: resolveReposOptions, read: reposSource, redraws: true },
  web: { options: WEB_OPTIONS, resolve: resolveWebOptions, read: webSource },
  edits: { options: EDITS_OPTIONS, resolve: resolveEditsOptions, read: editsSource, redraws: true, pieces: editsPieces },
  code: { options: CODE_OPTIONS, resolve: resolveCodeOptions, read: codeSource },
  documents: { options: {}, resolve: (raw) => resolveTable({}, raw), read: documentsSource },
  trajectories: { options: TRAJECTORIES_TABLE, resolve: resolveTrajectoriesOptions, read: trajectoriesSource, redraws: true },
};

/** Stages that transform documents, for a source's `then:`. */
export const STAGES: Record<string, StageEntry<any>> = {
  fim: { options: FIM_OPTIONS, resolve: resolveFimOptions, stage: fimStage },
  web: { options: WEB_OPTIONS, resolve: resolveWebOptions, stage: rewriteWeb },
  dedup: hygieneEntry('dedup'),
  decontaminate: hygieneEntry('decontaminate'),
  redact: hygieneEntry('redact'),
  'synth-qa': { options: SYNTH_QA_OPTIONS, resolve: resolveSynthQaOptions, stage: synthQaStage },
};

/** The hygiene stages check their raw options at config load and resolve them again when built. */
function hygieneEntry(type: HygieneStage): StageEntry<Record<string, unknown>> {
  return {
    options: {},
    resolve: (raw) => {
      resolveHygieneOptions(type, raw);
      return raw;
    },
    stage: (raw) => hygieneStage(type, raw),
    ...(type === 'decontaminate' ? { paths: (raw) => ({ benchmarks: benchmarkPaths(typeof raw.benchmarks === 'string' ? [raw.benchmarks] : Array.isArray(raw.benchmarks) ? (raw.benchmarks as string[]) : []) }) } : {}),
  };
}

/** The files or folders an entry's raw options name that must exist, by key (checked by the run config, src/io/paths.ts). */
export function entryPaths(entry: SourceEntry<unknown, unknown> | StageEntry<unknown>, raw: Record<string, unknown>): Record<string, string[]> {
  return entry.paths?.(raw) ?? pathOptions(entry.options, raw);
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** One configured source as a document stream: options resolved, read, then each stage in order. */
export function sourceEntry(type: string): SourceEntry<unknown, unknown> {
  const e = SOURCES[type];
  if (!e) throw new Error(`unknown source type "${type}" (one of ${Object.keys(SOURCES).join(', ')})`);
  return e as SourceEntry<unknown, unknown>;
}

export function stageEntry(type: string): StageEntry<unknown> {
  const e = STAGES[type];
  if (!e) throw new Error(`unknown stage type "${type}" (one of ${Object.keys(STAGES).join(', ')})`);
  return e as StageEntry<unknown>;
}
