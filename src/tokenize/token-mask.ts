import type { Span } from '../doc/document.js';
import type { Encoded } from './tokenizer.js';

/**
 * The token-level loss mask from character spans, exactly: a token is excluded from the loss
 * iff every character it covers lies in a masked span. 1 = trained on, 0 = masked. The
 * end-of-text token covers no character and is always trained on.
 */
export function tokenLossMask(enc: Encoded, maskSpans: readonly Span[] | undefined): Uint8Array {
  const mask = new Uint8Array(enc.ids.length).fill(1);
  if (maskSpans && maskSpans.length) markLossMask(enc, maskSpans, mask);
  return mask;
}

/** Each token's character range [start, end), aligned with its ids: all a loss mask is placed from. */
export type TokenRanges = Pick<Encoded, 'starts' | 'ends'>;

/** Clears (to 0) the entries of `mask` (all 1 on entry) for the tokens inside `maskSpans`; returns how many. */
export function markLossMask(enc: TokenRanges, maskSpans: readonly Span[], mask: Uint8Array): number {
  const n = enc.starts.length;
  const spans = mergeTouching(maskSpans);
  let k = 0;
  let masked = 0;
  for (let i = 0; i < n; i++) {
    const s = enc.starts[i]!;
    const e = enc.ends[i]!;
    if (e <= s) continue;
    while (k < spans.length && spans[k]![1] <= s) k++;
    const span = spans[k];
    if (span && span[0] <= s && e <= span[1]) {
      mask[i] = 0;
      masked++;
    }
  }
  return masked;
}

/** Sorted spans with touching or overlapping neighbours merged, so a token across a seam counts as inside. */
export function mergeTouching(spans: readonly Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const out: Span[] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else if (b > a) out.push([a, b]);
  }
  return out;
}

/**
 * Character offsets where a chunk may start (each at a special token, so always a token
 * boundary) into token offsets, for the `boundary` overlong policy.
 */
export function boundaryTokens(enc: Encoded, charOffsets: readonly number[]): Uint32Array {
  const out: number[] = [];
  let i = 0;
  for (const c of charOffsets) {
    while (i < enc.ids.length && enc.starts[i]! < c) i++;
    if (i < enc.ids.length && enc.starts[i] === c && (out.length === 0 || out[out.length - 1]! < i)) out.push(i);
  }
  return Uint32Array.from(out);
}
