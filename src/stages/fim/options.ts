import { formatWeights, resolveTable, weightsOf, type OptionTable } from '../../core/options.js';
import { DEFAULT_FIM_OPTIONS, FIM_FORMATS, FIM_SPAN_CHOICES, type FimOptions } from './stage.js';
import { resolveFunctionAwareOptions } from './function-aware/options.js';

/** The fim stage's options (`midpack fim` flags, a config's `then: [{type: fim}]` options). */
export const FIM_OPTIONS = {
  fimRate: { type: 'number', min: 0, max: 1, default: DEFAULT_FIM_OPTIONS.fimRate, help: 'share of documents transformed' },
  spmRate: { type: 'number', min: 0, max: 1, default: DEFAULT_FIM_OPTIONS.spmRate, help: 'share of FIM and chat-FIM samples in SPM order' },
  formats: { type: 'weights', keys: FIM_FORMATS, default: formatWeights(DEFAULT_FIM_OPTIONS.formats), arg: '<weights>', help: `sample formats by weight (${FIM_FORMATS.join(', ')})` },
  spans: { type: 'weights', keys: FIM_SPAN_CHOICES, default: formatWeights(DEFAULT_FIM_OPTIONS.spans), arg: '<weights>', help: `span choice by weight (${FIM_SPAN_CHOICES.join(', ')})` },
  maskPrompt: { type: 'boolean', default: DEFAULT_FIM_OPTIONS.maskPrompt, help: 'exclude the prompt of chat-FIM and S&R FIM samples from the loss' },
  placeholder: { type: 'string', negatable: true, arg: '<text>', default: DEFAULT_FIM_OPTIONS.placeholder, help: 'S&R FIM: text marking where the middle was ("" or --no-placeholder: no mark)' },
  maxContextLines: { type: 'int', min: 0, default: DEFAULT_FIM_OPTIONS.maxContextLines, help: 'S&R: context lines a SEARCH may take on each side to become unique' },
  unitMaxChars: { type: 'int', min: 0, default: DEFAULT_FIM_OPTIONS.unitMaxChars, help: 'files longer than this are not parsed for unit spans (line instead)' },
} satisfies OptionTable;

export type { FimOptions };

/** `functionAware` (a config's nested mapping of the function-aware criterion) is resolved by its own resolver. */
export function resolveFimOptions(raw: Record<string, unknown>): FimOptions {
  const { functionAware, ...rest } = raw;
  const r = resolveTable(FIM_OPTIONS, rest) as Record<string, never>;
  const nested = functionAware === undefined ? {} : (functionAware as Record<string, unknown>);
  return { ...(r as unknown as FimOptions), formats: weightsOf(r.formats, FIM_FORMATS), spans: weightsOf(r.spans, FIM_SPAN_CHOICES), functionAware: resolveFunctionAwareOptions(nested) };
}
