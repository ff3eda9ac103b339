import type { Doc } from '../../doc/document.js';
import { SPECIAL } from '../../doc/specials.js';
import type { TextBuilder } from '../../doc/text-builder.js';

/**
 * One ChatML conversation: system, user, assistant. With `maskPrompt`, everything up to and
 * including `<|im_start|>assistant\n` is excluded from the loss, so only the answer and its
 * closing `<|im_end|>` are trained.
 */
export function chatml(
  b: TextBuilder,
  system: string,
  user: (b: TextBuilder, masked: boolean) => void,
  assistant: (b: TextBuilder) => void,
  maskPrompt: boolean,
): void {
  const m = maskPrompt;
  b.special(SPECIAL.imStart, m).text(`system\n${system}`, m).special(SPECIAL.imEnd, m).text('\n', m);
  b.special(SPECIAL.imStart, m).text('user\n', m);
  user(b, m);
  b.special(SPECIAL.imEnd, m).text('\n', m);
  b.special(SPECIAL.imStart, m).text('assistant\n', m);
  assistant(b);
  b.special(SPECIAL.imEnd);
}

export interface ChatTurn {
  role: string;
  /** [start, end) of the turn's content in the document text. */
  start: number;
  end: number;
}

/** Reads the ChatML turns of a sample back from its special spans (what the verifiers check). */
export function chatTurns(doc: Pick<Doc, 'text' | 'special_spans'>): ChatTurn[] {
  const spans = doc.special_spans ?? [];
  const turns: ChatTurn[] = [];
  for (let i = 0; i < spans.length; i++) {
    const [s, e] = spans[i]!;
    if (doc.text.slice(s, e) !== SPECIAL.imStart) continue;
    const nl = doc.text.indexOf('\n', e);
    let j = i + 1;
    while (j < spans.length && doc.text.slice(spans[j]![0], spans[j]![1]) !== SPECIAL.imEnd) j++;
    if (nl < 0 || j >= spans.length) throw new Error('unterminated ChatML turn');
    turns.push({ role: doc.text.slice(e, nl), start: nl + 1, end: spans[j]![0] });
    i = j;
  }
  return turns;
}

/** How many times `needle` occurs in `hay` (overlaps included), counting no further than `limit`. */
export function countOccurrences(hay: string, needle: string, limit = 2): number {
  let n = 0;
  for (let at = hay.indexOf(needle); at >= 0 && n < limit; at = hay.indexOf(needle, at + 1)) n++;
  return n;
}

/** Splits text into lines that keep their '\n' (a last line without one stays as it is). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl + 1;
    lines.push(text.slice(at, end));
    at = end;
  }
  return lines;
}

/** Offsets where lines start, plus the text length: the places a line-level split may fall. */
export function lineBoundaries(text: string): number[] {
  const out = [0];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) out.push(at + 1);
  if (out[out.length - 1] !== text.length) out.push(text.length);
  return out;
}

/** The text of a file, or undefined when it is binary for our purposes: a NUL byte, or not valid UTF-8. */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
