import { resolveTable, type OptionTable } from '../../core/options.js';
import { DEFAULT_MIN_DOCS, DEFAULT_MIN_FRAC, type ApplyOptions, type ThresholdOptions } from './apply.js';
import { DEFAULT_MEMORY_MB, DEFAULT_SAMPLES, type CountOptions } from './count.js';
import { DEFAULT_MIN_CHARS } from './segments.js';

/**
 * Redundancy masking's options: pass 1 (`mask count`: minChars, memoryMb, samples) and pass 2
 * (`mask apply`: minDocs, minFrac, keepFirst, bridge, top); a config's `mask:` takes them all.
 */
export const MASK_OPTIONS = {
  minChars: { type: 'int', min: 1, default: DEFAULT_MIN_CHARS, help: 'shortest normalized line that counts (blank lines and a lone } never do)' },
  memoryMb: { type: 'int', min: 1, default: DEFAULT_MEMORY_MB, help: 'memory for the count table; past it sorted runs spill to disk' },
  samples: { type: 'int', min: 0, default: DEFAULT_SAMPLES, help: 'how many of the most frequent segments keep a text sample' },
  minDocs: { type: 'int', min: 1, default: DEFAULT_MIN_DOCS, help: 'mask segments in at least N documents' },
  minFrac: { type: 'number', min: 0, max: 1, default: DEFAULT_MIN_FRAC, help: '... and in at least this fraction of the counted documents (0: minDocs alone)' },
  keepFirst: { type: 'boolean', default: false, help: 'keep the first occurrence of each frequent segment in a document unmasked' },
  bridge: { type: 'boolean', default: false, help: 'also mask the too-short lines (blank, a bare //) between two masked lines, so a header is one span' },
  top: { type: 'int', min: 0, default: 50, help: 'how many masked segments the manifest lists' },
} satisfies OptionTable;

export const MASK_COUNT_KEYS = ['minChars', 'memoryMb', 'samples'] as const;
export const MASK_APPLY_KEYS = ['minDocs', 'minFrac', 'keepFirst', 'bridge', 'top'] as const;

export type MaskOptions = Required<Omit<CountOptions, 'workDir'>> & Required<ThresholdOptions> & Required<ApplyOptions>;

export function resolveMaskOptions(raw: Record<string, unknown>): MaskOptions {
  return resolveTable(MASK_OPTIONS, raw) as unknown as MaskOptions;
}
