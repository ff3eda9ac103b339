import { DEFAULT_MAX_FILE_BYTES, resolveTable, type OptionTable } from '../../core/options.js';

/** The code source's options: plain code files and folders (or JSONL documents) as `text` documents. */
export const CODE_OPTIONS = {
  maxFileBytes: { type: 'int', min: 1, default: DEFAULT_MAX_FILE_BYTES, help: 'code file inputs over this size are dropped (too_large)' },
} satisfies OptionTable;

export interface CodeOptions {
  maxFileBytes: number;
}

export function resolveCodeOptions(raw: Record<string, unknown>): CodeOptions {
  return resolveTable(CODE_OPTIONS, raw) as unknown as CodeOptions;
}
