import { readFileSync } from 'node:fs';
import { OptionError, type OptionTable } from '../core/options.js';
import { LLM_DEFAULTS, type LlmOptions } from './client.js';

/**
 * The LLM client's options, one table for every stage that asks a model (`rewrite-web`,
 * `synth-qa`): the same flags, config keys and defaults in each. `promptHelp` names the stage's
 * default prompt; `promptFile` what the prompt file replaces.
 */
export function llmOptionTable(promptHelp: string) {
  return {
    llmEndpoint: { type: 'string', arg: '<url>', help: 'OpenAI-compatible base URL, e.g. http://localhost:8000/v1 (with llmModel)' },
    llmModel: { type: 'string', arg: '<name>', help: 'model name sent to the endpoint' },
    llmApiKeyEnv: { type: 'string', arg: '<name>', default: LLM_DEFAULTS.apiKeyEnv, help: 'environment variable holding the API key (never logged)' },
    llmPromptFile: { type: 'string', arg: '<file>', help: `system prompt file (default: ${promptHelp})` },
    llmConcurrency: { type: 'int', min: 1, default: LLM_DEFAULTS.concurrency, help: 'requests in flight' },
    llmRetries: { type: 'int', min: 0, default: LLM_DEFAULTS.maxRetries, help: 'retries on 429, 5xx, timeouts and malformed answers' },
    llmTimeoutMs: { type: 'int', min: 1, default: LLM_DEFAULTS.timeoutMs, help: 'timeout of one request' },
    llmBackoffMs: { type: 'int', min: 0, default: LLM_DEFAULTS.backoffMs, help: 'first retry delay, doubled each retry' },
    llmMaxTokens: { type: 'int', min: 1, help: 'max_tokens of each request' },
    llmMaxResponseBytes: { type: 'int', min: 1024, default: LLM_DEFAULTS.maxResponseBytes, help: 'refuse answers longer than this (response_too_large)' },
    cacheDir: { type: 'string', arg: '<dir>', default: LLM_DEFAULTS.cacheDir, help: 'persistent LLM answer cache' },
  } satisfies OptionTable;
}

/**
 * The client's options from resolved values of `llmOptionTable` (undefined when neither endpoint
 * nor model is given); `prompt` is the stage's default, replaced by `llmPromptFile`.
 */
export function resolveLlmOptions(r: Record<string, never>, prompt: string): LlmOptions | undefined {
  if (r.llmEndpoint === undefined && r.llmModel === undefined) return undefined;
  if (r.llmEndpoint === undefined) throw new OptionError('llmEndpoint', undefined, 'is needed with llmModel');
  if (r.llmModel === undefined) throw new OptionError('llmModel', undefined, 'is needed with llmEndpoint');
  return {
    endpoint: r.llmEndpoint,
    model: r.llmModel,
    apiKeyEnv: r.llmApiKeyEnv,
    prompt: r.llmPromptFile === undefined ? prompt : readPrompt(r.llmPromptFile),
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
