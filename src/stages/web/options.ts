import { readFileSync } from 'node:fs';
import { OptionError, resolveTable, type OptionTable } from '../../core/options.js';
import { DEFAULT_GUARD } from './guard.js';
import { DEFAULT_PROMPT, LLM_DEFAULTS, type LlmOptions } from './llm.js';
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
  llmEndpoint: { type: 'string', arg: '<url>', help: 'OpenAI-compatible base URL, e.g. http://localhost:8000/v1 (with llmModel)' },
  llmModel: { type: 'string', arg: '<name>', help: 'model name sent to the endpoint' },
  llmApiKeyEnv: { type: 'string', arg: '<name>', default: LLM_DEFAULTS.apiKeyEnv, help: 'environment variable holding the API key (never logged)' },
  llmPromptFile: { type: 'string', arg: '<file>', help: 'system prompt file (default: the documented faithful-rewrite prompt)' },
  llmConcurrency: { type: 'int', min: 1, default: LLM_DEFAULTS.concurrency, help: 'requests in flight' },
  llmRetries: { type: 'int', min: 0, default: LLM_DEFAULTS.maxRetries, help: 'retries on 429, 5xx, timeouts and malformed answers' },
  llmTimeoutMs: { type: 'int', min: 1, default: LLM_DEFAULTS.timeoutMs, help: 'timeout of one request' },
  llmBackoffMs: { type: 'int', min: 0, default: LLM_DEFAULTS.backoffMs, help: 'first retry delay, doubled each retry' },
  llmMaxTokens: { type: 'int', min: 1, help: 'max_tokens of each request' },
  llmMaxResponseBytes: { type: 'int', min: 1024, default: LLM_DEFAULTS.maxResponseBytes, help: 'refuse answers longer than this (response_too_large; the page keeps its rule-based text)' },
  cacheDir: { type: 'string', arg: '<dir>', default: LLM_DEFAULTS.cacheDir, help: 'persistent LLM answer cache' },
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
    llm: llmOptions(r),
    guard: { maxNovelFraction: r.maxNovel, minKeptFraction: r.minKept },
  };
}

function llmOptions(r: Record<string, never>): LlmOptions | undefined {
  if (r.llmEndpoint === undefined && r.llmModel === undefined) return undefined;
  if (r.llmEndpoint === undefined) throw new OptionError('llmEndpoint', undefined, 'is needed with llmModel');
  if (r.llmModel === undefined) throw new OptionError('llmModel', undefined, 'is needed with llmEndpoint');
  return {
    endpoint: r.llmEndpoint,
    model: r.llmModel,
    apiKeyEnv: r.llmApiKeyEnv,
    prompt: r.llmPromptFile === undefined ? DEFAULT_PROMPT : readPrompt(r.llmPromptFile),
    cacheDir: r.cacheDir,
    concurrency: r.llmConcurrency,
    maxRetries: r.llmRetries,
    timeoutMs: r.llmTimeoutMs,
    backoffMs: r.llmBackoffMs,
    maxBackoffMs: LLM_DEFAULTS.maxBackoffMs,
    maxTokens: r.llmMaxTokens,
    maxResponseBytes: r.llmMaxResponseBytes,
  };
}

function readPrompt(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new OptionError('llmPromptFile', file, `not readable (${(e as Error).message})`);
  }
}
