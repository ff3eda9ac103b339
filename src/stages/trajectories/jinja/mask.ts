import type { Template } from '@huggingface/jinja';
import type { Span } from '../../../doc/document.js';
import { addSpan } from '../../../doc/text-builder.js';
import type { LossOn, Rendered } from '../chatml.js';
import { REASONS, TrajectoryError, type Trajectory } from '../model.js';
import { LOOP_END, MARK, MARK_END, TEMPLATE_DATE, pyStr, renderTemplate, strftime, templateFailure } from './engine.js';
import { TemplateLimit, rowBounds, type TemplateBounds } from './bounds.js';
import { toChatRow, type ChatRow } from './row.js';

/**
 * A trajectory through a model's own chat template, with its loss mask, special spans and turn
 * boundaries. The method (docs/trajectories.md, "Loss masks for any template"), in three renders:
 *
 * 1. The real text R: the template's render of the row (what `apply_chat_template` returns).
 * 2. A skeleton C: every non-blank string of the row (contents, reasoning, tool results, string
 *    argument values, tool descriptions) replaced by a unique placeholder `U+E000 <n> U+E001`,
 *    rendered with marks where each loop iteration over a message starts (engine.ts adds them to
 *    the text a loop returns; the template's logic never sees them). C without its marks is
 *    aligned to R: its template text must match byte for byte, and each placeholder its string as
 *    the template wrote it (as is, trimmed, JSON-escaped, or inside Python's repr()). When they do
 *    not align (a template that branches on a string's text), the sample is dropped as
 *    `mask_unmapped`, never guessed.
 * 3. The generation prompt: the render of the messages before the first assistant one with
 *    `add_generation_prompt`, less the render without it (kept per template, settings and the
 *    roles before that message, so most trajectories need only the first two renders).
 *
 * Each assistant message is in the loss from where its iteration starts, past the generation
 * prompt it begins with, to the next mark (the next message's iteration, or the loop's end), less
 * trailing whitespace: its content, the reasoning the template keeps, its calls and its
 * end-of-turn token. Everything else is masked. Turn boundaries are the marked iteration starts.
 * Placeholders missing from C are content the template dropped, counted by reason. Special spans
 * are only in the template's own text (never inside a string of the row), and only strings that
 * are added tokens of the packing tokenizer.
 */
export interface ChatTemplate {
  /** The name documents carry in `meta.template`. */
  name: string;
  /** Where it was read from. */
  source: string;
  template: Template;
  /** A named list's `tool_use` template: used for trajectories with tools, as transformers does. */
  toolUse?: Template;
  bosToken?: string;
  eosToken?: string;
  /** Tool-call arguments passed as JSON strings (see row.ts). */
  jsonArguments: boolean;
}

/** Finds the packing tokenizer's special-token strings in the given ranges (ascending) of a text. */
export type SpecialFinder = (text: string, ranges: readonly Span[], out: Span[]) => void;

export interface JinjaRenderOptions {
  lossOn: LossOn;
  kwargs: Record<string, unknown>;
  specials: SpecialFinder;
  /** Bounds on each render (bounds.ts); none: the engine unbounded (benchmarks compare the two). */
  bounds?: TemplateBounds;
  /** The date `strftime_now` answers for (default TEMPLATE_DATE). */
  date?: Date;
}

/** What a template dropped of the trajectory, by reason. */
export const DROP_REASONS = ['reasoning', 'tool_call', 'text_beside_call', 'assistant_content', 'tool_result', 'user_content', 'system_content', 'tool_description'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export interface JinjaSample {
  rendered: Rendered;
  dropped: Partial<Record<DropReason, number>>;
  /** `None` written for a content the input gave as null, as Python's Jinja writes it (transformers passes the null on). */
  nullContentPrinted: number;
}

const OPEN = '\uE000';
const CLOSE = '\uE001';

/** Where each placeholder's string came from, for the drop counts. */
interface Owner {
  message: number;
  reason: DropReason;
  /** Index of the call, for `tool_call`. */
  call?: number;
}

export interface Skeleton {
  row: ChatRow;
  values: string[];
  owners: Owner[];
}

export function skeleton(row: ChatRow): Skeleton {
  const values: string[] = [];
  const owners: Owner[] = [];
  const hold = (v: unknown, owner: Owner): unknown => {
    // Blank strings stay as they are: templates branch on `content.strip()`, and they hold no text to find.
    if (typeof v !== 'string' || v.trim() === '') return v;
    owners.push(owner);
    // The placeholder holds the quotes its string holds, so that Python's repr() picks the same quotes for both.
    return `${OPEN}${values.push(v) - 1}${v.includes("'") ? "'" : ''}${v.includes('"') ? '"' : ''}${CLOSE}`;
  };
  const messages = row.messages.map((m, k) => {
    const role = m.role as string;
    const calls = m.tool_calls as { function: { arguments: unknown } }[] | undefined;
    const content: DropReason = role === 'assistant' ? (calls ? 'text_beside_call' : 'assistant_content') : role === 'tool' ? 'tool_result' : role === 'system' ? 'system_content' : 'user_content';
    const o: Record<string, unknown> = { ...m, content: hold(m.content, { message: k, reason: content }) };
    if (m.reasoning_content !== undefined) o.reasoning_content = hold(m.reasoning_content, { message: k, reason: 'reasoning' });
    if (calls) {
      o.tool_calls = calls.map((c, n) => {
        const args = c.function.arguments;
        const held = typeof args === 'string' ? hold(args, { message: k, reason: 'tool_call', call: n }) : deepHold(args, (v) => hold(v, { message: k, reason: 'tool_call', call: n }));
        return { ...c, function: { ...c.function, arguments: held } };
      });
    }
    return o;
  });
  const tools = row.tools && row.tools.map((t) => descriptionsHeld(t, (v) => hold(v, { message: -1, reason: 'tool_description' })) as Record<string, unknown>);
  return { row: { messages, tools }, values, owners };
}

function deepHold(v: unknown, hold: (s: string) => unknown): unknown {
  if (typeof v === 'string') return hold(v);
  if (Array.isArray(v)) return v.map((x) => deepHold(x, hold));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepHold(x, hold)]));
  return v;
}

/** Tool definitions with every `description` string held (names, types and keys stay: templates branch on them). */
function descriptionsHeld(v: unknown, hold: (s: string) => unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => descriptionsHeld(x, hold));
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'description' && typeof x === 'string' ? hold(x) : descriptionsHeld(x, hold)]));
}

/** The skeleton aligned to the real text: C offsets → R offsets at each piece start. */
export interface Alignment {
  cStarts: number[];
  rStarts: number[];
  /** The placeholder index of each piece, or -1 for template text. */
  holds: number[];
  /** Placeholders that C holds at least once. */
  seen: Set<number>;
}

/** How a template may have written a string: as is, trimmed, or inside a JSON string (tried in that order, built only when needed). */
const WRITINGS: ((v: string) => string)[] = [
  (v) => v,
  (v) => v.trim(),
  (v) => v.replace(/^\n+|\n+$/g, ''),
  (v) => v.replace(/^\n+/, ''),
  (v) => v.replace(/\n+$/, ''),
  (v) => v.trimStart(),
  (v) => v.trimEnd(),
  (v) => JSON.stringify(v).slice(1, -1),
  // inside Python's repr() of a list or dict (`| string`, Qwen3-Coder's first template)
  (v) => pyStr(v).slice(1, -1),
];

/** Whether R at r holds C[c, c + n). */
function sameAt(R: string, r: number, C: string, c: number, n: number): boolean {
  if (r + n > R.length) return false;
  for (let i = 0; i < n; i++) if (R.charCodeAt(r + i) !== C.charCodeAt(c + i)) return false;
  return true;
}

/** The writing of v at R[r] that the skeleton's next template text C[c, c + n) follows. */
function written(v: string, R: string, r: number, C: string, c: number, n: number): string | undefined {
  for (const f of WRITINGS) {
    const x = f(v);
    if (R.startsWith(x, r) && sameAt(R, r + x.length, C, c, n)) return x;
  }
  return undefined;
}

export function align(C: string, R: string, values: readonly string[]): Alignment | string {
  const a: Alignment = { cStarts: [], rStarts: [], holds: [], seen: new Set() };
  const re = /\uE000(\d+)[^\uE001]*\uE001/g;
  let c = 0;
  let r = 0;
  let m: RegExpExecArray | null = re.exec(C);
  while (c < C.length) {
    const litEnd = m ? m.index : C.length;
    if (litEnd > c) {
      if (!sameAt(R, r, C, c, litEnd - c)) return `template text at ${r} differs from the skeleton's`;
      a.cStarts.push(c), a.rStarts.push(r), a.holds.push(-1);
      r += litEnd - c;
      c = litEnd;
    }
    if (!m) break;
    const idx = Number(m[1]);
    const next = re.exec(C);
    const afterAt = m.index + m[0].length;
    const w = written(values[idx]!, R, r, C, afterAt, (next ? next.index : C.length) - afterAt);
    if (w === undefined) return `string ${idx} is not written as is, trimmed or JSON-escaped at ${r}`;
    a.cStarts.push(c), a.rStarts.push(r), a.holds.push(idx);
    a.seen.add(idx);
    c += m[0].length;
    r += w.length;
    m = next;
  }
  if (r !== R.length) return `the skeleton ends at ${r} of ${R.length}`;
  a.cStarts.push(C.length), a.rStarts.push(R.length), a.holds.push(-1);
  return a;
}

/** A skeleton offset in the real text (an offset inside a placeholder maps to its start). */
export function toReal(a: Alignment, x: number): number {
  let lo = 0;
  let hi = a.cStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (a.cStarts[mid]! <= x) lo = mid;
    else hi = mid - 1;
  }
  return a.holds[lo] === -1 ? a.rStarts[lo]! + (x - a.cStarts[lo]!) : a.rStarts[lo]!;
}

export function commonPrefix(a: string, b: string, from = 0): number {
  const n = Math.min(a.length, b.length - from);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(from + i)) i++;
  return i;
}

/** A marked render without its marks: where each message's loop iteration starts, and where message loops end. */
export interface Marks {
  text: string;
  /** Message index → offset of its first marked iteration. */
  starts: Map<number, number>;
  /** Every mark offset (iteration starts and loop ends), ascending. */
  cuts: number[];
}

export function stripMarks(marked: string): Marks {
  const re = new RegExp(`${MARK}(\\d+)${MARK_END}|${LOOP_END}`, 'g');
  const parts: string[] = [];
  const starts = new Map<number, number>();
  const cuts: number[] = [];
  let last = 0;
  let length = 0;
  for (let m = re.exec(marked); m; m = re.exec(marked)) {
    parts.push(marked.slice(last, m.index));
    length += m.index - last;
    last = m.index + m[0].length;
    if (m[1] !== undefined && !starts.has(Number(m[1]))) starts.set(Number(m[1]), length);
    if (cuts[cuts.length - 1] !== length) cuts.push(length);
  }
  parts.push(marked.slice(last));
  return { text: parts.join(''), starts, cuts };
}

function context(ct: ChatTemplate, row: ChatRow, addGenerationPrompt: boolean, kwargs: Record<string, unknown>, date: Date): Record<string, unknown> {
  const ctx: Record<string, unknown> = { strftime_now: (format: string) => strftime(format, date) };
  if (ct.bosToken !== undefined) ctx.bos_token = ct.bosToken;
  if (ct.eosToken !== undefined) ctx.eos_token = ct.eosToken;
  return { ...ctx, ...kwargs, messages: row.messages, tools: row.tools, documents: null, add_generation_prompt: addGenerationPrompt };
}

/** A trajectory's row and how its template renders (the row, or any list of messages in its place). */
export interface RowRenderer {
  where: string;
  row: ChatRow;
  render(r: ChatRow, gen?: boolean, mark?: boolean): string;
  /** The generation prompt (see generationPrompt) for the row's skeleton. */
  prompt(sk: ChatRow): string;
  unmapped(why: string): TrajectoryError;
}

export function rowRenderer(t: Trajectory, ct: ChatTemplate, o: JinjaRenderOptions): RowRenderer {
  const where = `${t.source}: ${ct.name}`;
  const row = toChatRow(t, ct.jsonArguments);
  const template = row.tools && ct.toolUse ? ct.toolUse : ct.template;
  const date = o.date ?? TEMPLATE_DATE;
  const bounds = o.bounds && rowBounds(o.bounds, () => JSON.stringify(row).length);
  const render = (r: ChatRow, gen = false, mark = false) => renderTemplate(template, context(ct, r, gen, o.kwargs, date), mark, bounds);
  const settings = JSON.stringify([ct.bosToken, ct.eosToken, o.kwargs, date.getTime()]);
  return {
    where,
    row,
    render,
    prompt: (sk) => generationPrompt(template, settings, sk, (r, gen) => render(r, gen)),
    unmapped: (why) => new TrajectoryError(REASONS.maskUnmapped, `${where}: the loss mask cannot be placed: ${why}`),
  };
}

/** Renders a trajectory with a chat template; throws a TrajectoryError naming the reason it cannot. */
export function renderChatTemplate(t: Trajectory, ct: ChatTemplate, o: JinjaRenderOptions): JinjaSample {
  const rr = rowRenderer(t, ct, o);
  const { row, render } = rr;
  let R: string;
  try {
    R = render(row);
  } catch (e) {
    throw templateFailure(e, rr.where);
  }
  const sk = skeleton(row);
  let marks: Marks;
  try {
    marks = stripMarks(render(sk.row, false, true));
  } catch (e) {
    if (e instanceof TemplateLimit) throw templateFailure(e, rr.where);
    throw rr.unmapped(`the skeleton does not render (${(e as Error).message})`);
  }
  const a = align(marks.text, R, sk.values);
  if (typeof a === 'string') throw rr.unmapped(a);
  let header: string;
  try {
    header = rr.prompt(sk.row);
  } catch (e) {
    throw templateFailure(e, rr.where);
  }
  const spans = assistantSpans(row, marks, header, R, a, o.lossOn);
  const rendered = finish(R, a, spans, o, boundaryStarts(row, marks, a));
  return { rendered, dropped: dropped(sk, a.seen), nullContentPrinted: nullPrinted(row, R, render) };
}

/**
 * How many `None`s the template wrote for contents the input gave as null: the render against
 * one with those contents '' (rendered only for a row that has a null content).
 */
export function nullPrinted(row: ChatRow, R: string, render: (r: ChatRow) => string): number {
  if (!row.messages.some((m) => m.content === null)) return 0;
  const blank = render({ ...row, messages: row.messages.map((m) => (m.content === null ? { ...m, content: '' } : m)) });
  const count = (s: string) => s.split('None').length - 1;
  return Math.max(0, count(R) - count(blank));
}

/**
 * The generation prompt (`<|im_start|>assistant\n`, ...): what `add_generation_prompt` adds
 * before the first assistant message. '' when it cannot be told.
 */
function generationPrompt(template: Template, settings: string, row: ChatRow, render: (r: ChatRow, gen: boolean) => string): string {
  const first = row.messages.findIndex((m) => m.role === 'assistant');
  if (first <= 0) return '';
  // The prompt depends on the template and its settings (kwargs, bos/eos), not on the text: kept per
  // template, settings, the roles before the first assistant message and whether there are tools.
  const key = `${settings}\0${row.tools ? 'tools' : 'none'}\0${row.messages
    .slice(0, first)
    .map((m) => m.role)
    .join(',')}`;
  let cache = prompts.get(template);
  if (!cache) prompts.set(template, (cache = new Map()));
  const known = cache.get(key);
  if (known !== undefined) return known;
  const before = { ...row, messages: row.messages.slice(0, first) };
  let prompt = '';
  try {
    const without = render(before, false);
    const withPrompt = render(before, true);
    prompt = withPrompt.startsWith(without) ? withPrompt.slice(without.length) : '';
  } catch (e) {
    // A render past a bound costs the row; not cached: the bounds depend on the row's size.
    if (e instanceof TemplateLimit) throw e;
    prompt = '';
  }
  cache.set(key, prompt);
  return prompt;
}

const prompts = new WeakMap<Template, Map<string, string>>();

/**
 * How much of the generation prompt an assistant iteration begins with: all of it, or a part
 * ending in a newline (Qwen3 with `enable_thinking` false prompts `<|im_start|>assistant\n` and
 * an empty think block that a past turn does not have); never a part cut inside a marker.
 */
function headerLength(header: string, text: string, at: number): number {
  const n = commonPrefix(header, text, at);
  return n === header.length ? n : header.lastIndexOf('\n', n - 1) + 1;
}

/**
 * The real-text spans trained on: each assistant message from where its loop iteration starts,
 * less the part of the generation prompt it begins with, to the next mark, less trailing
 * whitespace.
 */
function assistantSpans(row: ChatRow, marks: Marks, header: string, R: string, a: Alignment, lossOn: LossOn): Span[] {
  if (lossOn === 'all') return [[0, R.length]];
  const assistants = row.messages.flatMap((m, k) => (m.role === 'assistant' && marks.starts.has(k) ? [k] : []));
  const trained = lossOn === 'last-assistant' ? assistants.slice(-1) : assistants;
  const spans: Span[] = [];
  for (const i of trained) {
    const at = marks.starts.get(i)!;
    const next = marks.cuts.find((c) => c > at) ?? marks.text.length;
    const start = toReal(a, Math.min(at + headerLength(header, marks.text, at), next));
    let end = toReal(a, next);
    while (end > start && /\s/.test(R[end - 1]!)) end--;
    if (end > start) spans.push([start, end]);
  }
  return spans;
}

/** Turn starts after the first message: every message's start, except a tool result right after another. */
export function boundaryStarts(row: ChatRow, marks: Marks, a: Alignment): number[] {
  const out: number[] = [];
  for (let k = 1; k < row.messages.length; k++) {
    if (row.messages[k]!.role === 'tool' && row.messages[k - 1]!.role === 'tool') continue;
    const at = marks.starts.get(k);
    if (at === undefined) continue;
    const r = toReal(a, at);
    if (r > (out[out.length - 1] ?? 0)) out.push(r);
  }
  return out;
}

export function finish(R: string, a: Alignment, trained: Span[], o: JinjaRenderOptions, boundaries: number[]): Rendered {
  const mask: Span[] = [];
  let pos = 0;
  for (const [s, e] of trained) {
    addSpan(mask, pos, s);
    pos = e;
  }
  addSpan(mask, pos, R.length);
  const special: Span[] = [];
  const templateText: Span[] = [];
  for (let p = 0; p + 1 < a.cStarts.length; p++) if (a.holds[p] === -1) templateText.push([a.rStarts[p]!, a.rStarts[p + 1]!]);
  o.specials(R, templateText, special);
  return { text: R, special_spans: special, loss_mask_spans: mask, boundaries, turns: boundaries.length + 1 };
}

/** The placeholders never seen (`seen`: those the renders hold), by reason; a call counts once, when none of its strings is seen. */
export function dropped(sk: Skeleton, seen: ReadonlySet<number>): JinjaSample['dropped'] {
  const out: JinjaSample['dropped'] = {};
  const calls = new Map<string, boolean>();
  sk.owners.forEach((w, idx) => {
    if (w.reason === 'tool_call') {
      const key = `${w.message}:${w.call}`;
      calls.set(key, (calls.get(key) ?? false) || seen.has(idx));
    } else if (!seen.has(idx)) out[w.reason] = (out[w.reason] ?? 0) + 1;
  });
  for (const kept of calls.values()) if (!kept) out.tool_call = (out.tool_call ?? 0) + 1;
  return out;
}
