import type { Span } from '../../doc/document.js';
import { SPECIAL } from '../../doc/specials.js';
import { TextBuilder } from '../../doc/text-builder.js';
import { REASONS, TrajectoryError, type Message, type ToolDef, type Trajectory } from './model.js';

/**
 * ChatML, the frame every template shares: `<|im_start|>ROLE\nCONTENT<|im_end|>\n` per turn.
 * A template writes the contents (tools in the system turn, calls in assistant turns); this
 * file lays out the turns, the loss mask and the turn boundaries, and reads the frame back.
 *
 * Loss mask: a trained turn is trained on from its content through its `<|im_end|>`; the
 * `<|im_start|>ROLE\n` before and the newline after stay out of the loss, as chat fine-tuning
 * does. With `all` every character is trained on.
 */
export const LOSS_ON = ['assistant', 'all', 'last-assistant'] as const;
export type LossOn = (typeof LOSS_ON)[number];

/** Where a template writes: ordinary text and the special tokens it places. */
export interface Piece {
  text(s: string): void;
  special(token: string): void;
}

/** A turn's content as parsed back: its text and the special tokens inside it (offsets relative to the content). */
export interface ParsedContent {
  text: string;
  specials: { token: string; start: number; end: number }[];
}

/** What a template's system-turn parser recovers. */
export interface ParsedHeader {
  content: string;
  /** Tool name → parameter name → declared JSON type (undefined when not declared). */
  tools: Map<string, Map<string, string | undefined>>;
}

export interface Template {
  name: string;
  /** `grouped`: consecutive tool results in one user turn as `<tool_response>` blocks; `each`: a plain user turn per result. */
  toolResults: 'grouped' | 'each';
  /** Grouped results: a newline `between` blocks (Qwen2.5), or `after` each one (Qwen3-Coder). Default `between`. */
  resultNewline?: 'between' | 'after';
  /** The system turn's text when the input had no system message; undefined: no system turn then (given no tools either). */
  defaultSystem?(t: Trajectory): string | undefined;
  /** The messages as the format keeps them (e.g. content beside calls trimmed), what a parse gives back. Default: as they are. */
  kept?(t: Trajectory): Message[];
  /** Whether the system turn lists the trajectory's tools (the verification checks the names it lists). */
  listsTools(t: Trajectory): boolean;
  system(w: Piece, content: string, t: Trajectory): void;
  assistant(w: Piece, m: Message): void;
  parseSystem(c: ParsedContent): ParsedHeader;
  parseAssistant(c: ParsedContent, header: ParsedHeader): Message;
}

export interface Rendered {
  text: string;
  special_spans: Span[];
  loss_mask_spans: Span[];
  /** Character offsets of the turn starts after the header; boundaries[0] is where the header ends. */
  boundaries: number[];
  turns: number;
}

export function parseError(message: string): never {
  throw new TrajectoryError(REASONS.roundtrip, message);
}

/** Which message indexes are trained on. */
function trainedTurns(messages: readonly Message[], lossOn: LossOn): (i: number) => boolean {
  if (lossOn === 'all') return () => true;
  if (lossOn === 'assistant') return (i) => messages[i]!.role === 'assistant';
  let last = -1;
  messages.forEach((m, i) => m.role === 'assistant' && (last = i));
  return (i) => i === last;
}

/**
 * One turn, `<|im_start|>ROLE\nCONTENT<|im_end|>\n`, the loss mask as the file header says: a
 * trained turn from its content through its `<|im_end|>`; with `all`, every character. Every
 * ChatML sample midpack writes (trajectories, synth-qa) lays its turns out through this.
 */
export function writeTurn(b: TextBuilder, role: string, train: boolean, body: (w: Piece) => void, all = false): void {
  b.special(SPECIAL.imStart, !all).text(`${role}\n`, !all);
  body({ text: (s) => void b.text(s, !train), special: (tok) => void b.special(tok, !train) });
  b.special(SPECIAL.imEnd, !train).text('\n', !all);
}

/** Renders a trajectory with a template. */
export function renderTrajectory(t: Trajectory, tpl: Template, lossOn: LossOn): Rendered {
  const b = new TextBuilder();
  const trained = trainedTurns(t.messages, lossOn);
  const all = lossOn === 'all';
  const boundaries: number[] = [];
  let turns = 0;
  const turn = (role: string, train: boolean, body: (w: Piece) => void) => {
    if (turns > 0) boundaries.push(b.offset);
    turns++;
    writeTurn(b, role, train, body, all);
  };
  const msgs = t.messages;
  const system = t.noSystem && tpl.defaultSystem ? tpl.defaultSystem(t) : msgs[0]!.content;
  if (system !== undefined) turn('system', trained(0), (w) => tpl.system(w, system, t));
  for (let i = 1; i < msgs.length; i++) {
    const m = msgs[i]!;
    if (m.role === 'assistant') turn('assistant', trained(i), (w) => tpl.assistant(w, m));
    else if (m.role === 'tool' && tpl.toolResults === 'grouped') {
      let j = i;
      while (j + 1 < msgs.length && msgs[j + 1]!.role === 'tool') j++;
      const from = i;
      turn('user', trained(i), (w) => {
        const after = tpl.resultNewline === 'after';
        for (let k = from; k <= j; k++) {
          if (k > from && !after) w.text('\n');
          w.special(SPECIAL.toolResponse);
          w.text(`\n${msgs[k]!.content}\n`);
          w.special(SPECIAL.toolResponseEnd);
          if (after) w.text('\n');
        }
      });
      i = j;
    } else turn(m.role === 'tool' ? 'user' : m.role, trained(i), (w) => w.text(m.content));
  }
  return { ...b.build(), boundaries, turns };
}

/** Reads the ChatML frame back: each turn's role and content, by the special spans only. */
export function parseTurns(text: string, specialSpans: readonly Span[]): { role: string; content: ParsedContent }[] {
  const turns: { role: string; content: ParsedContent }[] = [];
  let s = 0;
  let pos = 0;
  while (s < specialSpans.length) {
    const [a, b] = specialSpans[s]!;
    if (a !== pos || text.slice(a, b) !== SPECIAL.imStart) parseError(`offset ${a}: expected ${SPECIAL.imStart}`);
    const nl = text.indexOf('\n', b);
    if (nl < 0) parseError(`offset ${b}: turn without a role line`);
    const role = text.slice(b, nl);
    const specials: ParsedContent['specials'] = [];
    let end = -1;
    for (s++; s < specialSpans.length; s++) {
      const [x, y] = specialSpans[s]!;
      const token = text.slice(x, y);
      if (token === SPECIAL.imEnd) {
        end = x;
        break;
      }
      if (token === SPECIAL.imStart) parseError(`offset ${x}: turn not closed`);
      specials.push({ token, start: x - nl - 1, end: y - nl - 1 });
    }
    if (end < 0) parseError(`turn at ${a} not closed`);
    const close = specialSpans[s]![1];
    if (text[close] !== '\n') parseError(`offset ${close}: expected a newline after ${SPECIAL.imEnd}`);
    turns.push({ role, content: { text: text.slice(nl + 1, end), specials } });
    pos = close + 1;
    s++;
  }
  if (pos !== text.length) parseError(`offset ${pos}: text after the last turn`);
  return turns;
}

/**
 * Parses a rendered trajectory back into messages with the template's own parsers: the check
 * that a sample says what its trajectory said.
 */
export function parseTrajectory(text: string, specialSpans: readonly Span[], tpl: Template): { messages: Message[]; header: ParsedHeader } {
  const turns = parseTurns(text, specialSpans);
  // A format may write no system turn for an input without one (and without tools).
  const hasSystem = turns[0]?.role === 'system';
  if (!hasSystem && !tpl.defaultSystem) parseError('the first turn is not the system turn');
  const header = hasSystem ? tpl.parseSystem(turns[0]!.content) : { content: '', tools: new Map() };
  const messages: Message[] = [{ role: 'system', content: header.content }];
  let openCalls = 0;
  for (const { role, content } of turns.slice(hasSystem ? 1 : 0)) {
    if (role === 'assistant') {
      const m = tpl.parseAssistant(content, header);
      openCalls += m.calls?.length ?? 0;
      messages.push(m);
    } else if (role === 'user' && content.specials.length && tpl.toolResults === 'grouped') {
      for (const r of toolResponses(content, tpl.resultNewline === 'after')) messages.push({ role: 'tool', content: r });
      openCalls = 0;
    } else if (role === 'user' && tpl.toolResults === 'each' && openCalls > 0) {
      messages.push({ role: 'tool', content: content.text });
      openCalls--;
    } else if (role === 'user' || role === 'system') {
      if (content.specials.length) parseError(`a ${role} turn holds special tokens`);
      messages.push({ role, content: content.text });
      openCalls = 0;
    } else parseError(`unknown role "${role}"`);
  }
  return { messages, header };
}

/** The `<tool_response>\n...\n</tool_response>` blocks of a user turn, a newline between them or after each. */
function toolResponses(c: ParsedContent, newlineAfter: boolean): string[] {
  const out: string[] = [];
  let pos = 0;
  const sp = c.specials;
  if (sp.length % 2) parseError('unbalanced tool_response tokens');
  for (let i = 0; i < sp.length; i += 2) {
    const open = sp[i]!;
    const close = sp[i + 1]!;
    if (open.token !== SPECIAL.toolResponse || close.token !== SPECIAL.toolResponseEnd) parseError('expected <tool_response> ... </tool_response>');
    if (c.text.slice(pos, open.start) !== (i && !newlineAfter ? '\n' : '')) parseError('text between tool responses');
    const body = c.text.slice(open.end, close.start);
    if (!body.startsWith('\n') || !body.endsWith('\n') || body.length < 2) parseError('a tool response is not framed by newlines');
    out.push(body.slice(1, -1));
    pos = close.end + (newlineAfter ? 1 : 0);
    if (newlineAfter && c.text[close.end] !== '\n') parseError('no newline after a tool response');
  }
  if (pos !== c.text.length) parseError('text after the tool responses');
  return out;
}

/**
 * Splits assistant content into the text before the calls and each call's body (between its
 * `<tool_call>` and `</tool_call>`). Calls follow the text after one newline and each other
 * after one newline.
 */
export function splitCalls(c: ParsedContent, gap = '\n'): { text: string; bodies: string[] } {
  const sp = c.specials;
  if (sp.length === 0) return { text: c.text, bodies: [] };
  if (sp.length % 2) parseError('unbalanced tool_call tokens');
  const before = c.text.slice(0, sp[0]!.start);
  if (before !== '' && !before.endsWith(gap)) parseError('no newline before the first tool call');
  const bodies: string[] = [];
  for (let i = 0; i < sp.length; i += 2) {
    const open = sp[i]!;
    const close = sp[i + 1]!;
    if (open.token !== SPECIAL.toolCall || close.token !== SPECIAL.toolCallEnd) parseError('expected <tool_call> ... </tool_call>');
    if (i > 0 && c.text.slice(sp[i - 1]!.end, open.start) !== '\n') parseError('text between tool calls');
    bodies.push(c.text.slice(open.end, close.start));
  }
  if (sp[sp.length - 1]!.end !== c.text.length) parseError('text after the last tool call');
  return { text: before === '' ? '' : before.slice(0, -gap.length), bodies };
}

/** Writes assistant text then the calls, the layout splitCalls reads: `gap` after the text, a newline between calls. */
export function writeCalls(w: Piece, m: Message, body: (call: NonNullable<Message['calls']>[number]) => string, gap = '\n'): void {
  const calls = m.calls ?? [];
  w.text(m.content);
  calls.forEach((c, k) => {
    if (k > 0) w.text('\n');
    else if (m.content !== '') w.text(gap);
    w.special(SPECIAL.toolCall);
    w.text(body(c));
    w.special(SPECIAL.toolCallEnd);
  });
}

/** The system turn's own text (even empty, as the Qwen templates write it), then `\n\n` and the tools section. */
export function withToolsSection(content: string, section: string): string {
  return `${content}\n\n${section}`;
}

/** Splits a system turn at the last occurrence of a template's tools preamble. */
export function splitToolsSection(text: string, preamble: string): { content: string; section: string | undefined } {
  const at = text.lastIndexOf(preamble);
  if (at < 0) return { content: text, section: undefined };
  if (at === 0) return { content: '', section: text };
  if (text.slice(at - 2, at) !== '\n\n') return { content: text, section: undefined };
  return { content: text.slice(0, at - 2), section: text.slice(at) };
}

/** Parameter types from tool definitions, the form parsers use. */
export function toolTypes(tools: readonly ToolDef[]): ParsedHeader['tools'] {
  return new Map(tools.map((t) => [t.name, new Map(Object.entries(t.parameters.properties).map(([k, p]) => [k, typeof p.type === 'string' ? p.type : undefined]))]));
}
