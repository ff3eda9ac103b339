import { DEFAULT_MAX_FILE_BYTES, resolveTable, type OptionTable } from '../../core/options.js';
import { parseWeights } from '../../core/weights.js';
import { DEFAULT_EDIT_OPTIONS, EDIT_FORMATS, type EditFormat, type EditOptions } from './edit-sample.js';
import { DEFAULT_CONTEXT_OPTIONS, type ContextOptions } from './context.js';
import { DEFAULT_HISTORY_OPTIONS, PIECE_COMMITS, type HistoryOptions } from './history.js';

/** The edits source's options (`midpack edits` flags, a config's `type: edits` options). */
export const EDITS_OPTIONS = {
  formats: {
    type: 'weights',
    keys: EDIT_FORMATS,
    default: 'sr,diff',
    arg: '<list>',
    help: `answer formats (${EDIT_FORMATS.join(', ')}): "sr,diff" writes one sample per format; "sr=2,diff=1" draws one per change by weight`,
  },
  per: { type: 'string', choices: ['commit', 'file'], default: DEFAULT_HISTORY_OPTIONS.granularity, arg: '<unit>', help: 'one sample per commit or per changed file' },
  rev: { type: 'string', arg: '<rev>', default: DEFAULT_HISTORY_OPTIONS.rev, help: 'the revision whose history is walked' },
  maxCommits: { type: 'int', min: 1, help: 'walk at most this many commits (default: all)' },
  maxFileBytes: { type: 'int', min: 1, default: DEFAULT_MAX_FILE_BYTES, help: 'changed files over this size are dropped (too_large)' },
  maxCommitBytes: { type: 'int', min: 1, default: DEFAULT_HISTORY_OPTIONS.maxCommitBytes, help: 'commits whose changed text is over this are dropped (too_large)' },
  maxFiles: { type: 'int', min: 1, default: DEFAULT_HISTORY_OPTIONS.maxFiles, help: 'commits changing more files are dropped (too_large)' },
  related: { type: 'int', min: 0, default: DEFAULT_HISTORY_OPTIONS.related, help: 'unchanged files of the repository added to the context as noise' },
  repoName: { type: 'string', arg: '<name>', help: 'repository name in the samples (default: the folder or bundle name)' },
  maskPrompt: { type: 'boolean', default: DEFAULT_EDIT_OPTIONS.maskPrompt, help: 'exclude the prompt from the loss' },
  maxContextLines: { type: 'int', min: 0, default: DEFAULT_EDIT_OPTIONS.maxContextLines, help: 'context lines a SEARCH may take on each side to become unique' },
  gitBatch: { type: 'int', min: 1, default: DEFAULT_EDIT_OPTIONS.gitBatch, help: 'diffs checked by one git apply --check run (a batch is checked while the next is built)' },
  retrieve: { type: 'int', min: 0, default: DEFAULT_CONTEXT_OPTIONS.retrieve, help: 'files added to the context that best match the description by BM25 (the commit message, or the problem statement)' },
  contextTokens: {
    type: 'int',
    min: 0,
    default: DEFAULT_CONTEXT_OPTIONS.contextTokens,
    help: 'token budget of the context (packing tokenizer): changed files always go in, then retrieved, then related files while they fit; 0 for no limit',
  },
  tokenizer: { type: 'string', arg: '<spec>', default: 'qwen3', help: 'the packing tokenizer --context-tokens counts in (qwen3, or a tokenizer.json path)' },
  contextFileBytes: {
    type: 'int',
    min: 1,
    default: DEFAULT_CONTEXT_OPTIONS.contextFileBytes,
    help: 'retrieved and related files are drawn from the files up to this size (bounds the indexing and counting a commit costs; changed files always go in)',
  },
  pieceCommits: {
    type: 'int',
    min: 1,
    default: PIECE_COMMITS,
    help: 'midpack run: a history of more commits is prepared in pieces of at most this many (of even sizes), spread over the workers (the same samples in the same order)',
  },
  contextCacheMb: {
    type: 'int',
    min: 1,
    default: DEFAULT_CONTEXT_OPTIONS.cacheMb,
    help: "memory (MB) of the context caches kept between commits (files' BM25 term and token counts, trees, retrieved files' texts): one budget for a run, split over its workers",
  },
  repos: { type: 'string', arg: '<dir>', path: true, help: 'JSONL inputs are pull-request instances (SWE-bench rows) whose repositories are clones at DIR/NAME or DIR/OWNER__NAME' },
  withHints: { type: 'boolean', default: false, help: "instances: append the row's hints_text to the problem statement" },
  excludeInstances: {
    type: 'string',
    arg: '<files>',
    path: true,
    help: 'instances: evaluation rows or ids (JSONL, Parquet, or .txt of ids; comma-separated files) whose overlapping instances are dropped (same id, same repo and problem statement n-grams, same files at the same base commit)',
  },
} satisfies OptionTable;

/** How history is walked, and how each change becomes samples. */
export interface EditsOptions {
  history: HistoryOptions;
  edit: EditOptions;
  context: ContextOptions;
  tokenizer: string;
  /** Commits per piece of a history a run prepares in several workers (editsPieces). */
  pieceCommits: number;
  /** With `repos` set, JSONL inputs are pull-request instances. */
  instances: { repos?: string; withHints: boolean; excludeInstances: string[] };
}

export function resolveEditsOptions(raw: Record<string, unknown>): EditsOptions {
  const r = resolveTable(EDITS_OPTIONS, raw) as Record<string, never>;
  const spec = r.formats as string;
  const history: HistoryOptions = {
    rev: r.rev,
    maxCommits: r.maxCommits ?? DEFAULT_HISTORY_OPTIONS.maxCommits,
    maxFileBytes: r.maxFileBytes,
    maxCommitBytes: r.maxCommitBytes,
    maxFiles: r.maxFiles,
    related: r.related,
    granularity: r.per,
    ...(r.repoName === undefined ? {} : { repoName: r.repoName }),
  };
  const edit: EditOptions = {
    ...DEFAULT_EDIT_OPTIONS,
    formats: { mode: spec.includes('=') ? 'pick' : 'all', weights: parseWeights(spec, EDIT_FORMATS, 'formats') as Partial<Record<EditFormat, number>> },
    maskPrompt: r.maskPrompt,
    maxContextLines: r.maxContextLines,
    gitBatch: r.gitBatch,
  };
  const context: ContextOptions = { retrieve: r.retrieve, related: r.related, contextTokens: r.contextTokens, maxFileBytes: r.maxFileBytes, contextFileBytes: r.contextFileBytes, cacheMb: r.contextCacheMb };
  const exclude = r.excludeInstances === undefined ? [] : (r.excludeInstances as string).split(',').filter(Boolean);
  const instances = { ...(r.repos === undefined ? {} : { repos: r.repos as string }), withHints: r.withHints as boolean, excludeInstances: exclude };
  return { history, edit, context, tokenizer: r.tokenizer, pieceCommits: r.pieceCommits, instances };
}
