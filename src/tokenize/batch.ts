import type { MidTokenizer } from './tokenizer.js';
import type { TokenizeRequest, TokenizeResult } from './encode.js';
import { markLossMask, boundaryTokens } from './token-mask.js';
import { TokenizeLimitError } from './limits.js';
import { TokenBuffer } from './token-buffer.js';

/**
 * One batch of documents tokenized into a few flat typed arrays, so a worker's reply is three
 * transferred buffers and a small header whatever the number of documents: no per-document
 * arrays to allocate, transfer, or collect on either thread.
 */
export interface EncodedBatch {
  /** Every document's ids, end-of-text included, back to back. */
  ids: Int32Array;
  /** The loss mask, aligned with `ids` (1 = trained on). */
  mask: Uint8Array;
  /** Each document's boundary token offsets, back to back. */
  boundaries: Uint32Array;
  /** Per document: its token count, or -1 when it failed (see `failures`). */
  lens: Int32Array;
  /** Per document: how many boundaries it has in `boundaries`. */
  boundaryCounts: Uint32Array;
  /** Per document: tokens excluded from the loss. */
  masked: Int32Array;
  /** With `ranges`: each token's character range [start, end) in UTF-16 units of its document, aligned with `ids`. */
  starts?: Int32Array;
  ends?: Int32Array;
  failures: { doc: number; error: string; reason?: string }[];
}

/** Above this many tokens of capacity the worker's scratch buffer is dropped after a batch (a huge document). */
const KEEP_SCRATCH_TOKENS = 1 << 22;
let scratch = new TokenBuffer(1 << 16);

/**
 * `ranges`: the tokens' character ranges come back too, so a loss mask from spans known only
 * later (a run's masking, whose counts are complete once preparing ends) is placed without
 * tokenizing again (markLossMask on them gives the mask this function gives).
 */
export function encodeBatch(tokenizer: MidTokenizer, docs: readonly TokenizeRequest[], ranges = false): EncodedBatch {
  const n = docs.length;
  const out = scratch;
  out.length = 0;
  const lens = new Int32Array(n);
  const boundaryCounts = new Uint32Array(n);
  const masked = new Int32Array(n);
  const failures: EncodedBatch['failures'] = [];
  const boundaryParts: Uint32Array[] = [];
  const spans: { at: number; doc: number }[] = [];
  for (let d = 0; d < n; d++) {
    const at = out.length;
    try {
      tokenizer.encodeDocInto(docs[d]!, out);
    } catch (e) {
      out.length = at;
      lens[d] = -1;
      failures.push({ doc: d, error: (e as Error).message, reason: e instanceof TokenizeLimitError ? e.reason : undefined });
      continue;
    }
    lens[d] = out.length - at;
    spans.push({ at, doc: d });
    const b = docs[d]!.boundaries;
    if (b && b.length) {
      const part = boundaryTokens(docView(out, at, out.length), b);
      boundaryCounts[d] = part.length;
      boundaryParts.push(part);
    }
  }
  const total = out.length;
  const mask = new Uint8Array(total).fill(1);
  for (const { at, doc } of spans) {
    const req = docs[doc]!;
    if (req.loss_mask_spans && req.loss_mask_spans.length) masked[doc] = markLossMask(docView(out, at, at + lens[doc]!), req.loss_mask_spans, mask.subarray(at, at + lens[doc]!));
  }
  const result: EncodedBatch = { ids: out.ids.slice(0, total), mask, boundaries: concatU32(boundaryParts), lens, boundaryCounts, masked, failures };
  if (ranges) {
    result.starts = out.starts.slice(0, total);
    result.ends = out.ends.slice(0, total);
  }
  if (out.ids.length > KEEP_SCRATCH_TOKENS) scratch = new TokenBuffer(1 << 16);
  return result;
}

/** The per-document results of a batch: views into its arrays, no copies. */
export function splitBatch(b: EncodedBatch): TokenizeResult[] {
  const results: TokenizeResult[] = new Array(b.lens.length);
  for (const f of b.failures) results[f.doc] = { error: f.error, reason: f.reason };
  let at = 0;
  let bAt = 0;
  for (let d = 0; d < b.lens.length; d++) {
    const len = b.lens[d]!;
    if (len < 0) continue;
    const nb = b.boundaryCounts[d]!;
    results[d] = { ids: b.ids.subarray(at, at + len), mask: b.mask.subarray(at, at + len), boundaries: b.boundaries.subarray(bAt, bAt + nb), masked: b.masked[d]! };
    if (b.starts && b.ends) {
      results[d]!.starts = b.starts.subarray(at, at + len);
      results[d]!.ends = b.ends.subarray(at, at + len);
    }
    at += len;
    bAt += nb;
  }
  return results;
}

function docView(out: TokenBuffer, from: number, to: number) {
  return { ids: out.ids.subarray(from, to), starts: out.starts.subarray(from, to), ends: out.ends.subarray(from, to) };
}

function concatU32(parts: Uint32Array[]): Uint32Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint32Array(n);
  n = 0;
  for (const p of parts) {
    out.set(p, n);
    n += p.length;
  }
  return out;
}
