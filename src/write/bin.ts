/**
 * One packed bin as the writers take it: exactly `seqLen` tokens (documents then padding),
 * its loss mask, and which packing units (documents or chunks of documents) it holds.
 */
export interface PackedBin {
  /** Exactly seqLen token ids; positions past sum(docLens) are padding. */
  inputIds: Int32Array;
  /** Exactly seqLen entries: 1 = trained on, 0 = masked or padding. */
  lossMask: Uint8Array;
  /** Token length of each unit in the bin, in order. */
  docLens: Int32Array;
  /** Document id of each unit, in order. */
  docIds: readonly string[];
  /** Kind of each unit (repo, web, fim, ...); empty strings when not given. */
  docKinds?: readonly string[];
  /** Token start of each unit within its source document (0 = a document start); zeros when not given. */
  docOffsets?: Int32Array;
  /** The mixture source of each unit (`midpack run` with a mixture); empty strings when not given. */
  docSources?: readonly string[];
}

/** Sum of the unit lengths: the bin's non-padding tokens. */
export function binTokens(bin: PackedBin): number {
  let n = 0;
  for (let i = 0; i < bin.docLens.length; i++) n += bin.docLens[i]!;
  return n;
}

/**
 * Checks a bin against the output contract; a violation is a caller bug, so it throws
 * with the bin's row number and first document id rather than writing a malformed row.
 */
export function checkBin(bin: PackedBin, seqLen: number, row: number): void {
  const where = `bin ${row}${bin.docIds.length ? ` (first document ${bin.docIds[0]})` : ''}`;
  const fail = (what: string) => {
    throw new Error(`${where}: ${what}`);
  };
  if (!(bin.inputIds instanceof Int32Array) || bin.inputIds.length !== seqLen) fail(`input_ids must be an Int32Array of exactly ${seqLen} tokens, got ${bin.inputIds?.length}`);
  if (!(bin.lossMask instanceof Uint8Array) || bin.lossMask.length !== seqLen) fail(`loss_mask must be a Uint8Array of exactly ${seqLen} entries, got ${bin.lossMask?.length}`);
  const units = bin.docLens.length;
  if (bin.docIds.length !== units) fail(`${units} doc_lens but ${bin.docIds.length} doc_ids`);
  if (bin.docKinds && bin.docKinds.length !== units) fail(`${units} doc_lens but ${bin.docKinds.length} doc_kinds`);
  if (bin.docOffsets && bin.docOffsets.length !== units) fail(`${units} doc_lens but ${bin.docOffsets.length} doc_offsets`);
  if (bin.docSources && bin.docSources.length !== units) fail(`${units} doc_lens but ${bin.docSources.length} doc_sources`);
  for (let i = 0; i < units; i++) if (bin.docLens[i]! <= 0) fail(`doc_lens[${i}] = ${bin.docLens[i]} is not positive`);
  const tokens = binTokens(bin);
  if (tokens > seqLen) fail(`doc_lens sum to ${tokens}, more than the bin length ${seqLen}`);
}
