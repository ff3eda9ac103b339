import type { Span } from '../doc/document.js';
import type { MidTokenizer } from './tokenizer.js';
import { boundaryTokens, tokenLossMask } from './token-mask.js';
import { TokenizeLimitError } from './limits.js';

/** What the pack step needs tokenized from a document. */
export interface TokenizeRequest {
  text: string;
  special_spans?: Span[];
  loss_mask_spans?: Span[];
  /** Character offsets where the `boundary` policy may cut (repository file starts). */
  boundaries?: number[];
}

export interface TokenizeResult {
  ids?: Int32Array;
  /** 1 = trained on, 0 = excluded from the loss. */
  mask?: Uint8Array;
  /** Token offsets of the boundaries; the header is tokens [0, boundaries[0]). */
  boundaries?: Uint32Array;
  masked?: number;
  /** Set when the document cannot be tokenized (bad special span...): counted, not fatal. */
  error?: string;
  /** The ledger reason for `error` (tokenize_failed unless a size limit was hit). */
  reason?: string;
}

export function encodeForPacking(tokenizer: MidTokenizer, req: TokenizeRequest): TokenizeResult {
  try {
    const enc = tokenizer.encodeDoc(req);
    const mask = tokenLossMask(enc, req.loss_mask_spans);
    let masked = 0;
    for (let i = 0; i < mask.length; i++) masked += 1 - mask[i]!;
    const boundaries = boundaryTokens(enc, req.boundaries ?? []);
    return { ids: enc.ids, mask, boundaries, masked };
  } catch (e) {
    return { error: (e as Error).message, reason: e instanceof TokenizeLimitError ? e.reason : undefined };
  }
}
