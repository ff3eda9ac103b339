/**
 * Word tokens and bag-of-words overlap: shared by the faithfulness checks of the LLM stages (how
 * much of a rewrite or an answer is new, how much of the source a rewrite keeps), the web stage's
 * duplicate hashes and edge rules, and the evaluation's token-level F1.
 */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function bag(tokens: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/** Tokens two bags share, counted with multiplicity. */
export function overlap(a: Map<string, number>, b: Map<string, number>): number {
  let n = 0;
  for (const [t, c] of a) n += Math.min(c, b.get(t) ?? 0);
  return n;
}

export interface F1 {
  precision: number;
  recall: number;
  f1: number;
}

/** Token-level F1 of a predicted text against a reference text (SQuAD style, over word bags). */
export function tokenF1(predicted: string, reference: string): F1 {
  const p = wordTokens(predicted);
  const r = wordTokens(reference);
  if (p.length === 0 || r.length === 0) return p.length === r.length ? { precision: 1, recall: 1, f1: 1 } : { precision: 0, recall: 0, f1: 0 };
  const common = overlap(bag(p), bag(r));
  const precision = common / p.length;
  const recall = common / r.length;
  return { precision, recall, f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
}
