/**
 * A text's token count, found only as far as a budget needs it: a context's files are counted
 * against the budget they must fit, and a 500 kB test fixture need not be tokenized whole to
 * know it does not fit 32,768 tokens.
 *
 * A long text is counted in chunks of about CHUNK_CHARS, each cut just before an ASCII letter
 * that starts a line after a line ending in a non-space. No pre-token of the byte-level BPE
 * tokenizers' split patterns (GPT-2's, cl100k's, Qwen's) spans such a cut: a newline never
 * joins the letters after it, and a run of whitespace there is the newline alone. So the chunks'
 * counts add up to the whole text's count (test/stages/edits/token-count.test.ts checks this on
 * real code and HTML), and counting stops at the first chunk past the limit.
 */
const CHUNK_CHARS = 1 << 14;
const SAFE_CUT = /(?<=\S\n)[A-Za-z]/g;

/** The chunks a long text is counted in: [start, end) pairs covering it, in order. */
export function countChunks(text: string): [number, number][] {
  const chunks: [number, number][] = [];
  for (let at = 0; at < text.length; ) {
    let end = text.length;
    if (at + CHUNK_CHARS < text.length) {
      SAFE_CUT.lastIndex = at + CHUNK_CHARS;
      end = SAFE_CUT.exec(text)?.index ?? text.length;
    }
    chunks.push([at, end]);
    at = end;
  }
  return chunks;
}

/** The text's token count when it is at most `limit`; else some count over `limit` (counting stopped there). */
export function countWithin(count: (text: string) => number, text: string, limit: number): number {
  if (text.length <= CHUNK_CHARS) return count(text);
  let total = 0;
  for (const [start, end] of countChunks(text)) {
    total += count(text.slice(start, end));
    if (total > limit) break;
  }
  return total;
}
