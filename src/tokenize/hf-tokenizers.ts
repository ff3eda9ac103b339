import { createRequire } from 'node:module';
import type { Tokenizer } from '@huggingface/tokenizers';

type TokenizerClass = typeof Tokenizer;
let loaded: TokenizerClass | undefined;

/**
 * @huggingface/tokenizers' Tokenizer, loaded on first use (its CommonJS build, so synchronously):
 * only the hf backend and the fast backend's pattern check build one, and every thread that
 * imports the tokenizer module (a pack's main thread and workers, a run's prepare workers) paid
 * its 100 KB at start.
 */
export function hfTokenizerClass(): TokenizerClass {
  return (loaded ??= (createRequire(import.meta.url)('@huggingface/tokenizers') as { Tokenizer: TokenizerClass }).Tokenizer);
}
