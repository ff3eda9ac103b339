import type { AnswerParser } from '../../llm/client.js';

/**
 * The answer protocol: exactly `{"qa": [{"question", "answer", "evidence"}, ...]}` or
 * `{"abstain": "reason"}`. Models asked for JSON often wrap it in a Markdown fence, so one fenced
 * block (```json or ```) is accepted around it; anything else (prose, two blocks, another shape)
 * is malformed, which the client retries and then counts. A pair whose fields are not three
 * strings is kept as `undefined` so the stage counts it (`malformed_pair`) without losing the
 * others or the model's order.
 */
export interface RawPair {
  question: string;
  answer: string;
  evidence: string;
}

export type QaAnswer = { kind: 'qa'; pairs: (RawPair | undefined)[] } | { kind: 'abstain'; reason: string };

const FENCED = /^```[\w-]*[ \t]*\n([^]*?)\n?```$/;

/** The JSON text of an answer: the whole answer, or the body of the one fenced block it consists of. */
function jsonText(content: string): string | undefined {
  const t = content.trim();
  if (t.startsWith('{')) return t;
  const fence = FENCED.exec(t);
  return fence && !fence[1]!.includes('```') ? fence[1]!.trim() : undefined;
}

function asPair(v: unknown): RawPair | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const { question, answer, evidence } = v as Record<string, unknown>;
  return typeof question === 'string' && typeof answer === 'string' && typeof evidence === 'string' ? { question, answer, evidence } : undefined;
}

export const parseQaAnswer: AnswerParser<QaAnswer> = (content) => {
  const text = jsonText(content);
  if (text === undefined) return { ok: false, message: 'the answer is not JSON (nor one fenced JSON block)' };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `the answer is not JSON (${(e as Error).message})` };
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { ok: false, message: 'the answer is not a JSON object' };
  const keys = Object.keys(v);
  const o = v as Record<string, unknown>;
  if (keys.length === 1 && keys[0] === 'abstain' && typeof o.abstain === 'string') return { ok: true, value: { kind: 'abstain', reason: o.abstain } };
  if (keys.length === 1 && keys[0] === 'qa' && Array.isArray(o.qa)) return { ok: true, value: { kind: 'qa', pairs: o.qa.map(asPair) } };
  return { ok: false, message: `the answer is neither {"qa": [...]} nor {"abstain": "..."} (keys: ${keys.slice(0, 5).join(', ') || 'none'})` };
};
