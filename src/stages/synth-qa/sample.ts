import { stableId } from '../../core/random.js';
import type { Doc } from '../../doc/document.js';
import { TextBuilder } from '../../doc/text-builder.js';
import { writeTurn } from '../trajectories/chatml.js';
import type { KeptPair } from './grounding.js';

/**
 * QA samples in ChatML, laid out by the trajectories' turn writer: the question as the user
 * turn, the answer as the assistant turn. Only the answers are trained on (each answer through
 * its `<|im_end|>`, so the model learns to end its turn, as in every chat sample midpack writes);
 * the frame and the questions are masked. No system turn: the answer must not lean on one.
 */
export interface QaSampleContext {
  /** The source document, whose id and source the samples name. */
  doc: Doc;
  seed: number;
  model: string;
  promptSha256: string;
}

function chat(pairs: readonly KeptPair[]) {
  const b = new TextBuilder();
  for (const p of pairs) {
    writeTurn(b, 'user', false, (w) => w.text(p.question));
    writeTurn(b, 'assistant', true, (w) => w.text(p.answer));
  }
  return b.build();
}

function sample(c: QaSampleContext, idKey: string, pairs: readonly KeptPair[], meta: Record<string, unknown>): Doc {
  const built = chat(pairs);
  return {
    id: stableId(c.seed, 'synth-qa', c.doc.id, idKey),
    kind: 'qa',
    source: c.doc.source,
    text: built.text,
    meta: { source_id: c.doc.id, ...meta, model: c.model, prompt_sha256: c.promptSha256 },
    loss_mask_spans: built.loss_mask_spans,
    special_spans: built.special_spans,
  };
}

/** One single-turn sample per kept pair. */
export function pairSamples(c: QaSampleContext, pairs: readonly KeptPair[]): Doc[] {
  return pairs.map((p) => sample(c, String(p.index), [p], { pair_index: p.index, evidence: p.evidence }));
}

/** All kept pairs of a document as one multi-turn sample (`--per-document`), in the model's order. */
export function documentSample(c: QaSampleContext, pairs: readonly KeptPair[]): Doc {
  return sample(c, 'document', pairs, { pair_index: pairs.map((p) => p.index), evidence: pairs.map((p) => p.evidence) });
}
