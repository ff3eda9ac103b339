import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Span } from '../../../doc/document.js';
import { tokenizerPath } from '../../../tokenize/prepared.js';
import { parseTemplate } from './engine.js';
import type { ChatTemplate, SpecialFinder } from './mask.js';

/**
 * `--chat-template SRC[=WEIGHT]`: where a model's own chat template is read from.
 *
 *   FILE.jinja                one template, named by the file (`qwen3.jinja`)
 *   tokenizer_config.json     its `chat_template`: a string, or a named list ({name, template}),
 *                             of which `tool_use` renders trajectories with tools and `default`
 *                             the others (transformers' choice); bos/eos tokens from it. Named by
 *                             its folder.
 *   a model folder            its chat_template.jinja (bos/eos from its tokenizer_config.json
 *                             when there is one), else its tokenizer_config.json
 *   a folder of .jinja files  one template per file
 *
 * `--bos-token` / `--eos-token` give the special tokens when the source has none (a .jinja file);
 * they override nothing a tokenizer_config gives.
 */
export interface ChatTemplateSpec {
  source: string;
  weight: number;
}

/** "PATH" or "PATH=WEIGHT". */
export function parseChatTemplateSpec(s: string): ChatTemplateSpec {
  const m = /^(.*)=(\d+(?:\.\d+)?)$/.exec(s);
  const spec = m ? { source: m[1]!, weight: Number(m[2]) } : { source: s, weight: 1 };
  if (spec.source === '') throw new Error(`trajectories: --chat-template "${s}" names no file`);
  return spec;
}

interface Tokens {
  bosToken?: string;
  eosToken?: string;
}

/** A special token in tokenizer_config.json: a string or an AddedToken object. */
function tokenText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v !== null && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return undefined;
}

function readJson(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`trajectories: ${path}: not readable JSON (${(e as Error).message})`);
  }
}

function tokensOf(config: Record<string, unknown>): Tokens {
  return { bosToken: tokenText(config.bos_token), eosToken: tokenText(config.eos_token) };
}

function fromText(name: string, source: string, text: string, tokens: Tokens, toolUse?: string): Omit<ChatTemplate, 'jsonArguments'> {
  try {
    const t: Omit<ChatTemplate, 'jsonArguments'> = { name, source, template: parseTemplate(text), ...tokens };
    if (toolUse !== undefined) t.toolUse = parseTemplate(toolUse);
    return t;
  } catch (e) {
    throw new Error(`trajectories: ${source}: the chat template does not parse (${(e as Error).message})`);
  }
}

function fromTokenizerConfig(path: string, name: string): Omit<ChatTemplate, 'jsonArguments'> {
  const config = readJson(path);
  const tpl = config.chat_template;
  if (typeof tpl === 'string') return fromText(name, path, tpl, tokensOf(config));
  if (Array.isArray(tpl)) {
    const named = new Map(tpl.map((x: { name?: unknown; template?: unknown }) => [x?.name, x?.template]));
    const def = named.get('default') ?? named.get('tool_use');
    if (typeof def !== 'string') throw new Error(`trajectories: ${path}: "chat_template" has no "default" template`);
    const toolUse = named.get('tool_use');
    return fromText(name, path, def, tokensOf(config), typeof toolUse === 'string' ? toolUse : undefined);
  }
  throw new Error(`trajectories: ${path}: no "chat_template" string or named list`);
}

/** The templates one SRC gives (several for a folder of .jinja files). */
export function loadChatTemplates(source: string): Omit<ChatTemplate, 'jsonArguments'>[] {
  if (!existsSync(source)) throw new Error(`trajectories: --chat-template ${source}: no such file or folder`);
  if (statSync(source).isDirectory()) {
    const config = join(source, 'tokenizer_config.json');
    const tokens = existsSync(config) ? tokensOf(readJson(config)) : {};
    if (existsSync(join(source, 'chat_template.jinja'))) return [fromText(basename(source), join(source, 'chat_template.jinja'), readFileSync(join(source, 'chat_template.jinja'), 'utf8'), tokens)];
    if (existsSync(config)) return [fromTokenizerConfig(config, basename(source))];
    const files = readdirSync(source).filter((n) => n.endsWith('.jinja')).sort();
    if (files.length === 0) throw new Error(`trajectories: --chat-template ${source}: no chat_template.jinja, tokenizer_config.json or .jinja files`);
    return files.map((n) => fromText(n, join(source, n), readFileSync(join(source, n), 'utf8'), {}));
  }
  if (source.endsWith('.json')) return [fromTokenizerConfig(source, basename(dirname(source)) || basename(source))];
  return [fromText(basename(source), source, readFileSync(source, 'utf8'), {})];
}

/**
 * Finds the added tokens of a tokenizer.json in text: the strings the packer encodes as single
 * special ids. Another model's marker strings are not among them and stay text.
 */
export function specialFinder(tokenizer: string): SpecialFinder {
  let f = finders.get(tokenizer);
  if (!f) finders.set(tokenizer, (f = makeSpecialFinder(tokenizer)));
  return f;
}

/** One finder per tokenizer per process: reading a tokenizer.json costs about as much as rendering a thousand trajectories. */
const finders = new Map<string, SpecialFinder>();

function makeSpecialFinder(tokenizer: string): SpecialFinder {
  const json = JSON.parse(readFileSync(tokenizerPath(tokenizer), 'utf8')) as { added_tokens?: { content: string }[] };
  const tokens = (json.added_tokens ?? []).map((t) => t.content).sort((x, y) => y.length - x.length);
  // By first character, longest first. The text is scanned once for the first characters; the
  // ranges (ascending) take the hits inside them.
  const byFirst = new Map<string, string[]>();
  for (const t of tokens) byFirst.set(t[0]!, [...(byFirst.get(t[0]!) ?? []), t]);
  const firsts = [...byFirst.keys()];
  return (text: string, ranges: readonly Span[], out: Span[]) => {
    const starts: number[] = [];
    for (const c of firsts) for (let at = text.indexOf(c); at >= 0; at = text.indexOf(c, at + 1)) starts.push(at);
    if (firsts.length > 1) starts.sort((x, y) => x - y);
    let k = 0;
    for (const [from, to] of ranges) {
      while (k < starts.length && starts[k]! < from) k++;
      for (; k < starts.length && starts[k]! < to; k++) {
        const p = starts[k]!;
        const hit = byFirst.get(text[p]!)!.find((t) => p + t.length <= to && text.startsWith(t, p));
        if (!hit) continue;
        out.push([p, p + hit.length]);
        while (k + 1 < starts.length && starts[k + 1]! < p + hit.length) k++;
      }
    }
  };
}
