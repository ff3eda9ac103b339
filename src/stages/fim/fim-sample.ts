import type { Doc, Span } from '../../doc/document.js';
import { SPECIAL } from '../../doc/specials.js';
import { TextBuilder } from '../../doc/text-builder.js';
import { applyBlocks, buildBlocks, formatBlocks, parseBlocks, MARK_DIVIDER, MARK_REPLACE, MARK_SEARCH } from './search-replace.js';
import { chatml, chatTurns } from './text.js';

/**
 * The FIM sample layouts (special tokens are the tokenizer's own, placed via TextBuilder):
 *
 *   psm       <|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>{middle}
 *   spm       <|fim_prefix|><|fim_suffix|>{suffix}<|fim_middle|>{prefix}{middle}
 *             (the bigcode convention: SPM "variant 2" of Bavarian et al., as bigcode's
 *             Megatron-LM permute() writes it, so the prefix runs straight into the middle)
 *   chat_fim  the psm or spm request as the user turn of a ChatML conversation, the middle
 *             as the assistant turn
 *   sr_fim    ChatML: the file with the middle removed (or replaced by a placeholder the
 *             prompt names) in the user turn, one SEARCH/REPLACE block restoring it as the answer
 *
 * For a repository document the transformed file is written last, after the other files
 * in the repository format, with the FIM tokens in place of its content (the Qwen2.5-Coder
 * repository-level FIM layout), so the middle is what the model writes last.
 */
export type FimOrder = 'psm' | 'spm';

export interface FimParts {
  prefix: string;
  middle: string;
  suffix: string;
}

/**
 * What comes before the file's content (the other files of its repository, in the repository
 * format), appended to the sample's builder with `masked`; returns its `<|file_sep|>` offsets in
 * the builder's text. Appended, not built as a text of its own first: a repository of megabytes
 * is then joined once, as the sample, where a prelude text cost a second join of it.
 */
export type Prelude = (b: TextBuilder, masked: boolean) => number[];

function fimRequest(b: TextBuilder, p: FimParts, order: FimOrder, masked: boolean): void {
  b.special(SPECIAL.fimPrefix, masked);
  if (order === 'psm') b.text(p.prefix, masked).special(SPECIAL.fimSuffix, masked).text(p.suffix, masked);
  else b.special(SPECIAL.fimSuffix, masked).text(p.suffix, masked);
  b.special(SPECIAL.fimMiddle, masked);
  if (order === 'spm') b.text(p.prefix, masked);
}

type Built = { text: string; special_spans: Span[]; loss_mask_spans: Span[] };

/** A FIM sample, with the prelude's `<|file_sep|>` offsets (none without one). */
export function buildFim(p: FimParts, order: FimOrder, prelude?: Prelude): Built & { boundaries: number[] } {
  const b = new TextBuilder();
  const boundaries = prelude ? prelude(b, false) : [];
  fimRequest(b, p, order, false);
  b.text(p.middle);
  return { ...b.build(), boundaries };
}

export const CHAT_FIM_SYSTEM =
  'You are a code completion assistant. The user gives the code before and after a gap; reply with exactly the code that fills the gap.';

export function buildChatFim(p: FimParts, order: FimOrder, maskPrompt: boolean, prelude?: Prelude): Built {
  const b = new TextBuilder();
  chatml(
    b,
    CHAT_FIM_SYSTEM,
    (b, m) => {
      prelude?.(b, m);
      fimRequest(b, p, order, m);
    },
    (b) => b.text(p.middle),
    maskPrompt,
  );
  return b.build();
}

const specialAt = (doc: Pick<Doc, 'text'>, [s, e]: Span) => doc.text.slice(s, e);

/** The last occurrences of the three FIM tokens (the transformed file is always last). */
function fimTokens(doc: Pick<Doc, 'text' | 'special_spans'>): { p: Span; s: Span; m: Span } {
  const spans = doc.special_spans ?? [];
  const find = (tok: string) => [...spans].reverse().find((sp) => specialAt(doc, sp) === tok);
  const p = find(SPECIAL.fimPrefix);
  const s = find(SPECIAL.fimSuffix);
  const m = find(SPECIAL.fimMiddle);
  if (!p || !s || !m || !(p[1] <= s[0] && s[1] <= m[0])) throw new Error('the FIM tokens are missing or out of order');
  return { p, s, m };
}

/**
 * Reads a FIM or chat-FIM sample back into prefix + middle + suffix, from its text and
 * special spans alone: what the verifier compares with the source file.
 */
export function reconstructFim(doc: Pick<Doc, 'text' | 'special_spans'>, order: FimOrder, chat: boolean): string {
  const { p, s, m } = fimTokens(doc);
  const t = doc.text;
  let requestEnd = t.length;
  let middle = '';
  if (chat) {
    const turns = chatTurns(doc);
    const user = turns.find((u) => u.start <= m[0] && m[1] <= u.end);
    const answer = turns[turns.length - 1];
    if (!user || !answer || answer.role !== 'assistant' || answer.start < user.end) throw new Error('chat-FIM turns are not user then assistant');
    requestEnd = user.end;
    middle = t.slice(answer.start, answer.end);
  }
  const suffix = t.slice(s[1], m[0]);
  if (order === 'psm') {
    if (chat && m[1] !== requestEnd) throw new Error('text after <|fim_middle|> in the user turn');
    return t.slice(p[1], s[0]) + (chat ? middle : t.slice(m[1])) + suffix;
  }
  if (p[1] !== s[0]) throw new Error('SPM sample has text between <|fim_prefix|> and <|fim_suffix|>');
  return t.slice(m[1], requestEnd) + middle + suffix;
}

export interface SrFimOptions {
  /** Placeholder text written where the middle was; '' removes the middle without a mark. */
  placeholder: string;
  maxContextLines: number;
  maskPrompt: boolean;
}

export const SR_SYSTEM = 'You are a coding assistant. You change files by writing SEARCH/REPLACE edit blocks.';

export const SR_FORMAT_HELP =
  `Each block is the file path on its own line, then ${MARK_SEARCH}, lines that occur exactly once in the file, ` +
  `${MARK_DIVIDER}, the lines that replace them, and ${MARK_REPLACE}.`;

/**
 * The file with its middle taken out. A placeholder ends with a newline exactly when what it
 * stands for does, so the file keeps its final-newline state (the block format cannot change it).
 */
export function holedFile(p: FimParts, placeholder: string): string {
  if (!placeholder) return p.prefix + p.suffix;
  const endsLine = p.suffix ? p.middle.endsWith('\n') : (p.prefix + p.middle).endsWith('\n');
  return p.prefix + placeholder + (endsLine ? '\n' : '') + p.suffix;
}

export type SrFimResult = { built: Built; holed: string } | { reason: string; message: string };

/**
 * `files(holed)` serializes the file (last) with its repository context; the instruction
 * comes first so the holed file runs to the end of the user turn.
 */
export function buildSrFim(path: string, p: FimParts, opts: SrFimOptions, files: (holed: string) => Prelude): SrFimResult {
  const source = p.prefix + p.middle + p.suffix;
  const holed = holedFile(p, opts.placeholder);
  const r = buildBlocks(path, holed, source, { maxContextLines: opts.maxContextLines, oneBlock: true });
  if ('reason' in r) return r;
  const where = opts.placeholder ? `at the place marked ${opts.placeholder}` : 'in one place';
  const instruction = `Code is missing from ${path} ${where}. Write one SEARCH/REPLACE block that restores it. ${SR_FORMAT_HELP}\n\n`;
  const b = new TextBuilder();
  chatml(
    b,
    SR_SYSTEM,
    (b, m) => {
      b.text(instruction, m);
      files(holed)(b, m);
    },
    (b) => b.text(formatBlocks(r.blocks)),
    opts.maskPrompt,
  );
  return { built: b.build(), holed };
}

/**
 * Checks an S&R FIM sample from its text: the file after the last `<|file_sep|>` of the user
 * turn, with the answer's blocks applied, must equal the source exactly, and there is one block.
 */
export function verifySrFim(doc: Pick<Doc, 'text' | 'special_spans'>, path: string, source: string): string | null {
  const turns = chatTurns(doc);
  const user = turns.find((t) => t.role === 'user');
  const answer = turns[turns.length - 1];
  if (!user || !answer || answer.role !== 'assistant') return 'turns are not user then assistant';
  const seps = (doc.special_spans ?? []).filter((sp) => specialAt(doc, sp) === SPECIAL.fileSep && sp[1] <= user.end);
  const last = seps[seps.length - 1];
  if (!last || last[0] < user.start) return 'no file in the user turn';
  const header = `${path}\n`;
  if (!doc.text.startsWith(header, last[1])) return 'the last file is not the transformed one';
  const holed = doc.text.slice(last[1] + header.length, user.end);
  const { blocks, rest } = parseBlocks(doc.text.slice(answer.start, answer.end));
  if (blocks.length !== 1 || rest !== answer.end - answer.start) return `the answer is not exactly one block (${blocks.length})`;
  const applied = applyBlocks(new Map([[path, holed]]), blocks);
  if ('error' in applied) return applied.error;
  return applied.get(path) === source ? null : 'applying the block does not restore the source';
}
