import type { Stage, StageContext } from '../../core/stage.js';
import type { Doc } from '../../doc/document.js';
import { INVALID_UNICODE, isWellFormed } from '../../doc/unicode.js';
import { LlmClient, type LlmOutcome } from '../../llm/client.js';
import { mapInOrder } from '../../llm/in-order.js';
import { Grounding, type KeptPair } from './grounding.js';
import type { SynthQaOptions } from './options.js';
import { ABSTAIN_REASONS } from './prompt.js';
import { parseQaAnswer, type QaAnswer } from './protocol.js';
import { documentSample, pairSamples } from './sample.js';
import { bump, countPairDrop, synthQaStats, type SynthQaStats } from './stats.js';

/**
 * The synth-qa stage: documents in, grounded question-answer samples out (docs/qa.md). One
 * request per document through the shared LLM client; the answer parsed by the protocol; each
 * returned pair kept or dropped by reason (grounding.ts); each kept pair one ChatML sample
 * (or one multi-turn sample per document).
 *
 * Ledger unit: the document. It is counted out when it makes samples; otherwise dropped as
 * skipped (too_short, too_long, special_tokens, invalid_unicode), failed (llm_<reason>: the
 * requests failed or the answers broke the protocol after the retries), `abstained`, or
 * `no_grounded_pair`. Samples are counted under `produced`. Output order is input order whatever
 * the concurrency, and an answer is cached once it parses, so a rerun asks nothing and writes the
 * same bytes.
 */
interface Asked {
  doc: Doc;
  /** What the model saw: the document's text, cut at --max-chars with --truncate. */
  text: string;
}

interface Answered extends Asked {
  outcome: LlmOutcome<QaAnswer>;
}

const where = (doc: Doc) => `${doc.source} (${doc.id})`;

/** The part of a long text up to `max` characters: to its last paragraph break in the second half, else its last whitespace. */
export function truncateText(text: string, max: number): string {
  let cut = text.lastIndexOf('\n\n', max);
  if (cut < max / 2) cut = Math.max(text.lastIndexOf('\n', max), text.lastIndexOf(' ', max));
  if (cut < max / 2) cut = max;
  // Never between the halves of a surrogate pair.
  if (cut > 0 && cut < text.length && /[\uD800-\uDBFF]/.test(text[cut - 1]!)) cut--;
  return text.slice(0, cut).trimEnd();
}

/** The document as it is asked about, or undefined when it is skipped (counted here). */
function prepare(doc: Doc, o: SynthQaOptions, ctx: StageContext, stats: SynthQaStats): Asked | undefined {
  stats.documents.in++;
  const skip = (reason: string, message: string) => {
    bump(stats.documents.skipped, reason);
    ctx.ledger.drop(reason, `${where(doc)}: ${message}`);
    return undefined;
  };
  if (doc.special_spans?.length) return skip('special_tokens', 'the document holds special tokens (a chat, FIM or repository sample), not text to ask about');
  if (!isWellFormed(doc.text)) return skip(INVALID_UNICODE, 'the document holds unpaired UTF-16 surrogates');
  const length = doc.text.trim().length;
  if (length < o.minChars) return skip('too_short', `${length} characters of text (minimum ${o.minChars})`);
  if (doc.text.length <= o.maxChars) return { doc, text: doc.text };
  if (!o.truncate) return skip('too_long', `${doc.text.length} characters (maximum ${o.maxChars}; --truncate asks about the first part)`);
  stats.documents.truncated++;
  return { doc, text: truncateText(doc.text, o.maxChars) };
}

async function ask(item: Asked, client: LlmClient): Promise<Answered> {
  const outcome = await client.complete(item.text, parseQaAnswer);
  // An answer that follows the protocol is final: cached even when no pair survives, so a rerun asks nothing.
  if (outcome.ok && !outcome.cached) client.remember(item.text, outcome.text);
  return { ...item, outcome };
}

const abstainKey = (reason: string): string => {
  const k = reason.trim().toLowerCase().replace(/[\s-]+/g, '_');
  return (ABSTAIN_REASONS as readonly string[]).includes(k) ? k : 'other';
};

/** Counts one answered document and returns its samples (none when it failed, abstained or kept no pair). */
function account(a: Answered, o: SynthQaOptions, ctx: StageContext, stats: SynthQaStats): Doc[] {
  const { doc, outcome } = a;
  if (!outcome.ok) {
    bump(stats.documents.failed, `llm_${outcome.reason}`);
    ctx.ledger.drop(`llm_${outcome.reason}`, `${where(doc)}: ${outcome.message}`);
    return [];
  }
  stats.pairs.asked += o.pairs;
  const answer = outcome.value;
  if (answer.kind === 'abstain') {
    stats.documents.abstained++;
    bump(stats.abstained_by_reason, abstainKey(answer.reason));
    ctx.ledger.drop('abstained', `${where(doc)}: the model abstained: ${JSON.stringify(answer.reason.slice(0, 200))}`);
    return [];
  }
  const grounding = new Grounding(a.text, { pairs: o.pairs, maxNovel: o.maxNovel });
  const kept: KeptPair[] = [];
  answer.pairs.forEach((pair, index) => {
    stats.pairs.returned++;
    const verdict = grounding.check(pair, index);
    if ('kept' in verdict) kept.push(verdict.kept);
    else countPairDrop(stats, verdict.drop, `${where(doc)}: pair ${index} dropped (${verdict.drop}: ${verdict.detail})`, ctx.log);
  });
  stats.pairs.kept += kept.length;
  if (!kept.length) {
    stats.documents.no_grounded_pair++;
    ctx.ledger.drop('no_grounded_pair', `${where(doc)}: none of the ${answer.pairs.length} pairs returned was kept`);
    return [];
  }
  const c = { doc, seed: ctx.seed, model: o.llm.model, promptSha256: o.promptSha256 };
  const samples = o.perDocument ? [documentSample(c, kept)] : pairSamples(c, kept);
  stats.documents.with_samples++;
  stats.samples += samples.length;
  ctx.ledger.output();
  ctx.ledger.produce('samples', samples.length);
  return samples;
}

export function synthQaStage(o: SynthQaOptions): Stage {
  return async function* (docs, ctx) {
    const stats = synthQaStats(ctx);
    const client = new LlmClient(o.llm, stats.llm);
    async function* asked(): AsyncIterable<Asked> {
      for await (const doc of docs) {
        const item = prepare(doc, o, ctx, stats);
        if (item) yield item;
      }
    }
    for await (const answered of mapInOrder(asked(), o.llm.concurrency, (item) => ask(item, client))) {
      yield* account(answered, o, ctx, stats);
    }
  };
}
