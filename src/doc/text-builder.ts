import type { Span } from './document.js';

/**
 * Builds a document's text from ordinary pieces and special tokens, recording where the
 * special tokens are (`special_spans`) and which pieces are excluded from the loss
 * (`loss_mask_spans`). Stages use it so that only the markers they place become special ids.
 */
export class TextBuilder {
  private parts: string[] = [];
  private length = 0;
  readonly specialSpans: Span[] = [];
  readonly maskSpans: Span[] = [];

  get offset(): number {
    return this.length;
  }

  /** Ordinary text. `masked` excludes it from the loss. */
  text(s: string, masked = false): this {
    if (s.length === 0) return this;
    if (masked) addSpan(this.maskSpans, this.length, this.length + s.length);
    this.parts.push(s);
    this.length += s.length;
    return this;
  }

  /** A special token string such as `<|file_sep|>`: it becomes one special id. */
  special(token: string, masked = false): this {
    this.specialSpans.push([this.length, this.length + token.length]);
    if (masked) addSpan(this.maskSpans, this.length, this.length + token.length);
    this.parts.push(token);
    this.length += token.length;
    return this;
  }

  /** Appends masked spans given relative to a piece about to be added with text(). */
  maskRelative(spans: readonly Span[]): this {
    for (const [a, b] of spans) addSpan(this.maskSpans, this.length + a, this.length + b);
    return this;
  }

  build(): { text: string; special_spans: Span[]; loss_mask_spans: Span[] } {
    return { text: this.parts.join(''), special_spans: this.specialSpans, loss_mask_spans: this.maskSpans };
  }
}

/** Appends [a, b) to a sorted span list, merging with the last span when they touch. */
export function addSpan(spans: Span[], a: number, b: number): void {
  if (b <= a) return;
  const last = spans[spans.length - 1];
  if (last && a <= last[1]) {
    last[1] = Math.max(last[1], b);
  } else {
    spans.push([a, b]);
  }
}
