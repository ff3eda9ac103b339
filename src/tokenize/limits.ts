/**
 * What one document may cost a tokenizer worker, and the error that drops a document past it
 * (counted in the ledger under its reason, never a crash).
 *
 * - fast backend: memory is about 12 bytes per token of the document plus, for a single
 *   pre-tokenized piece longer than 512 bytes (a long run of one character), 36 bytes per byte
 *   of that piece while it is encoded. A piece over MAX_PIECE_BYTES drops the document.
 * - hf backend: @huggingface/tokenizers builds several JavaScript objects per token (about
 *   25 bytes of heap per character), so a text over MAX_HF_CHARS drops the document: a 40 MB
 *   document otherwise ends the worker at its heap limit.
 */
export const MAX_PIECE_BYTES = 16 << 20;
export const MAX_HF_CHARS = 16_000_000;

export class TokenizeLimitError extends Error {
  constructor(
    readonly reason: 'piece_too_long' | 'document_too_long',
    message: string,
  ) {
    super(message);
    this.name = 'TokenizeLimitError';
  }
}
