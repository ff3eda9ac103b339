import { Rng, stableId } from '../../core/random.js';
import type { Stage, StageContext } from '../../core/stage.js';
import type { Doc } from '../../doc/document.js';
import { INVALID_UNICODE, isWellFormed } from '../../doc/unicode.js';
import { appendRepoDocument, appendRepoFiles, parseRepoDocument, type RepoFile } from '../repos/format.js';
import { buildChatFim, buildFim, buildSrFim, reconstructFim, verifySrFim, type FimOrder, type FimParts, type Prelude } from './fim-sample.js';
import { chooseSpan, unitLanguage, type SpanMode } from './spans.js';
import { DEFAULT_FUNCTION_AWARE_OPTIONS, type FunctionAwareOptions } from './function-aware/options.js';
import { chooseFunction, newFunctionAwareStats, type FunctionAwareStats, type RepoContext } from './function-aware/select.js';
import { groupRepoRows } from './function-aware/rows.js';

/**
 * The FIM stage: a transform over documents. A document is transformed with probability
 * `fimRate` (seeded by its id) into one sample of a format drawn by weight: `fim` (PSM or
 * SPM by `spmRate`), `chat_fim` or `sr_fim`. Other documents pass through unchanged, so the
 * stage sits in a pipeline like any other. Repository documents (kind `repo`) get one of
 * their files transformed, inside the repository. A sample that cannot be built or does not
 * verify is never written: its document passes through unchanged and the reason is counted.
 */
export const FIM_FORMATS = ['fim', 'chat_fim', 'sr_fim'] as const;
export type FimFormatChoice = (typeof FIM_FORMATS)[number];

/** The span choices of the stage: the unit kinds of spans.ts, and `function-aware` (function-aware/). */
export const FIM_SPAN_CHOICES = ['char', 'line', 'unit', 'function-aware'] as const;
export type FimSpanChoice = (typeof FIM_SPAN_CHOICES)[number];
export type FimSpanWeights = Record<SpanMode, number> & { 'function-aware'?: number };

export interface FimOptions {
  fimRate: number;
  spmRate: number;
  formats: Record<FimFormatChoice, number>;
  spans: FimSpanWeights;
  /** Exclude the prompt side of chat-FIM and S&R FIM samples from the loss. */
  maskPrompt: boolean;
  /** S&R FIM: the text that marks where the middle was ('' removes it without a mark). */
  placeholder: string;
  maxContextLines: number;
  unitMaxChars: number;
  /** Function-aware spans: the double criterion, the context budget and the middle kind. */
  functionAware: FunctionAwareOptions;
}

export const DEFAULT_FIM_OPTIONS: FimOptions = {
  fimRate: 0.5,
  spmRate: 0.5,
  formats: { fim: 0.5, chat_fim: 0.25, sr_fim: 0.25 },
  // unit spans cost a parse (lezer, ~4 MB/s); 10% keeps the mix above 20 MB/s of source on one core.
  spans: { char: 0.4, line: 0.5, unit: 0.1 },
  maskPrompt: false,
  placeholder: '[MISSING CODE]',
  maxContextLines: 20,
  unitMaxChars: 1_000_000,
  functionAware: DEFAULT_FUNCTION_AWARE_OPTIONS,
};

export interface FimStats {
  transformed: number;
  untouched: number;
  formats: Record<string, number>;
  span_modes: Record<string, number>;
  unit_fallback: Record<string, number>;
  /** Documents whose sample could not be built (they pass through unchanged). */
  skipped: Record<string, number>;
  /** Samples that failed verification (never written; their documents pass through). */
  verify_failed: Record<string, number>;
  source_chars: number;
  /** The function-aware selection funnel (when that span kind is used). */
  function_aware?: FunctionAwareStats;
}

const bump = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);

/** The file to transform: the document itself, or one file of a repository document. */
interface Target {
  path: string;
  content: string;
  repo?: string;
  /** The repository's other files, in order, for repository documents. */
  others: RepoFile[];
}

function chooseTarget(doc: Doc, rng: Rng): Target {
  if (doc.kind === 'repo') {
    const { repo, files } = parseRepoDocument(doc);
    if (files.length === 0) throw Object.assign(new Error('repository document has no files'), { reason: 'repo_without_files' });
    const k = rng.int(0, files.length);
    return { path: files[k]!.path, content: files[k]!.content, repo, others: files.filter((_, i) => i !== k) };
  }
  const path = typeof doc.meta.path === 'string' ? doc.meta.path : doc.source;
  return { path, content: doc.text, others: [] };
}

/** The other files then this one (with the given content), in the repository format; without the header for a lone file. */
function prelude(t: Target, content: string): Prelude {
  const files = [...t.others, { path: t.path, content }];
  return (b, masked) => (t.repo !== undefined ? appendRepoDocument(b, t.repo, files, masked) : appendRepoFiles(b, files, masked));
}

const FORMAT_KIND = { psm: 'fim', spm: 'fim', chat_fim: 'fim', sr_fim: 'sr' } as const;

export function fimStage(options: Partial<FimOptions> = {}): Stage {
  const opts: FimOptions = { ...DEFAULT_FIM_OPTIONS, ...options };
  return async function* fim(docs: AsyncIterable<Doc>, ctx: StageContext) {
    const stats: FimStats = { transformed: 0, untouched: 0, formats: {}, span_modes: {}, unit_fallback: {}, skipped: {}, verify_failed: {}, source_chars: 0 };
    ctx.stats.fim = stats;
    // Function-aware spans need the whole repository of a file row: consecutive rows of one repository are gathered.
    const items = (opts.spans['function-aware'] ?? 0) > 0 ? groupRepoRows(docs, opts.functionAware.repoGroupChars, () => (stats.function_aware ??= newFunctionAwareStats()).repo_groups_split++) : plain(docs);
    for await (const { doc, repo } of items) {
      // Text is checked where it enters: a lone surrogate cannot be tokenized, so the document is dropped here, alone.
      if (!isWellFormed(doc.text)) {
        ctx.ledger.drop(INVALID_UNICODE, `${doc.source} (${doc.id}): text has unpaired UTF-16 surrogates`);
        continue;
      }
      const sample = transformDoc(doc, opts, ctx.seed, stats, repo);
      if (sample) {
        stats.transformed++;
        ctx.ledger.produce(String(sample.meta.format));
      } else stats.untouched++;
      ctx.ledger.output();
      yield sample ?? doc;
    }
  };
}

async function* plain(docs: AsyncIterable<Doc>): AsyncIterable<{ doc: Doc; repo?: RepoContext }> {
  for await (const doc of docs) yield { doc };
}

interface Picked {
  target: Target;
  span: [number, number];
  mode: string;
  function?: Record<string, unknown>;
}

/** A char, line or unit span of a file of the document (a repository's file drawn by `rng`). */
function pickSpan(doc: Doc, rng: Rng, spanMode: SpanMode, opts: FimOptions, stats: FimStats): Picked | undefined {
  let target: Target;
  try {
    target = chooseTarget(doc, rng);
  } catch (e) {
    bump(stats.skipped, (e as { reason?: string }).reason ?? 'not_a_repository');
    return undefined;
  }
  const chosen = chooseSpan(target.content, spanMode, rng, unitLanguage(target.path, doc.meta.language), opts);
  if (chosen.fallback) bump(stats.unit_fallback, chosen.fallback);
  return { target, span: chosen.span, mode: chosen.mode };
}

/** A whole function chosen by the repository's call graph and the double criterion (function-aware/). */
function pickFunction(doc: Doc, seed: number, opts: FimOptions, stats: FimStats, row?: RepoContext): Picked | undefined {
  const funnel = (stats.function_aware ??= newFunctionAwareStats());
  let repo = row;
  if (doc.kind === 'repo') {
    try {
      repo = parseRepoDocument(doc);
    } catch {
      bump(stats.skipped, 'not_a_repository');
      return undefined;
    }
  }
  if (!repo) {
    bump(stats.skipped, 'function_aware_without_repository');
    return undefined;
  }
  const onlyFile = doc.kind === 'repo' ? undefined : String(doc.meta.path);
  let choice: ReturnType<typeof chooseFunction>;
  try {
    choice = chooseFunction(repo, onlyFile, new Rng(seed, 'fim-function', doc.id), opts.functionAware, opts.unitMaxChars, funnel);
  } catch (e) {
    // One repository the graph cannot handle costs only its own sample.
    bump(stats.skipped, `function_aware_error: ${(e as Error).message.slice(0, 200)}`);
    return undefined;
  }
  if (!choice) {
    bump(stats.skipped, 'no_function_candidate');
    return undefined;
  }
  const target: Target = { path: choice.target.path, content: choice.target.content, repo: repo.repo, others: choice.context };
  return { target, span: choice.span, mode: 'function-aware', function: choice.meta };
}

/**
 * The sample a document becomes, or undefined when it passes through (counted in stats).
 * `repo` holds the other rows of a file row's repository, for function-aware spans.
 */
export function transformDoc(doc: Doc, opts: FimOptions, seed: number, stats: FimStats, repo?: RepoContext): Doc | undefined {
  if (doc.kind !== 'text' && doc.kind !== 'repo') return undefined;
  // Every draw happens in the same order whatever the branch, so choices depend on the id alone.
  const rng = new Rng(seed, 'fim', doc.id);
  const take = rng.next() < opts.fimRate;
  const format = rng.weighted(opts.formats);
  const order: FimOrder = rng.next() < opts.spmRate ? 'spm' : 'psm';
  // 'function-aware' first with weight 0 when absent: the draws of existing configurations stay the same.
  const spanMode = rng.weighted<FimSpanChoice>({ 'function-aware': 0, ...opts.spans });
  if (!take) return undefined;
  // An empty document would become a bare FIM frame with nothing to learn: it passes through.
  if (doc.text.length === 0) {
    bump(stats.skipped, 'empty_text');
    return undefined;
  }
  const chosen = spanMode === 'function-aware' ? pickFunction(doc, seed, opts, stats, repo) : pickSpan(doc, rng, spanMode, opts, stats);
  if (!chosen) return undefined;
  const target = chosen.target;
  const [a, b] = chosen.span;
  const parts: FimParts = { prefix: target.content.slice(0, a), middle: target.content.slice(a, b), suffix: target.content.slice(b) };
  const name = format === 'fim' ? order : format;
  let built: { text: string; special_spans: [number, number][]; loss_mask_spans: [number, number][] };
  let failure: string | null;
  let boundaries: number[] | undefined;
  if (format === 'sr_fim') {
    const r = buildSrFim(target.path, parts, opts, (holed) => prelude(target, holed));
    if ('reason' in r) {
      bump(stats.skipped, r.reason);
      return undefined;
    }
    built = r.built;
    failure = verifySrFim(built, target.path, target.content);
  } else {
    const before = target.repo !== undefined ? prelude(target, '') : undefined;
    if (format === 'fim') {
      const fim = buildFim(parts, order, before);
      built = fim;
      if (before) boundaries = fim.boundaries;
    } else built = buildChatFim(parts, order, opts.maskPrompt, before);
    try {
      failure = reconstructFim(built, order, format === 'chat_fim') === target.content ? null : 'prefix + middle + suffix differs from the source';
    } catch (e) {
      failure = (e as Error).message;
    }
  }
  if (failure !== null) {
    bump(stats.verify_failed, `${name}: ${failure}`);
    return undefined;
  }
  bump(stats.formats, name);
  bump(stats.span_modes, chosen.mode);
  stats.source_chars += target.content.length;
  const { boundaries: _old, ...meta } = doc.meta;
  const provenance: Record<string, unknown> = { source_id: doc.id, format: name, path: target.path, span_mode: chosen.mode, span: [a, b] };
  if (format === 'chat_fim') provenance.fim_order = order;
  if (target.repo !== undefined) provenance.repo = target.repo;
  if (boundaries) provenance.boundaries = boundaries;
  if (chosen.function) provenance.function = chosen.function;
  const out: Doc = {
    id: stableId(seed, doc.id, name, a, b),
    kind: FORMAT_KIND[name],
    source: doc.source,
    text: built.text,
    meta: { ...meta, ...provenance },
    special_spans: built.special_spans,
  };
  if (built.loss_mask_spans.length) out.loss_mask_spans = built.loss_mask_spans;
  return out;
}
