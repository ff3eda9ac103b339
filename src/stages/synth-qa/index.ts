/** Grounded question-answer synthesis through an OpenAI-compatible model (docs/qa.md). */
export { synthQaStage, truncateText } from './stage.js';
export { SYNTH_QA_OPTIONS, SYNTH_QA_DEFAULTS, resolveSynthQaOptions, type SynthQaOptions } from './options.js';
export { DEFAULT_QA_PROMPT, ABSTAIN_REASONS, qaPrompt, qaResponseFormat, promptSha256 } from './prompt.js';
export { parseQaAnswer, type QaAnswer, type RawPair } from './protocol.js';
export { Grounding, PAIR_DROPS, contentWords, normalizeSpace, type GroundingOptions, type KeptPair, type PairDrop } from './grounding.js';
export { REFERENCE_PHRASES, documentReference } from './references.js';
export { pairSamples, documentSample } from './sample.js';
export { synthQaStats, type SynthQaStats } from './stats.js';
