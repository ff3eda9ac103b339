import { Rng, stableId } from '../../core/random.js';
import type { Stage, StageContext } from '../../core/stage.js';
import type { Doc } from '../../doc/document.js';
import { INVALID_UNICODE, isWellFormed } from '../../doc/unicode.js';
import { formatRepoDocument, parseRepoDocument, type RepoFile } from '../repos/format.js';
import { buildChatFim, buildFim, buildSrFim, reconstructFim, verifySrFim, type FimOrder, type FimParts, type Prelude } from './fim-sample.js';
import { chooseSpan, unitLanguage, type SpanMode } from './spans.js';

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

export interface FimOptions {
  fimRate: number;
  spmRate: number;
  formats: Record<FimFormatChoice, number>;
  spans: Record<SpanMode, number>;
  /** Exclude the prompt side of chat-FIM and S&R FIM samples from the loss. */
  maskPrompt: boolean;
  /** S&R FIM: the text that marks where the middle was ('' removes it without a mark). */
  placeholder: string;
  maxContextLines: number;
  unitMaxChars: number;
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
function serialize(t: Target, content: string): Prelude & { boundaries: number[] } {
  const f = formatRepoDocument(t.repo ?? '', [...t.others, { path: t.path, content }]);
  if (t.repo !== undefined) return f;
  const cut = f.boundaries[0]!;
  return {
    text: f.text.slice(cut),
    special_spans: f.special_spans.slice(1).map(([a, b]) => [a - cut, b - cut] as [number, number]),
    boundaries: f.boundaries.map((b) => b - cut),
  };
}

const FORMAT_KIND = { psm: 'fim', spm: 'fim', chat_fim: 'fim', sr_fim: 'sr' } as const;

export function fimStage(options: Partial<FimOptions> = {}): Stage {
  const opts: FimOptions = { ...DEFAULT_FIM_OPTIONS, ...options };
  return async function* fim(docs: AsyncIterable<Doc>, ctx: StageContext) {
    const stats: FimStats = { transformed: 0, untouched: 0, formats: {}, span_modes: {}, unit_fallback: {}, skipped: {}, verify_failed: {}, source_chars: 0 };
    ctx.stats.fim = stats;
    for await (const doc of docs) {
      // Text is checked where it enters: a lone surrogate cannot be tokenized, so the document is dropped here, alone.
      if (!isWellFormed(doc.text)) {
        ctx.ledger.drop(INVALID_UNICODE, `${doc.source} (${doc.id}): text has unpaired UTF-16 surrogates`);
        continue;
      }
      const sample = transformDoc(doc, opts, ctx.seed, stats);
      if (sample) {
        stats.transformed++;
        ctx.ledger.produce(String(sample.meta.format));
      } else stats.untouched++;
      ctx.ledger.output();
      yield sample ?? doc;
    }
  };
}

/** The sample a document becomes, or undefined when it passes through (counted in stats). */
export function transformDoc(doc: Doc, opts: FimOptions, seed: number, stats: FimStats): Doc | undefined {
  if (doc.kind !== 'text' && doc.kind !== 'repo') return undefined;
  // Every draw happens in the same order whatever the branch, so choices depend on the id alone.
  const rng = new Rng(seed, 'fim', doc.id);
  const take = rng.next() < opts.fimRate;
  const format = rng.weighted(opts.formats);
  const order: FimOrder = rng.next() < opts.spmRate ? 'spm' : 'psm';
  const spanMode = rng.weighted(opts.spans);
  if (!take) return undefined;
  // An empty document would become a bare FIM frame with nothing to learn: it passes through.
  if (doc.text.length === 0) {
    bump(stats.skipped, 'empty_text');
    return undefined;
  }
  let target: Target;
  try {
    target = chooseTarget(doc, rng);
  } catch (e) {
    bump(stats.skipped, (e as { reason?: string }).reason ?? 'not_a_repository');
    return undefined;
  }
  const chosen = chooseSpan(target.content, spanMode, rng, unitLanguage(target.path, doc.meta.language), opts);
  if (chosen.fallback) bump(stats.unit_fallback, chosen.fallback);
  const [a, b] = chosen.span;
  const parts: FimParts = { prefix: target.content.slice(0, a), middle: target.content.slice(a, b), suffix: target.content.slice(b) };
  const name = format === 'fim' ? order : format;
  let built: { text: string; special_spans: [number, number][]; loss_mask_spans: [number, number][] };
  let failure: string | null;
  let boundaries: number[] | undefined;
  if (format === 'sr_fim') {
    const r = buildSrFim(target.path, parts, opts, (holed) => serialize(target, holed));
    if ('reason' in r) {
      bump(stats.skipped, r.reason);
      return undefined;
    }
    built = r.built;
    failure = verifySrFim(built, target.path, target.content);
  } else {
    const prelude = target.repo !== undefined ? serialize(target, '') : undefined;
    built = format === 'fim' ? buildFim(parts, order, prelude) : buildChatFim(parts, order, opts.maskPrompt, prelude);
    if (format === 'fim' && prelude) boundaries = prelude.boundaries;
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
