import { AtomicFile, bytesOf } from '../write/files.js';
import { Ledger } from '../core/ledger.js';
import type { RankInfo } from '../core/ranks.js';
import { readDocumentFile } from '../io/documents.js';
import { TokenizePool } from '../tokenize/pool.js';
import { fallbackMessage, resolveTokenizerBackend } from '../tokenize/tokenizer.js';
import { MixtureCounts } from './counts.js';
import { mixtureSourceOf, mixtureUnitOf } from './unit.js';

/** doc-tokens.u32: a document the pack will not take (it does not tokenize) has this length. */
export const NOT_TOKENIZED = 0xffff_ffff;

export interface CountPassOptions {
  docsFile: string;
  /** Every configured source, so a source with no documents still has figures. */
  sources: string[];
  seed: number;
  rank: RankInfo;
  tokenizer: string;
  workers: number;
  /** Where each document's token count goes (uint32, in the order of docsFile). */
  tokensFile: string;
}

/**
 * The mixture's count step: every prepared document tokenized (only its length kept) and added to
 * its source's histogram under its unit's hash. The lengths are those the pack job will find: the
 * same tokenizer, text and special spans (the loss mask changes no id).
 */
export async function countMixture(o: CountPassOptions): Promise<MixtureCounts> {
  const counts = new MixtureCounts(o.seed, [o.rank.rank], o.rank.worldSize);
  for (const s of o.sources) counts.source(s);
  const { backend, reason } = await resolveTokenizerBackend(o.tokenizer, 'auto');
  if (reason) process.stderr.write(fallbackMessage(o.tokenizer, reason, backend));
  const pool = new TokenizePool({ workers: o.workers, tokenizer: o.tokenizer, backend });
  const lengths = new AtomicFile(o.tokensFile);
  const buffer = new Uint32Array(4096);
  let held = 0;
  const flush = async () => {
    await lengths.write(bytesOf(buffer.subarray(0, held))); // AtomicFile copies: the buffer is reused
    held = 0;
  };
  try {
    // The pack's own ledger counts unreadable lines; this pass only needs what is readable.
    const docs = readDocumentFile(o.docsFile, new Ledger());
    const request = (d: { text: string; special_spans?: [number, number][] }) => ({ text: d.text, special_spans: d.special_spans });
    for await (const [doc, r] of pool.map(docs, request)) {
      const source = mixtureSourceOf(doc);
      // Empty or malformed text is dropped by the pack: it is no unit of the mixture.
      const ok = r.ids !== undefined && doc.text.length > 0 && source !== undefined;
      if (ok) counts.add(source, mixtureUnitOf(doc), r.ids!.length);
      buffer[held++] = ok ? r.ids!.length : NOT_TOKENIZED;
      if (held === buffer.length) await flush();
    }
    await flush();
    await lengths.commit();
  } catch (e) {
    await lengths.abort();
    throw e;
  } finally {
    await pool.close();
  }
  return counts;
}
