/**
 * midpack's library API, named exports only (the CLI is a thin layer over these). Subpaths:
 * `midpack/pack` (the native packer and the strategy comparison), `midpack/write` (the Arrow and
 * Megatron writers). See README "Use it from code".
 */

// The job layer: pack, run a pipeline, merge ranks, compare strategies, the report.
export { pack, run, type PackOptionsInput } from './job/api.js';
export { runPackJob, PACK_DEFAULTS, type PackJobOptions, type PackSource, type PackSummary, type Manifest } from './job/pack-job.js';
export { runPipeline, type RunOptions, type RunPhase } from './job/run.js';
export { loadRunConfig, parseRunConfig, ConfigError, type RunConfig, type SourceConfig, type ThenConfig } from './job/run-config.js';
export { mergeRanks, MergeError, type MergeOptions, type MergeSummary } from './job/merge.js';
export { mergeRemoteRanks, type RemoteMergeOptions } from './job/merge-remote.js';
export { compareStrategies, compareStrategiesFrom, type CompareOptions, type StrategyFigures } from './pack/strategies.js';
export { planBins, type PlanOptions, type PlanResult } from './pack/planner.js';
export { DocGroups, type GroupableDoc, type DocGroupFigures } from './pack/groups.js';
export { readLengthFile } from './pack/lengths.js';
export { OVERLONG_POLICIES, type OverlongPolicy } from './pack/packer.js';
export { renderReportHtml, writeReportHtml } from './report/html.js';
export type { ReportJson } from './report/figures.js';
export { readBin, renderBin, type BinRow } from './report/inspect.js';
export { VERSION } from './version.js';

// Sources, stages and their options (one table and one resolver each; registry for `run`).
export { SOURCES, STAGES, type SourceEntry, type StageEntry } from './job/registry.js';
export { OptionError, resolveTable, type OptionSpec, type OptionTable } from './core/options.js';
export { PACK_OPTIONS, resolvePackOptions, type PackOptions } from './job/pack-options.js';
export { reposSource, webSource, codeSource, documentsSource } from './stages/sources.js';
export { editsSource } from './stages/edits/source.js';
export { REPOS_OPTIONS, resolveReposOptions, type ReposOptions } from './stages/repos/options.js';
export { serializeRepos, type SerializeOptions } from './stages/repos/serialize.js';
export { WEB_OPTIONS, resolveWebOptions, type WebOptions } from './stages/web/options.js';
export { rewriteWeb, type RewriteWebOptions } from './stages/web/stage.js';
export { readWebInputs } from './stages/web/sources.js';
export { trajectoriesSource, resolveTrajectoriesOptions, renderTrajectory, parseTrajectory, TEMPLATE_NAMES, type TrajectoriesOptions, type Trajectory } from './stages/trajectories/index.js';
export { filteredTrajectories, readRecord, readSession, toOpenaiRow, openaiRows, type OpenaiRow } from './stages/trajectories/index.js';
export { renderFaithful, TURN_MODES, type TurnMode, type FaithfulResult } from './stages/trajectories/index.js';
export { FIM_OPTIONS, resolveFimOptions, type FimOptions } from './stages/fim/options.js';
export { CODE_OPTIONS, resolveCodeOptions, type CodeOptions } from './stages/fim/code-options.js';
export { fimStage } from './stages/fim/stage.js';
export { EDITS_OPTIONS, resolveEditsOptions, type EditsOptions } from './stages/edits/options.js';
export { editSamples } from './stages/edits/edit-sample.js';
export { MASK_OPTIONS, resolveMaskOptions, type MaskOptions } from './stages/mask/options.js';
export { countSegments, type CountSummary } from './stages/mask/count.js';
export { loadFrequent, maskApply } from './stages/mask/apply.js';
export { mergeCountsFiles } from './stages/mask/counts-file.js';
export { SYNTH_QA_OPTIONS, resolveSynthQaOptions, synthQaStage, type SynthQaOptions } from './stages/synth-qa/index.js';
export { LlmClient, LLM_DEFAULTS, type LlmOptions, type LlmOutcome, type LlmCounters } from './llm/client.js';

// Composition, documents, reading and writing them, the tokenizer.
export { pipeline, collect, fromArray, defaultContext, countedIn, countedOut, type Stage, type StageContext } from './core/stage.js';
export { Ledger } from './core/ledger.js';
export { DOC_KINDS, docToJson, toDoc, type Doc, type DocKind, type Span } from './doc/document.js';
export { SPECIAL } from './doc/specials.js';
export { readDocuments, readDocumentFile } from './io/documents.js';
export { writeDocuments, writeDocsParquet } from './io/write-documents.js';
export { loadTokenizer, type MidTokenizer } from './tokenize/tokenizer.js';

// Token-budgeted mixtures (docs/mixing.md).
export { MIXTURE_SOURCE_OPTIONS, MIXTURE_PACK_OPTIONS, resolveMixture, resolveSourceTarget, type MixtureSpec, type SourceTarget } from './mix/spec.js';
export { MixtureCounts, type MixtureCountsJson } from './mix/counts.js';
export { planMixture, targetTokens, usesOf, type MixturePlan, type SourcePlan } from './mix/plan.js';
export { unitHash, MIXTURE_BUCKETS } from './mix/unit-hash.js';
export { mixtureReport, mergeMixtureReports, blendLine, MixtureTally, type MixtureReport, type MixtureSourceFigures } from './mix/report.js';
export { MixtureError } from './job/run-mixture.js';
