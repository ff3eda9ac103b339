/**
 * Text must be well-formed UTF-16 (no unpaired surrogate, such as a JSON `"\ud800"`): it cannot
 * be encoded as UTF-8 for the tokenizer. Stages check it where text enters, so one bad file or
 * record is dropped as `invalid_unicode`, not the document it would have joined.
 */
export function isWellFormed(s: string): boolean {
  // String.prototype.isWellFormed (Node 20) without the ES2024 lib typings.
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

export const INVALID_UNICODE = 'invalid_unicode';
