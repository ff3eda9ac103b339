import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The one client for any OpenAI-compatible chat-completions server (vLLM, SGLang, hosted APIs),
 * shared by every stage that asks a model (rewrite-web, synth-qa): retries with exponential
 * backoff on 429, 5xx, timeouts, network errors and malformed answers (an answer the caller's
 * parser refuses counts as malformed), all bounded in count and time; answers read up to a byte
 * bound; and a persistent on-disk cache keyed by sha256(endpoint, model, prompt, input and the
 * request's response format) so that a rerun asks nothing twice. The API key is read from an
 * environment variable and goes only into the Authorization header. Concurrency is the caller's
 * (src/llm/in-order.ts), so one stage's requests share one bound.
 */
export interface LlmOptions {
  endpoint: string;
  model: string;
  /** Name of the environment variable holding the API key (none sent when unset). */
  apiKeyEnv: string;
  prompt: string;
  cacheDir: string;
  concurrency: number;
  maxRetries: number;
  timeoutMs: number;
  backoffMs: number;
  maxBackoffMs: number;
  maxTokens?: number;
  /** Answers longer than this many bytes are refused (`response_too_large`), never read whole. */
  maxResponseBytes?: number;
  /** Sent as the request's `response_format` (a JSON schema, which vLLM and SGLang enforce); part of the cache key. */
  responseFormat?: Record<string, unknown>;
}

/** What the client counts, in the calling stage's stats: requests sent, answers from the cache, tokens as the server reports them. */
export interface LlmCounters {
  requests: number;
  cache_hits: number;
  retries: number;
  prompt_tokens: number;
  completion_tokens: number;
}

export const newLlmCounters = (): LlmCounters => ({ requests: 0, cache_hits: 0, retries: 0, prompt_tokens: 0, completion_tokens: 0 });

/** Reads an answer's content into what the caller wants, or says why it cannot (then it is retried as `malformed_answer`). */
export type AnswerParser<T> = (content: string) => { ok: true; value: T } | { ok: false; message: string };

export const LLM_DEFAULTS = { apiKeyEnv: 'OPENAI_API_KEY', cacheDir: '.midpack-cache/llm', concurrency: 4, maxRetries: 4, timeoutMs: 120_000, backoffMs: 1000, maxBackoffMs: 30_000, maxResponseBytes: 16 << 20 };

export type LlmOutcome<T = string> = { ok: true; text: string; value: T; cached: boolean } | { ok: false; reason: string; message: string };

const asText: AnswerParser<string> = (content) => ({ ok: true, value: content });

/** The chat-completions URL for a base URL such as http://host:8000/v1. */
export function completionsUrl(endpoint: string): string {
  const e = endpoint.replace(/\/+$/, '');
  return /\/chat\/completions$/.test(e) ? e : `${e}/chat/completions`;
}

/**
 * An endpoint may carry credentials (`http://user:password@host/v1`): they are taken out of the
 * URL and sent only as a Basic Authorization header, so neither messages, manifests nor the
 * cache ever hold them. `url` is the endpoint without them.
 */
export function splitCredentials(endpoint: string): { url: string; authorization?: string } {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    return { url: endpoint };
  }
  if (!u.username && !u.password) return { url: endpoint };
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  u.username = '';
  u.password = '';
  return { url: u.toString(), authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

/** The endpoint as it may be printed or stored: credentials replaced by `***`. */
export function redactEndpoint(endpoint: string): string {
  const { url, authorization } = splitCredentials(endpoint);
  return authorization ? url.replace('://', '://***@') : url;
}

/**
 * The answer depends on where it was asked and of which model as much as on the request. A
 * response format, when sent, is part of the request (the keys of requests without one are
 * unchanged, so existing caches stay valid).
 */
export function cacheKey(endpoint: string, model: string, prompt: string, input: string, responseFormat?: Record<string, unknown>): string {
  const parts: unknown[] = [completionsUrl(splitCredentials(endpoint).url), model, prompt, input];
  if (responseFormat) parts.push(responseFormat);
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** Reads a response body up to `max` bytes; undefined when it is longer (the rest is never read). */
async function readBounded(res: Response, max: number): Promise<string | undefined> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel();
    return undefined;
  }
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (bytes > max) {
      await res.body.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

type Attempt = { ok: true; text: string } | { ok: false; retry: boolean; reason: string; message: string; retryAfterMs?: number };

/** Token counts as the server reports them (`usage`), when it does. */
function countUsage(stats: LlmCounters, usage: unknown): void {
  const u = usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
  if (typeof u?.prompt_tokens === 'number' && Number.isFinite(u.prompt_tokens)) stats.prompt_tokens += u.prompt_tokens;
  if (typeof u?.completion_tokens === 'number' && Number.isFinite(u.completion_tokens)) stats.completion_tokens += u.completion_tokens;
}

export class LlmClient {
  private readonly url: string;
  private readonly basicAuth: string | undefined;

  constructor(
    private readonly options: LlmOptions,
    private readonly stats: LlmCounters,
  ) {
    const { url, authorization } = splitCredentials(options.endpoint);
    this.url = completionsUrl(url);
    this.basicAuth = authorization;
  }

  private cachePath(key: string): string {
    return join(this.options.cacheDir, key.slice(0, 2), `${key}.json`);
  }

  private readCache(key: string): string | undefined {
    try {
      const entry = JSON.parse(readFileSync(this.cachePath(key), 'utf8')) as { content?: unknown };
      return typeof entry.content === 'string' ? entry.content : undefined;
    } catch {
      return undefined;
    }
  }

  private writeCache(key: string, content: string): void {
    const path = this.cachePath(key);
    mkdirSync(join(this.options.cacheDir, key.slice(0, 2)), { recursive: true });
    const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    writeFileSync(tmp, JSON.stringify({ endpoint: this.url, model: this.options.model, content }) + '\n');
    renameSync(tmp, path);
  }

  private key(input: string): string {
    return cacheKey(this.options.endpoint, this.options.model, this.options.prompt, input, this.options.responseFormat);
  }

  /**
   * Caches an answer the caller accepted (the web guard passed it, the QA protocol parsed it).
   * Answers are not cached when they arrive, so a rejected one is asked again on a rerun instead
   * of being served forever.
   */
  remember(input: string, answer: string): void {
    this.writeCache(this.key(input), answer);
  }

  /** Rewrites `input` (the answer as text), from the cache when it was answered (and accepted) before. */
  rewrite(input: string): Promise<LlmOutcome<string>> {
    return this.complete(input, asText);
  }

  /**
   * Asks about `input`, from the cache when it was answered (and accepted) before. An answer
   * `parse` refuses is retried like a transport error and fails as `malformed_answer`.
   */
  async complete<T>(input: string, parse: AnswerParser<T>): Promise<LlmOutcome<T>> {
    const key = this.key(input);
    const cached = this.readCache(key);
    const fromCache = cached === undefined ? undefined : parse(cached);
    // A cache entry that no longer parses (written by an older parser) is asked again.
    if (cached !== undefined && fromCache?.ok) {
      this.stats.cache_hits++;
      return { ok: true, text: cached, value: fromCache.value, cached: true };
    }
    let last: Attempt | undefined;
    for (let attempt = 0; attempt <= this.options.maxRetries; attempt++) {
      if (attempt > 0) await this.backoff(attempt, last);
      last = await this.once(input);
      if (last.ok) {
        const parsed = parse(last.text);
        if (parsed.ok) return { ok: true, text: last.text, value: parsed.value, cached: false };
        last = { ok: false, retry: true, reason: 'malformed_answer', message: parsed.message };
      }
      if (!last.retry) break;
    }
    const failure = last as Extract<Attempt, { ok: false }>;
    return { ok: false, reason: failure.reason, message: failure.message };
  }

  private async backoff(attempt: number, last: Attempt | undefined): Promise<void> {
    this.stats.retries++;
    const backoff = Math.min(this.options.maxBackoffMs, this.options.backoffMs * 2 ** (attempt - 1));
    const wait = last && !last.ok && last.retryAfterMs !== undefined ? Math.min(this.options.maxBackoffMs, Math.max(backoff, last.retryAfterMs)) : backoff;
    await sleep(wait);
  }

  private async once(input: string): Promise<Attempt> {
    this.stats.requests++;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const key = process.env[this.options.apiKeyEnv];
    if (key) headers.authorization = `Bearer ${key}`;
    else if (this.basicAuth) headers.authorization = this.basicAuth;
    const body = {
      model: this.options.model,
      temperature: 0,
      messages: [
        { role: 'system', content: this.options.prompt },
        { role: 'user', content: input },
      ],
      ...(this.options.maxTokens ? { max_tokens: this.options.maxTokens } : {}),
      ...(this.options.responseFormat ? { response_format: this.options.responseFormat } : {}),
    };
    let res: Response;
    let text: string | undefined;
    const maxBytes = this.options.maxResponseBytes ?? LLM_DEFAULTS.maxResponseBytes;
    try {
      res = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(this.options.timeoutMs) });
      text = await readBounded(res, maxBytes);
    } catch (e) {
      const name = (e as Error).name;
      const timeout = name === 'TimeoutError' || name === 'AbortError';
      return { ok: false, retry: true, reason: timeout ? 'timeout' : 'network', message: timeout ? `no answer within ${this.options.timeoutMs} ms` : (e as Error).message };
    }
    if (res.status === 429 || res.status >= 500) {
      const retryAfter = Number(res.headers.get('retry-after'));
      return { ok: false, retry: true, reason: res.status === 429 ? 'http_429' : 'http_5xx', message: `HTTP ${res.status}`, retryAfterMs: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined };
    }
    if (res.status !== 200) return { ok: false, retry: false, reason: `http_${res.status}`, message: `HTTP ${res.status}` };
    if (text === undefined) return { ok: false, retry: false, reason: 'response_too_large', message: `the answer is over ${maxBytes} bytes` };
    try {
      const json = JSON.parse(text) as { choices?: { message?: { content?: unknown } }[]; usage?: unknown };
      countUsage(this.stats, json.usage);
      const content = json.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new Error('no choices[0].message.content string');
      return { ok: true, text: content };
    } catch (e) {
      return { ok: false, retry: true, reason: 'malformed_response', message: (e as Error).message };
    }
  }
}
