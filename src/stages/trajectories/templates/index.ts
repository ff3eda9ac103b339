import type { Template } from '../chatml.js';
import { hermes } from './hermes.js';
import { qwen3Coder } from './qwen3-coder.js';
import { textAction } from './text-action.js';

/** Every tool-call template, by name: each a renderer and its own parser. */
export const TEMPLATE_NAMES = ['qwen3-coder', 'hermes', 'text-action'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

export const TEMPLATES: Record<TemplateName, Template> = {
  'qwen3-coder': qwen3Coder,
  hermes,
  'text-action': textAction,
};
