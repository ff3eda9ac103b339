import { DEFAULT_MAX_FILE_BYTES, formatWeights, resolveTable, type OptionTable } from '../../core/options.js';
import { ORDERINGS, parseOrderWeights } from './order.js';
import { DEFAULT_SERIALIZE, type SerializeOptions } from './serialize.js';

/** The repos source's options (`midpack serialize-repos` flags, a config's `type: repos` options). */
export const REPOS_OPTIONS = {
  order: { type: 'weights', keys: ORDERINGS, default: formatWeights(DEFAULT_SERIALIZE.order), arg: '<weights>', help: 'orderings chosen per repository by seeded weight' },
  minFiles: { type: 'int', min: 1, default: DEFAULT_SERIALIZE.minFiles, help: 'drop repositories with fewer kept files' },
  maxFileBytes: { type: 'int', min: 1, default: DEFAULT_MAX_FILE_BYTES, help: 'drop files larger than this (oversize)' },
  layout: { type: 'string', choices: ['auto', 'repo', 'collection'], default: DEFAULT_SERIALIZE.layout, help: 'auto, repo (each input folder is one repository) or collection (each subfolder is one)' },
  groupMemoryBytes: { type: 'int', min: 1, default: DEFAULT_SERIALIZE.groupMemoryBytes, help: 'memory for grouping file rows by repository before spilling to disk' },
  treeRate: { type: 'number', min: 0, max: 1, default: DEFAULT_SERIALIZE.treeRate, help: 'share of repositories whose header lists the directory tree' },
  maxDocChars: { type: 'int', min: 1024, default: DEFAULT_SERIALIZE.maxDocChars, help: 'a repository longer than this is written as parts (meta.part/meta.parts) cut at file boundaries, each with the header; the default is about 2 bins of code' },
  workDir: { type: 'string', arg: '<dir>', help: 'where row grouping spills (default: the run folder, else the system temp folder)' },
  countTokens: { type: 'boolean', default: false, help: 'count tokens by ordering and language in the stats (loads the Qwen3 tokenizer)' },
} satisfies OptionTable;

export type ReposOptions = Omit<SerializeOptions, 'countTokens'> & { countTokens: boolean };

export function resolveReposOptions(raw: Record<string, unknown>): ReposOptions {
  const r = resolveTable(REPOS_OPTIONS, raw);
  return { ...DEFAULT_SERIALIZE, ...(r as Partial<ReposOptions>), order: parseOrderWeights(r.order as string), countTokens: r.countTokens as boolean };
}
