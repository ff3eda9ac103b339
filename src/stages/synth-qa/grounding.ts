import { isWellFormed } from '../../doc/unicode.js';
import { inventedReference, inventedUrl, novelty, sourceWords } from '../../llm/faithfulness.js';
import { wordTokens } from '../../doc/words.js';
import type { RawPair } from './protocol.js';
import { documentReference } from './references.js';

/**
 * Which returned pairs are kept: a pair must be well formed, be one of the pairs asked for,
 * ask a self-contained question not asked before for this document, quote evidence the
 * document holds (whitespace normalized), add no URL or reference the document lacks, and say
 * little the document does not (`maxNovel`, the share of the answer's content words absent from
 * the document, as the web rewrite guard bounds a rewrite's). The first failing check names the
 * drop; the checks run in the order of PAIR_DROPS.
 */
export const PAIR_DROPS = [
  'malformed_pair',
  'over_limit',
  'invalid_unicode',
  'not_self_contained',
  'duplicate_question',
  'evidence_not_found',
  'invented_url',
  'invented_reference',
  'novel_answer',
] as const;
export type PairDrop = (typeof PAIR_DROPS)[number];

export interface GroundingOptions {
  /** Pairs asked for: pairs past this many are `over_limit`. */
  pairs: number;
  /** Largest share of an answer's content words absent from the document. */
  maxNovel: number;
}

export interface KeptPair extends RawPair {
  /** Position in the model's list (its order, the depth order the prompt asks for). */
  index: number;
}

export type PairVerdict = { kept: KeptPair } | { drop: PairDrop; index: number; detail: string };

/** Runs of whitespace as one space: how evidence is compared with the document. */
export const normalizeSpace = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * The looser form a quote is tried in when the exact one is not found: Markdown's inline marks
 * (`*`, `_`, backticks) taken out and typographic quotes made plain, on both sides. The documents
 * are often rewrite-web's Markdown, and models quote `*Minecraft*` as "Minecraft" and ’ as '.
 */
export const foldQuote = (s: string): string => normalizeSpace(s.replace(/[*_`]+/g, '').replace(/[‘’‚‛]/g, "'").replace(/[“”„‟]/g, '"'));

/**
 * Content words: word tokens of four or more characters, or holding a digit (numbers are what a
 * model invents most). Short words are mostly function words in the six languages, which a
 * rephrased answer may add without adding a claim.
 */
export const contentWords = (text: string): string[] => wordTokens(text).filter((w) => w.length >= 4 || /\p{N}/u.test(w));

const questionKey = (q: string) => wordTokens(q).join(' ');

/** One document's grounding context: its normalized text and words, and the questions kept so far. */
export class Grounding {
  private readonly flat: string;
  private folded: string | undefined;
  private readonly words: Map<string, number>;
  private readonly asked = new Set<string>();

  constructor(
    private readonly text: string,
    private readonly options: GroundingOptions,
  ) {
    this.flat = normalizeSpace(text);
    this.words = sourceWords(text);
  }

  check(pair: RawPair | undefined, index: number): PairVerdict {
    const drop = (reason: PairDrop, detail: string): PairVerdict => ({ drop: reason, index, detail });
    if (!pair || !pair.question.trim() || !pair.answer.trim() || !pair.evidence.trim()) return drop('malformed_pair', 'a pair needs a non-empty question, answer and evidence string');
    if (index >= this.options.pairs) return drop('over_limit', `pair ${index + 1} of ${this.options.pairs} asked for`);
    if (![pair.question, pair.answer, pair.evidence].every(isWellFormed)) return drop('invalid_unicode', 'the pair holds unpaired UTF-16 surrogates');
    const pointing = documentReference(pair.question);
    if (pointing !== undefined) return drop('not_self_contained', `the question refers to the document ("${pointing}")`);
    const key = questionKey(pair.question);
    if (this.asked.has(key)) return drop('duplicate_question', `the question repeats an earlier one: ${clip(pair.question)}`);
    if (!this.quotes(pair.evidence)) return drop('evidence_not_found', `the evidence is not in the document: ${clip(pair.evidence)}`);
    const qa = `${pair.question}\n${pair.answer}`;
    const url = inventedUrl(this.text, qa);
    if (url !== undefined) return drop('invented_url', `URL not in the document: ${url}`);
    const ref = inventedReference(this.text, qa);
    if (ref !== undefined) return drop('invented_reference', `reference not in the document: ${ref}`);
    const { novel } = novelty(contentWords(pair.answer), this.words);
    if (novel > this.options.maxNovel) return drop('novel_answer', `${(novel * 100).toFixed(0)}% of the answer's content words are not in the document`);
    this.asked.add(key);
    return { kept: { ...pair, index } };
  }

  /** Whether the document holds `evidence`, whitespace normalized, else folded (the folded document made once, when first needed). */
  private quotes(evidence: string): boolean {
    if (this.flat.includes(normalizeSpace(evidence))) return true;
    const folded = foldQuote(evidence);
    this.folded ??= foldQuote(this.text);
    return folded.length > 0 && this.folded.includes(folded);
  }
}

const clip = (s: string) => JSON.stringify(s.length > 120 ? `${s.slice(0, 120)}…` : s);
