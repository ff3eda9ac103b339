import { formatWeights, resolveTable, weightsOf, type OptionTable } from '../../core/options.js';
import { SPAN_MODES } from './spans.js';
import { DEFAULT_FIM_OPTIONS, FIM_FORMATS, type FimOptions } from './stage.js';

/** The fim stage's options (`midpack fim` flags, a config's `then: [{type: fim}]` options). */
export const FIM_OPTIONS = {
  fimRate: { type: 'number', min: 0, max: 1, default: DEFAULT_FIM_OPTIONS.fimRate, help: 'share of documents transformed' },
  spmRate: { type: 'number', min: 0, max: 1, default: DEFAULT_FIM_OPTIONS.spmRate, help: 'share of FIM and chat-FIM samples in SPM order' },
  formats: { type: 'weights', keys: FIM_FORMATS, default: formatWeights(DEFAULT_FIM_OPTIONS.formats), arg: '<weights>', help: `sample formats by weight (${FIM_FORMATS.join(', ')})` },
  spans: { type: 'weights', keys: SPAN_MODES, default: formatWeights(DEFAULT_FIM_OPTIONS.spans), arg: '<weights>', help: `span choice by weight (${SPAN_MODES.join(', ')})` },
  maskPrompt: { type: 'boolean', default: DEFAULT_FIM_OPTIONS.maskPrompt, help: 'exclude the prompt of chat-FIM and S&R FIM samples from the loss' },
  placeholder: { type: 'string', negatable: true, arg: '<text>', default: DEFAULT_FIM_OPTIONS.placeholder, help: 'S&R FIM: text marking where the middle was ("" or --no-placeholder: no mark)' },
  maxContextLines: { type: 'int', min: 0, default: DEFAULT_FIM_OPTIONS.maxContextLines, help: 'S&R: context lines a SEARCH may take on each side to become unique' },
  unitMaxChars: { type: 'int', min: 0, default: DEFAULT_FIM_OPTIONS.unitMaxChars, help: 'files longer than this are not parsed for unit spans (line instead)' },
} satisfies OptionTable;

export type { FimOptions };

export function resolveFimOptions(raw: Record<string, unknown>): FimOptions {
  const r = resolveTable(FIM_OPTIONS, raw) as Record<string, never>;
  return { ...(r as unknown as FimOptions), formats: weightsOf(r.formats, FIM_FORMATS), spans: weightsOf(r.spans, SPAN_MODES) };
}
