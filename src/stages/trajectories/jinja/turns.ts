import type { Span } from '../../../doc/document.js';
import type { LossOn, Rendered } from '../chatml.js';
import { REASONS, TrajectoryError, type Trajectory } from '../model.js';
import { templateFailure } from './engine.js';
import { TemplateLimit } from './bounds.js';
import { align, boundaryStarts, commonPrefix, dropped, finish, rowRenderer, skeleton, stripMarks, toReal, type ChatTemplate, type DropReason, type JinjaRenderOptions, type JinjaSample, type RowRenderer, type Skeleton } from './mask.js';
import type { ChatRow } from './row.js';

/**
 * Turn-faithful samples (`--turns faithful`): each assistant turn in the loss, in the text the
 * template gives the model while that turn is generated. For the assistant message i:
 *
 *   G = render(messages[:i], add_generation_prompt=True)      the context, prompt included
 *   F = render(messages[:i + 1])                               the turn rendered as the last message
 *   the turn as the model writes it, T:
 *     - F less G, when F begins with G (the template renders the earlier messages the same);
 *     - else, from a probe: the same two renders with only the conversation's opening (the system
 *       messages and the first user message) before the turn: Y = render(opening + [message i]),
 *       Y0 = render(opening, add_generation_prompt=True); T is Y less Y0, or, where Y leaves Y0
 *       inside the generation prompt, Y from the last newline they share (MiniMax-M2 prompts
 *       `<think>\n`, which a turn without reasoning does not have). F must end with T, or the
 *       trajectory is dropped as `mask_unmapped`.
 *   the sample: G followed by T; only T (less trailing whitespace) is in the loss.
 *
 * Consecutive turns whose samples nest (the later one begins with the earlier) are one sample,
 * and the last sample runs on to the whole render when that begins with it (tool results after
 * the last turn), so a template that renders every turn the same way later gives exactly the
 * whole render. Everything is derived from renders of the template: no rule of any template is
 * written here. scripts/render_chat_templates.py --turns faithful derives the same texts from transformers.
 *
 * Special spans and turn boundaries come, as for the whole render (mask.ts), from a skeleton
 * render of each sample aligned to its text; so do the strings each sample holds, from which the
 * content dropped by every sample and the reasoning they keep that the whole render drops.
 */
export const TURN_MODES = ['whole', 'faithful', 'auto'] as const;
export type TurnMode = (typeof TURN_MODES)[number];

export interface TurnSample {
  rendered: Rendered;
  /** The row's message indexes of the assistant turns it holds. */
  messages: number[];
  /** Each held turn's own text [start, end): start is where its context (generation prompt included) ends. */
  turnSpans: Span[];
  /** Characters it shares from its start with the previous sample of the trajectory (0 for the first). */
  sharedPrefix: number;
}

export interface FaithfulResult {
  samples: TurnSample[];
  /** Content no sample holds, by reason. */
  dropped: Partial<Record<DropReason, number>>;
  /** Reasoning strings the samples hold that the whole render drops. */
  reasoningKept: number;
  /** One sample, the whole render's text: the template is stable on the row. */
  stable: boolean;
}

/** A run of nesting turns: the text of the last one, and each turn's own span. */
interface Chain {
  text: string;
  turns: { message: number; span: Span }[];
  /** The text runs on to the whole render. */
  whole: boolean;
}

/** The turn as the model writes it (see the file comment), or undefined when it cannot be told. */
export function turnText(F: string, G: string, probe: () => [string, string] | undefined): string | undefined {
  if (F.startsWith(G)) return F.slice(G.length);
  const [Y0, Y] = probe() ?? [G, F];
  let T: string;
  if (Y.startsWith(Y0)) T = Y.slice(Y0.length);
  else T = Y.slice(Y0.lastIndexOf('\n', commonPrefix(Y0, Y) - 1) + 1);
  return F.endsWith(T) ? T : undefined;
}

/** The conversation's opening before message i: its system messages and first user message (none: the leading system messages). */
function opening(messages: ChatRow['messages'], i: number): number {
  const user = messages.findIndex((m, k) => k < i && m.role === 'user');
  if (user >= 0) return user + 1;
  let k = 0;
  while (k < i && messages[k]!.role === 'system') k++;
  return k;
}

const upTo = (row: ChatRow, n: number): ChatRow => ({ ...row, messages: row.messages.slice(0, n) });

/** Context and turn text of the assistant message i of a row (real or skeleton); undefined when the turn cannot be told. */
function contextAndTurn(row: ChatRow, i: number, render: RowRenderer['render'], markContext = false): { G: string; T: string | undefined } {
  const G = render(upTo(row, i), true, markContext);
  const plain = markContext ? stripMarks(G).text : G;
  const F = render(upTo(row, i + 1));
  const T = turnText(F, plain, () => {
    const n = opening(row.messages, i);
    if (n >= i) return undefined;
    return [render(upTo(row, n), true), render({ ...row, messages: [...row.messages.slice(0, n), row.messages[i]!] })];
  });
  return { G, T };
}

/** The assistant messages in the loss. */
function trainedTurns(row: ChatRow, lossOn: LossOn): number[] {
  const all = row.messages.flatMap((m, k) => (m.role === 'assistant' ? [k] : []));
  return lossOn === 'last-assistant' ? all.slice(-1) : all;
}

function chains(rr: RowRenderer, lossOn: LossOn, whole: string): Chain[] {
  const out: Chain[] = [];
  for (const i of trainedTurns(rr.row, lossOn)) {
    // transformers renders no empty conversation: a first message from the assistant has no context to be generated in
    if (i === 0) throw new TrajectoryError(REASONS.templateError, `${rr.where}: the first message is the assistant's: no conversation before it to render`);
    const { G, T } = contextAndTurn(rr.row, i, rr.render);
    if (T === undefined) throw rr.unmapped(`assistant message ${i}: its text is not the end of the template's render up to it`);
    const text = G + T;
    const turn = { message: i, span: [G.length, text.length] as Span };
    const last = out[out.length - 1];
    if (last && text.startsWith(last.text)) {
      last.text = text;
      last.turns.push(turn);
    } else out.push({ text, turns: [turn], whole: false });
  }
  const last = out[out.length - 1];
  if (last && whole.startsWith(last.text)) Object.assign(last, { text: whole, whole: true });
  return out;
}

/** The loss spans: each turn's own text less trailing whitespace. */
function trainedSpans(text: string, c: Chain): Span[] {
  const spans: Span[] = [];
  for (const { span } of c.turns) {
    let end = span[1];
    while (end > span[0] && /\s/.test(text[end - 1]!)) end--;
    if (end > span[0]) spans.push([span[0], end]);
  }
  return spans;
}

/**
 * A chain as a sample: its skeleton (the whole skeleton's render, or the context and turn of its
 * last message) aligned to its text for the special spans, the boundaries and the strings held.
 */
function toSample(c: Chain, sk: Skeleton, rr: RowRenderer, o: JinjaRenderOptions, seen: Set<number>): Rendered {
  const lastTurn = c.turns[c.turns.length - 1]!.message;
  let marked: string;
  let turnStart: number | undefined;
  try {
    if (c.whole) marked = rr.render(sk.row, false, true);
    else {
      const { G, T } = contextAndTurn(sk.row, lastTurn, rr.render, true);
      if (T === undefined) throw rr.unmapped(`the skeleton of assistant message ${lastTurn} cannot be cut`);
      marked = G + T;
      const gen = rr.prompt(sk.row);
      const context = stripMarks(G).text;
      turnStart = context.endsWith(gen) ? context.length - gen.length : context.length;
    }
  } catch (e) {
    if (e instanceof TemplateLimit) throw templateFailure(e, rr.where);
    throw e instanceof TrajectoryError ? e : rr.unmapped(`the skeleton does not render (${(e as Error).message})`);
  }
  const marks = stripMarks(marked);
  const a = align(marks.text, c.text, sk.values);
  if (typeof a === 'string') throw rr.unmapped(a);
  for (const x of a.seen) seen.add(x);
  const boundaries = boundaryStarts(rr.row, marks, a);
  if (turnStart !== undefined) {
    const at = toReal(a, turnStart);
    if (at > (boundaries[boundaries.length - 1] ?? 0)) boundaries.push(at);
  }
  return finish(c.text, a, trainedSpans(c.text, c), o, boundaries);
}

/**
 * The faithful samples of a trajectory, beside its whole render (`whole`, from renderChatTemplate:
 * the text a stable template gives, and the reasoning it drops). Throws a TrajectoryError naming
 * the reason it cannot.
 */
export function renderFaithful(t: Trajectory, ct: ChatTemplate, o: JinjaRenderOptions, whole: JinjaSample): FaithfulResult {
  const rr = rowRenderer(t, ct, o);
  let cs: Chain[];
  try {
    cs = chains(rr, o.lossOn, whole.rendered.text);
  } catch (e) {
    throw templateFailure(e, rr.where);
  }
  const sk = skeleton(rr.row);
  const seen = new Set<number>();
  const samples: TurnSample[] = cs.map((c, k) => ({
    rendered: toSample(c, sk, rr, o, seen),
    messages: c.turns.map((x) => x.message),
    turnSpans: c.turns.map((x) => x.span),
    sharedPrefix: k === 0 ? 0 : commonPrefix(cs[k - 1]!.text, c.text),
  }));
  const droppedNow = dropped(sk, seen);
  const reasoningKept = Math.max(0, (whole.dropped.reasoning ?? 0) - (droppedNow.reasoning ?? 0));
  const stable = cs.length === 1 && cs[0]!.text === whole.rendered.text;
  return { samples, dropped: droppedNow, reasoningKept, stable };
}
