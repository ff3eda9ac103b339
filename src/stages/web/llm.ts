import type { WebStats } from './stats.js';
import { bump } from './stats.js';

/**
 * The web rewrite's use of the shared LLM client (src/llm/client.ts): its system prompt and how a
 * failed rewrite is counted. The client itself (cache, retries, concurrency, bounds) serves every
 * stage that talks to a model.
 */
export const DEFAULT_PROMPT = `You rewrite web pages into clean, faithful Markdown for a training corpus.
Rewrite the page below. Rules:
- Keep all of its content and its order: every heading, paragraph, list, table and code block.
- Fix only formatting: broken paragraphs, leftover navigation words, spacing, Markdown syntax.
- Copy every fenced code block exactly, character for character, with its language tag.
- Do not add anything that is not in the page: no new facts, explanations, summaries, links, URLs or references.
- Do not translate. Answer with the Markdown only, without any preamble.`;

/** Counts a failed rewrite by reason (the page falls back to the rule-based result). */
export function countFailure(stats: WebStats['llm'], reason: string): void {
  bump(stats.failed_by_reason, reason);
  stats.fallbacks++;
}

// The shared client's names, where the web stage's callers have always found them.
export { LlmClient, LLM_DEFAULTS, cacheKey, completionsUrl, redactEndpoint, splitCredentials, type LlmOptions, type LlmOutcome } from '../../llm/client.js';
