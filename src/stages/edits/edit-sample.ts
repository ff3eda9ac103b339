import { Ledger } from '../../core/ledger.js';
import { Rng, stableId } from '../../core/random.js';
import type { StageContext } from '../../core/stage.js';
import type { Doc } from '../../doc/document.js';
import { TextBuilder } from '../../doc/text-builder.js';
import { appendRepoDocument } from '../repos/format.js';
import { SR_FORMAT_HELP } from '../fim/fim-sample.js';
import { gitApplyCheck } from './git-apply.js';
import { applyGitDiff, DiffOverBoundError, gitDiff, regionsOfDiff, type FileChange } from './git-diff.js';
import type { ChangeSet, EditUnit } from './history.js';
import { applyBlocks, buildBlocks, formatBlocks, parseBlocks, type EditBlock } from '../fim/search-replace.js';
import { chatml, chatTurns } from '../fim/text.js';

/**
 * Edit samples (kind `edit`): a ChatML conversation whose user turn holds the description
 * (the commit message), the code context in the repository format, and the request; the
 * answer is the change as SEARCH/REPLACE blocks (`sr`), as a git diff (`diff`), or both,
 * blocks first (`sr_diff`). Every sample is verified from its own text before it is kept.
 */
export const EDIT_FORMATS = ['sr', 'diff', 'sr_diff'] as const;
export type EditFormat = (typeof EDIT_FORMATS)[number];

export interface EditOptions {
  /** `all`: one sample per listed format; `pick`: one format per change set, drawn by weight. */
  formats: { mode: 'all' | 'pick'; weights: Partial<Record<EditFormat, number>> };
  maskPrompt: boolean;
  maxContextLines: number;
  /** Diffs checked by one `git apply --check` run; a batch is checked while the next one is built. */
  gitBatch: number;
  gitCheck: boolean;
}

export const DEFAULT_EDIT_OPTIONS: EditOptions = {
  formats: { mode: 'all', weights: { sr: 1, diff: 1 } },
  maskPrompt: false,
  maxContextLines: 20,
  gitBatch: 32,
  gitCheck: true,
};

export const EDIT_SYSTEM = 'You are a software engineer. You change the repository to do what the request describes.';

const INSTRUCTION: Record<EditFormat, string> = {
  sr: `Make the change with SEARCH/REPLACE blocks. ${SR_FORMAT_HELP}`,
  diff: 'Make the change as a unified diff in git format that `git apply` accepts.',
  sr_diff: `Make the change twice: first as SEARCH/REPLACE blocks, then as a unified diff in git format. ${SR_FORMAT_HELP}`,
};

/** Blocks for every change; renames and deletions cannot be written as blocks. */
function blocksFor(changes: readonly FileChange[], maxContextLines: number): EditBlock[] | { reason: string; message: string } {
  const blocks: EditBlock[] = [];
  for (const c of changes) {
    if (c.newPath === null || (c.oldPath !== null && c.oldPath !== c.newPath)) {
      return { reason: 'sr_unrepresentable', message: `${c.oldPath}: a ${c.newPath === null ? 'deletion' : 'rename'} has no SEARCH/REPLACE form` };
    }
    // History's changes carry git's patch: the blocks follow its hunks, and no diff is made again.
    const regions = c.diff !== undefined && c.before !== null ? regionsOfDiff(c.diff) : undefined;
    const r = buildBlocks(c.newPath, c.before ?? undefined, c.after ?? '', { maxContextLines, ...(regions ? { regions } : {}) });
    if ('reason' in r) return r;
    blocks.push(...r.blocks);
  }
  return blocks;
}

const beforeFiles = (changes: readonly FileChange[]) =>
  new Map(changes.filter((c) => c.oldPath !== null).map((c) => [c.oldPath!, c.before!] as [string, string]));

function expectedAfter(changes: readonly FileChange[]): Map<string, string> {
  const m = beforeFiles(changes);
  for (const c of changes) if (c.oldPath !== null) m.delete(c.oldPath);
  for (const c of changes) if (c.newPath !== null) m.set(c.newPath, c.after!);
  return m;
}

const sameFiles = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>) =>
  a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);

export interface BuiltEdit {
  doc: Doc;
  changes: FileChange[];
}

export function buildEditSample(cs: ChangeSet, format: EditFormat, opts: EditOptions, seed: number): BuiltEdit | { reason: string; message: string } {
  if (cs.changes.every((c) => c.before === c.after && c.oldPath === c.newPath)) return { reason: 'no_change', message: `${cs.sourceId}: nothing changes` };
  let answer = '';
  if (format !== 'diff') {
    const blocks = blocksFor(cs.changes, opts.maxContextLines);
    if (!Array.isArray(blocks)) return blocks;
    answer = formatBlocks(blocks);
  }
  if (format !== 'sr') {
    try {
      answer += (answer ? '\n' : '') + gitDiff(cs.changes);
    } catch (e) {
      if (!(e instanceof DiffOverBoundError)) throw e;
      return { reason: e.reason, message: `${cs.sourceId}: ${e.message}` };
    }
  }
  const context = cs.context.length > 0;
  const b = new TextBuilder();
  chatml(
    b,
    EDIT_SYSTEM,
    (b, m) => {
      b.text(`${cs.description || '(no description)'}\n\n`, m);
      if (context) appendRepoDocument(b, cs.repo, cs.context, m);
      b.text(`${context ? '\n\n' : ''}${INSTRUCTION[format]}`, m);
    },
    (b) => b.text(answer),
    opts.maskPrompt,
  );
  const built = b.build();
  const files = [...new Set(cs.changes.flatMap((c) => [c.oldPath, c.newPath]).filter((p): p is string => p !== null))];
  const meta: Record<string, unknown> = { source_id: cs.sourceId, format, repo: cs.repo, files, context_files: cs.context.map((f) => f.path) };
  if (cs.commit) meta.commit = cs.commit;
  Object.assign(meta, cs.meta);
  const doc: Doc = { id: stableId(seed, cs.sourceId, format), kind: 'edit', source: cs.repo, text: built.text, meta, special_spans: built.special_spans };
  if (built.loss_mask_spans.length) doc.loss_mask_spans = built.loss_mask_spans;
  return { doc, changes: cs.changes };
}

/**
 * Verifies an edit sample from its answer text: the blocks applied to the before-files give
 * the after-files exactly, and the diff applied in-process gives them too. (Real `git apply
 * --check` runs afterwards, batched.) Returns the failure reason, or null.
 */
export function verifyEditSample(doc: Pick<Doc, 'text' | 'special_spans' | 'meta'>, changes: readonly FileChange[]): string | null {
  const turns = chatTurns(doc);
  const answerTurn = turns[turns.length - 1];
  if (!answerTurn || answerTurn.role !== 'assistant') return 'verify_failed_format';
  const answer = doc.text.slice(answerTurn.start, answerTurn.end);
  const format = doc.meta.format as EditFormat;
  const want = expectedAfter(changes);
  let diffText = answer;
  if (format !== 'diff') {
    const { blocks, rest } = parseBlocks(answer);
    const got = applyBlocks(beforeFiles(changes), blocks);
    if (blocks.length === 0 || 'error' in got || !sameFiles(got, want)) return 'verify_failed_sr';
    diffText = answer.slice(rest);
    if (format === 'sr') return rest === answer.length ? null : 'verify_failed_sr';
  }
  const got = applyGitDiff(beforeFiles(changes), diffText);
  return 'error' in got || !sameFiles(got, want) ? 'verify_failed_diff' : null;
}

function formatsFor(cs: ChangeSet, opts: EditOptions, seed: number, repeat?: number): EditFormat[] {
  const listed = EDIT_FORMATS.filter((f) => (opts.formats.weights[f] ?? 0) > 0);
  if (opts.formats.mode === 'all') return listed;
  const key = repeat ? `${cs.sourceId}#r${repeat}` : cs.sourceId;
  return [new Rng(seed, 'edit-format', key).weighted(opts.formats.weights as Record<EditFormat, number>)];
}

function verifiedSample(cs: ChangeSet, format: EditFormat, opts: EditOptions, seed: number): BuiltEdit | { reason: string; message: string } {
  const built = buildEditSample(cs, format, opts, seed);
  if ('reason' in built) return built;
  const failure = verifyEditSample(built.doc, built.changes);
  return failure ? { reason: failure, message: `${cs.sourceId}: ${format}` } : built;
}

/**
 * Repeat N of a mixture (`ctx.repeat`): the format drawn afresh from the seed and N, under the
 * first use's id (the mixture unit). A redrawn format that cannot be built and verified keeps the first.
 */
function redrawnSample(cs: ChangeSet, first: BuiltEdit, opts: EditOptions, seed: number, repeat: number): BuiltEdit {
  const again = verifiedSample(cs, formatsFor(cs, opts, seed, repeat)[0]!, opts, seed);
  return 'reason' in again ? first : { ...again, doc: { ...again.doc, id: first.doc.id } };
}

export interface EditStats {
  files?: ReturnType<Ledger['toJSON']>;
  samples: Record<string, number>;
  /** Samples not written, by reason (their source record is kept if another sample survived). */
  failed: Record<string, number>;
  failed_examples: Record<string, string[]>;
  git_apply_checked: number;
}

const bump = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);

/**
 * Turns edit units into verified samples. The ledger counts source records (commits, rows):
 * each is kept (at least one sample written) or dropped by reason. Diffs are checked by
 * real `git apply --check` in batches, one batch in git while the next is built (so the checks
 * run on the other core); output order is the order of the units.
 */
export async function* editSamples(units: AsyncIterable<EditUnit>, opts: EditOptions, ctx: StageContext): AsyncIterable<Doc> {
  const stats: EditStats = { samples: {}, failed: {}, failed_examples: {}, git_apply_checked: 0 };
  ctx.stats.edits = stats;
  const st = stats;
  const fail = (reason: string, message: string) => {
    bump(st.failed, reason);
    const ex = (st.failed_examples[reason] ??= []);
    if (ex.length < 5) ex.push(message);
  };
  type Pending = { unit: EditUnit & { changeSets: ChangeSet[] }; samples: BuiltEdit[] };
  let pending: Pending[] = [];
  let pendingDiffs = 0;
  // The batch git is checking while the next one is built (git runs on the other core).
  let checking: { batch: Pending[]; all: BuiltEdit[]; verdicts: Promise<(string | null)[]> } | undefined;

  /** Hands the pending samples' diffs to git apply --check, to be emitted once the next batch is ready. */
  function check(): void {
    const all = pending.flatMap((p) => p.samples.filter((s) => s.doc.meta.format !== 'sr'));
    const verdicts = opts.gitCheck ? gitApplyCheck(all, ctx.workDir) : Promise.resolve(all.map(() => null));
    verdicts.catch(() => undefined); // thrown where it is awaited
    checking = { batch: pending, all, verdicts };
    pending = [];
    pendingDiffs = 0;
  }

  /** The checked batch's samples that git accepted, in order; each unit counted out or dropped. */
  async function* emitChecked(): AsyncIterable<Doc> {
    if (!checking) return;
    const { batch, all } = checking;
    const verdicts = await checking.verdicts;
    checking = undefined;
    st.git_apply_checked += opts.gitCheck ? all.length : 0;
    const rejected = new Set(all.filter((_, i) => verdicts[i] !== null));
    all.forEach((s, i) => verdicts[i] !== null && fail('verify_failed_git_apply', `${s.doc.meta.source_id}: ${verdicts[i]}`));
    for (const p of batch) {
      const kept = p.samples.filter((s) => !rejected.has(s));
      if (kept.length === 0) {
        ctx.ledger.drop('verify_failed', `${p.unit.label}: no sample passed verification`);
        continue;
      }
      ctx.ledger.output();
      for (const s of kept) {
        bump(st.samples, String(s.doc.meta.format));
        ctx.ledger.produce(String(s.doc.meta.format));
        yield s.doc;
      }
    }
  }

  for await (const unit of units) {
    if (!('changeSets' in unit)) {
      ctx.ledger.drop(unit.drop, unit.message);
      continue;
    }
    const samples: BuiltEdit[] = [];
    for (const cs of unit.changeSets) {
      for (const format of formatsFor(cs, opts, ctx.seed)) {
        const built = verifiedSample(cs, format, opts, ctx.seed);
        if ('reason' in built) fail(built.reason, built.message);
        else samples.push(ctx.repeat && opts.formats.mode !== 'all' ? redrawnSample(cs, built, opts, ctx.seed, ctx.repeat) : built);
      }
    }
    if (samples.length === 0) {
      ctx.ledger.drop('no_verified_sample', `${unit.label}: no sample could be built and verified`);
      continue;
    }
    pending.push({ unit, samples });
    pendingDiffs += samples.filter((s) => s.doc.meta.format !== 'sr').length;
    if (pendingDiffs >= opts.gitBatch) {
      yield* emitChecked();
      check();
    }
  }
  yield* emitChecked();
  check();
  yield* emitChecked();
}
