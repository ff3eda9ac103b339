import { OptionError, resolveTable, type OptionTable } from '../../core/options.js';
import type { LlmOptions } from '../../llm/client.js';
import { llmOptionTable, resolveLlmOptions } from '../../llm/options.js';
import { DEFAULT_QA_PROMPT, promptSha256, qaPrompt, qaResponseFormat } from './prompt.js';

/** The synth-qa stage's options (`midpack synth-qa` flags, a config's `then: [{type: synth-qa}]`). */
export const SYNTH_QA_DEFAULTS = { pairs: 4, minChars: 200, maxChars: 32_000, maxNovel: 0.3 };

export const SYNTH_QA_OPTIONS = {
  pairs: { type: 'int', min: 1, max: 64, default: SYNTH_QA_DEFAULTS.pairs, help: 'question-answer pairs asked for per document ({pairs} in the prompt); more returned are dropped as over_limit' },
  minChars: { type: 'int', min: 0, default: SYNTH_QA_DEFAULTS.minChars, help: 'skip documents shorter than this (too_short)' },
  maxChars: { type: 'int', min: 1, default: SYNTH_QA_DEFAULTS.maxChars, help: 'skip documents longer than this (too_long), or cut them with --truncate' },
  truncate: { type: 'boolean', default: false, help: 'cut a document over --max-chars at its last paragraph break before the limit and ask about that part, instead of skipping it' },
  perDocument: { type: 'boolean', default: false, help: "one multi-turn sample per document with all its kept pairs (default: one sample per pair)" },
  llmJsonSchema: { type: 'boolean', default: false, help: 'send the answer protocol as response_format (a JSON schema; vLLM and SGLang enforce it)' },
  maxNovel: { type: 'number', min: 0, max: 1, default: SYNTH_QA_DEFAULTS.maxNovel, help: "largest share of an answer's content words absent from the document (novel_answer)" },
  ...llmOptionTable('the documented grounded-QA prompt, {pairs} replaced'),
} satisfies OptionTable;

export interface SynthQaOptions {
  pairs: number;
  minChars: number;
  maxChars: number;
  truncate: boolean;
  perDocument: boolean;
  maxNovel: number;
  /** The client's options; `prompt` is the system prompt as sent ({pairs} replaced). */
  llm: LlmOptions;
  promptSha256: string;
}

/** The one resolver of the stage, used by the CLI and by `midpack run` configs. */
export function resolveSynthQaOptions(raw: Record<string, unknown>): SynthQaOptions {
  const r = resolveTable(SYNTH_QA_OPTIONS, raw) as Record<string, never>;
  const llm = resolveLlmOptions(r, DEFAULT_QA_PROMPT);
  if (!llm) throw new OptionError('llmEndpoint', undefined, 'is required with llmModel: synth-qa asks a model');
  const pairs: number = r.pairs;
  if (r.minChars > r.maxChars) throw new OptionError('minChars', r.minChars, `must not be over maxChars (${r.maxChars})`);
  const prompt = qaPrompt(llm.prompt, pairs);
  return {
    pairs,
    minChars: r.minChars,
    maxChars: r.maxChars,
    truncate: r.truncate,
    perDocument: r.perDocument,
    maxNovel: r.maxNovel,
    llm: { ...llm, prompt, ...(r.llmJsonSchema ? { responseFormat: qaResponseFormat(pairs) } : {}) },
    promptSha256: promptSha256(prompt),
  };
}
