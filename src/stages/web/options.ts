import { resolveTable, type OptionTable } from '../../core/options.js';
import { llmOptionTable, resolveLlmOptions } from '../../llm/options.js';
import { DEFAULT_GUARD } from './guard.js';
import { DEFAULT_PROMPT } from './llm.js';
import { DEFAULT_MAX_DEPTH } from './rules.js';
import { DEFAULT_MAX_PAGE_BYTES } from './sources.js';
import { WEB_DEFAULTS, type RewriteWebOptions } from './stage.js';

/** The web source's options (`midpack rewrite-web` flags, a config's `type: web` options). */
export const WEB_OPTIONS = {
  keepImageAlt: { type: 'boolean', default: false, help: 'keep images as their alt text (else images are dropped)' },
  minTextChars: { type: 'int', min: 0, default: WEB_DEFAULTS.minTextChars, help: 'drop pages with less text than this after extraction' },
  maxDepth: { type: 'int', min: 1, default: DEFAULT_MAX_DEPTH, help: 'drop pages nested deeper than this (too_deep)' },
  maxPageBytes: { type: 'int', min: 1, default: DEFAULT_MAX_PAGE_BYTES, help: 'drop pages larger than this, in bytes read and in characters decoded (too_large)' },
  dedupWindow: { type: 'int', min: 1, default: WEB_DEFAULTS.dedupWindow, help: 'content hashes remembered for duplicate detection' },
  ...llmOptionTable('the documented faithful-rewrite prompt'),
  maxNovel: { type: 'number', min: 0, max: 1, default: DEFAULT_GUARD.maxNovelFraction, help: 'guard: largest share of rewrite words absent from the source' },
  minKept: { type: 'number', min: 0, max: 1, default: DEFAULT_GUARD.minKeptFraction, help: 'guard: smallest share of source words the rewrite keeps' },
} satisfies OptionTable;

/** The rewrite stage's options plus the reader's page cap (one setting: bytes read and characters kept). */
export type WebOptions = RewriteWebOptions & { maxPageBytes: number };

export function resolveWebOptions(raw: Record<string, unknown>): WebOptions {
  const r = resolveTable(WEB_OPTIONS, raw) as Record<string, never>;
  return {
    keepImageAlt: r.keepImageAlt,
    minTextChars: r.minTextChars,
    maxDepth: r.maxDepth,
    maxPageBytes: r.maxPageBytes,
    maxPageChars: r.maxPageBytes,
    dedupWindow: r.dedupWindow,
    llm: resolveLlmOptions(r, DEFAULT_PROMPT),
    guard: { maxNovelFraction: r.maxNovel, minKeptFraction: r.minKept },
  };
}
