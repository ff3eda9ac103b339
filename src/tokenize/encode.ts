import type { Doc, Span } from '../doc/document.js';
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
  /**
   * The text as the JSON string literal of ASCII characters it was read from (quotes included),
   * `text` then empty: a document of a JSONL line read in a worker (line-docs.ts), tokenized from
   * these bytes. Never with `special_spans` or `loss_mask_spans`.
   */
  asciiLiteral?: AsciiLiteral;
}

/** A JSON string literal of ASCII characters (its bytes, quotes included) and the length of the text it stands for. */
export interface AsciiLiteral {
  bytes: Uint8Array;
  length: number;
}

export interface TokenizeResult {
  ids?: Int32Array;
  /** 1 = trained on, 0 = excluded from the loss. */
  mask?: Uint8Array;
  /** Token offsets of the boundaries; the header is tokens [0, boundaries[0]). */
  boundaries?: Uint32Array;
  masked?: number;
  /** Each token's character range [start, end) (UTF-16 units), when the pool was asked for them (encodeBatch `ranges`). */
  starts?: Int32Array;
  ends?: Int32Array;
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

/**
 * Why a document cannot be tokenized, as its ledger reason and message; undefined when it can.
 * The pack job checks this on the main thread (documents handed over as strings) or in its
 * workers (documents read from JSONL there).
 */
export function untokenizable(doc: Doc): { drop: string; message: string } | undefined {
  if (doc.text.length === 0) return { drop: 'empty_text', message: `${doc.source} (${doc.id}): empty text` };
  if (!(doc.text as unknown as { isWellFormed(): boolean }).isWellFormed()) return { drop: 'invalid_unicode', message: `${doc.source} (${doc.id}): text has unpaired UTF-16 surrogates` };
  return undefined;
}

/** What the pack step tokenizes of a document. */
export function packRequest(doc: Doc): TokenizeRequest {
  // Repositories cut at file starts, trajectories at turn starts; both repeat the header before the first boundary.
  const boundaries = Array.isArray(doc.meta.boundaries) && (doc.kind === 'repo' || doc.kind === 'trajectory') ? (doc.meta.boundaries as number[]) : undefined;
  return { text: doc.text, special_spans: doc.special_spans, loss_mask_spans: doc.loss_mask_spans, boundaries };
}
