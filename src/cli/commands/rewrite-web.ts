import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { action, addSeedOption, floatOption, intOption, runStage } from '../common.js';
import { DEFAULT_GUARD } from '../../stages/web/guard.js';
import { DEFAULT_PROMPT, LLM_DEFAULTS, redactEndpoint, type LlmOptions } from '../../stages/web/llm.js';
import { DEFAULT_MAX_DEPTH } from '../../stages/web/rules.js';
import { DEFAULT_MAX_PAGE_BYTES, readWebInputs } from '../../stages/web/sources.js';
import { rewriteWeb, WEB_DEFAULTS } from '../../stages/web/stage.js';
import { webStats } from '../../stages/web/stats.js';

interface Options {
  out: string;
  seed: number;
  quiet?: boolean;
  keepImageAlt?: boolean;
  minTextChars: number;
  maxDepth: number;
  maxPageBytes: number;
  dedupWindow: number;
  llmEndpoint?: string;
  llmModel?: string;
  llmApiKeyEnv: string;
  llmPromptFile?: string;
  llmConcurrency: number;
  llmRetries: number;
  llmTimeoutMs: number;
  llmBackoffMs: number;
  llmMaxTokens?: number;
  llmMaxResponseBytes: number;
  cacheDir: string;
  maxNovel: number;
  minKept: number;
}

function llmOptions(o: Options): LlmOptions | undefined {
  if (!o.llmEndpoint && !o.llmModel) return undefined;
  if (!o.llmEndpoint || !o.llmModel) throw new Error('--llm-endpoint and --llm-model go together');
  return {
    endpoint: o.llmEndpoint,
    model: o.llmModel,
    apiKeyEnv: o.llmApiKeyEnv,
    prompt: o.llmPromptFile ? readFileSync(o.llmPromptFile, 'utf8') : DEFAULT_PROMPT,
    cacheDir: o.cacheDir,
    concurrency: o.llmConcurrency,
    maxRetries: o.llmRetries,
    timeoutMs: o.llmTimeoutMs,
    backoffMs: o.llmBackoffMs,
    maxBackoffMs: LLM_DEFAULTS.maxBackoffMs,
    maxTokens: o.llmMaxTokens,
    maxResponseBytes: o.llmMaxResponseBytes,
  };
}

export function register(program: Command): void {
  const cmd = program
    .command('rewrite-web')
    .description(
      'Rewrite web pages (.html files and folders, JSONL with "html" and optional "url", WARC .warc/.warc.gz) into ' +
        'normalized Markdown of their main content, code blocks fenced and byte-exact; optionally through an ' +
        'OpenAI-compatible LLM with a cache and a faithfulness guard, falling back to the rule-based text.',
    )
    .argument('<inputs...>', 'HTML files, folders, JSONL or WARC files')
    .requiredOption('--out <file>', 'output JSONL (.jsonl or .jsonl.gz; - for stdout)')
    .option('--keep-image-alt', 'keep images as their alt text (default: drop images)')
    .option('--min-text-chars <n>', 'drop pages with less text than this after extraction', intOption('--min-text-chars'), WEB_DEFAULTS.minTextChars)
    .option('--max-depth <n>', 'drop pages nested deeper than this (too_deep)', intOption('--max-depth', 1), DEFAULT_MAX_DEPTH)
    .option('--max-page-bytes <n>', 'drop pages larger than this (too_large)', intOption('--max-page-bytes', 1), DEFAULT_MAX_PAGE_BYTES)
    .option('--dedup-window <n>', 'content hashes remembered for duplicate detection', intOption('--dedup-window', 1), WEB_DEFAULTS.dedupWindow)
    .option('--llm-endpoint <url>', 'OpenAI-compatible base URL, e.g. http://localhost:8000/v1')
    .option('--llm-model <name>', 'model name sent to the endpoint')
    .option('--llm-api-key-env <name>', 'environment variable holding the API key (never logged)', LLM_DEFAULTS.apiKeyEnv)
    .option('--llm-prompt-file <file>', 'system prompt file (default: the documented faithful-rewrite prompt)')
    .option('--llm-concurrency <n>', 'requests in flight', intOption('--llm-concurrency', 1), LLM_DEFAULTS.concurrency)
    .option('--llm-retries <n>', 'retries on 429, 5xx, timeouts and malformed answers', intOption('--llm-retries'), LLM_DEFAULTS.maxRetries)
    .option('--llm-timeout-ms <n>', 'timeout of one request', intOption('--llm-timeout-ms', 1), LLM_DEFAULTS.timeoutMs)
    .option('--llm-backoff-ms <n>', 'first retry delay, doubled each retry', intOption('--llm-backoff-ms'), LLM_DEFAULTS.backoffMs)
    .option('--llm-max-tokens <n>', 'max_tokens of each request', intOption('--llm-max-tokens', 1))
    .option('--llm-max-response-bytes <n>', 'refuse answers longer than this (response_too_large; the page keeps its rule-based text)', intOption('--llm-max-response-bytes', 1024), LLM_DEFAULTS.maxResponseBytes)
    .option('--cache-dir <dir>', 'persistent LLM answer cache', LLM_DEFAULTS.cacheDir)
    .option('--max-novel <x>', 'guard: largest share of rewrite words absent from the source', floatOption('--max-novel', 0, 1), DEFAULT_GUARD.maxNovelFraction)
    .option('--min-kept <x>', 'guard: smallest share of source words the rewrite keeps', floatOption('--min-kept', 0, 1), DEFAULT_GUARD.minKeptFraction)
    .option('--quiet', 'no per-page messages or summary');
  addSeedOption(cmd).action(
    action(async (inputs: string[], o: Options) => {
      const llm = llmOptions(o);
      const stage = rewriteWeb({
        keepImageAlt: o.keepImageAlt,
        minTextChars: o.minTextChars,
        maxDepth: o.maxDepth,
        maxPageChars: o.maxPageBytes,
        dedupWindow: o.dedupWindow,
        llm,
        guard: { maxNovelFraction: o.maxNovel, minKeptFraction: o.minKept },
      });
      // The manifest records the options: never an endpoint's credentials.
      const recorded = { ...o, ...(o.llmEndpoint ? { llmEndpoint: redactEndpoint(o.llmEndpoint) } : {}) };
      const ctx = await runStage('rewrite-web', recorded, stage, (c) => readWebInputs(inputs, c, { maxPageBytes: o.maxPageBytes }));
      if (!o.quiet) {
        const s = webStats(ctx);
        const lines = [`pages by method: rules ${s.by_method.rules}, llm ${s.by_method.llm}; code blocks ${s.code_blocks}`];
        if (llm) {
          lines.push(`llm: ${s.llm.requests} requests, ${s.llm.cache_hits} cache hits, ${s.llm.retries} retries, ${s.llm.rewritten} rewritten, ${s.llm.fallbacks} fallbacks`);
          for (const [r, n] of Object.entries(s.llm.rejected_by_reason)) lines.push(`  rejected ${r}: ${n}`);
          for (const [r, n] of Object.entries(s.llm.failed_by_reason)) lines.push(`  failed ${r}: ${n}`);
        }
        process.stderr.write(lines.join('\n') + '\n');
      }
    }),
  );
}
