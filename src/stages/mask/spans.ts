import type { Span } from '../../doc/document.js';
import { addSpan } from '../../doc/text-builder.js';

/** The union of two sorted span lists: sorted, non-overlapping, touching spans merged. */
export function mergeSpans(a: readonly Span[], b: readonly Span[]): Span[] {
  const out: Span[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]![0] <= b[j]![0]) ? a[i++]! : b[j++]!;
    addSpan(out, next[0], next[1]);
  }
  return out;
}

export function spanChars(spans: readonly Span[]): number {
  let n = 0;
  for (const [a, b] of spans) n += b - a;
  return n;
}
