import { resolveTable, type OptionTable } from '../../core/options.js';
import type { Doc } from '../../doc/document.js';
import { parseWeights } from '../../core/weights.js';
import { LOSS_ON, type LossOn } from './chatml.js';
import { TEMPLATE_NAMES, type TemplateName } from './templates/index.js';
import type { RequireOutcome } from './filters.js';
import type { ChatTemplate } from './jinja/mask.js';
import type { TemplateBounds } from './jinja/bounds.js';
import { loadChatTemplates, parseChatTemplateSpec } from './jinja/sources.js';
import { TEMPLATE_DATE } from './jinja/engine.js';
import { TURN_MODES, type TurnMode } from './jinja/turns.js';

/**
 * The trajectories source's options: the CLI command and `midpack run` both resolve them here.
 * The `template*` bounds (TemplateBounds) hold each chat-template render (jinja/bounds.ts).
 */
export interface TrajectoriesOptions extends TemplateBounds {
  /** Built-in template weights: each trajectory gets one template drawn by these and the chat templates', seeded by its source. */
  templates: Record<TemplateName, number>;
  /** Models' own chat templates (`--chat-template SRC[=W]`), loaded, with their weights. */
  chatTemplates: { template: ChatTemplate; weight: number }[];
  /** Variables for every chat template (`--template-kwargs JSON`), e.g. `enable_thinking`. */
  templateKwargs: Record<string, unknown>;
  /** The tokenizer the documents will be packed with: its added tokens are the special spans of chat-template text. */
  tokenizer: string;
  /** Every template for every trajectory (the weights are then ignored). */
  allTemplates: boolean;
  /** Which turns are in the loss. */
  lossOn: LossOn;
  /** A trajectory (a `.traj`/`.json` file, a session file or a JSONL row) over this many bytes is dropped unread. */
  maxTrajectoryBytes: number;
  /** Drop a trajectory whose format records how the run ended when it did not end by itself (`no_termination`). */
  requireTermination: boolean;
  /** Drop a trajectory with a malformed tool call (counted per reason). */
  requireValidCalls: boolean;
  /** SWE-bench-style outcome reports, joined by instance id. */
  outcomes: string[];
  /** `resolved`: keep only trajectories whose task is known solved; `any`: keep every outcome (recorded in meta.resolved). Default: resolved with --outcomes, else any. */
  require: RequireOutcome;
  /** `whole`: one render of the trajectory; `faithful`: each assistant turn in the context it was generated in (jinja/turns.ts); `auto`: faithful where the template is unstable on the row. Chat templates only. */
  turns: TurnMode;
  /** The date `strftime_now` answers for (`--template-date YYYY-MM-DD`, UTC midnight). */
  templateDate: Date;
  /** Counts a document's tokens for the stats (the CLI's --count-tokens); not a config value. */
  countTokens?: (doc: Pick<Doc, 'text' | 'special_spans'>) => number;
}

/**
 * Bounds on one render of a chat template (jinja/bounds.ts): a row past one is dropped as
 * `template_limit`. The defaults are far past what the published templates take on real
 * trajectories (docs/trajectories.md gives the measured figures).
 */
const TEMPLATE_BOUNDS_TABLE = {
  templateMaxSteps: { type: 'int', min: 1, default: 1_000_000, help: "steps a chat-template render may take (expressions evaluated, loop iterations, list items built), plus --template-steps-ratio times the row's characters" },
  templateStepsRatio: { type: 'number', min: 0, default: 4, help: 'steps a chat-template render may take per character of the row (its JSON), added to --template-max-steps' },
  templateMaxChars: { type: 'int', min: 1, default: 4 << 20, help: "characters any string a chat-template render builds may hold (its output too), plus --template-chars-ratio times the row's" },
  templateCharsRatio: { type: 'number', min: 0, default: 8, help: "characters a chat-template render may write per character of the row (its JSON), added to --template-max-chars" },
  templateMaxDepth: { type: 'int', min: 1, max: 500, default: 200, help: 'how deeply evaluations may nest in a chat-template render (macros calling macros)' },
  templateTimeoutMs: { type: 'int', min: 1, default: 60_000, help: 'wall time of one chat-template render, in ms (a backstop: the one bound that depends on the machine)' },
} satisfies OptionTable;
export const TEMPLATE_BOUND_KEYS = Object.keys(TEMPLATE_BOUNDS_TABLE) as (keyof typeof TEMPLATE_BOUNDS_TABLE)[];

export const TRAJECTORIES_OPTION_KEYS = ['templates', 'allTemplates', 'lossOn', 'maxTrajectoryBytes', 'requireTermination', 'requireValidCalls', 'outcomes', 'require', 'chatTemplates', 'bosToken', 'eosToken', 'templateKwargs', 'jsonArguments', 'tokenizer', ...TEMPLATE_BOUND_KEYS, 'turns', 'templateDate'] as const;
export const REQUIRE_OUTCOMES = ['resolved', 'any'] as const;

/** The same options as an option table (the registry's form; resolveTrajectoriesOptions checks them). */
export const TRAJECTORIES_TABLE = {
  templates: { type: 'weights', keys: TEMPLATE_NAMES, default: 'qwen3-coder=1,hermes=1,text-action=1', arg: '<weights>', help: 'tool-call templates chosen per trajectory by seeded weight' },
  allTemplates: { type: 'boolean', default: false, help: 'every template for every trajectory' },
  lossOn: { type: 'string', choices: LOSS_ON, default: 'assistant', help: 'turns in the loss: assistant, all or last-assistant' },
  maxTrajectoryBytes: { type: 'int', min: 1, default: 32 << 20, help: 'a trajectory over this many bytes is dropped unread' },
  requireTermination: { type: 'boolean', default: true, help: 'drop a run that did not end by itself, where its format records the end (no_termination)' },
  requireValidCalls: { type: 'boolean', default: true, help: 'drop a trajectory with a malformed tool call (undeclared tool, missing or mistyped argument, unparsed text action)' },
  outcomes: { type: 'string', arg: '<files>', path: true, help: 'SWE-bench-style reports (instance id -> resolved), comma-separated or a list, joined by instance id' },
  require: { type: 'string', choices: REQUIRE_OUTCOMES, help: 'resolved: keep only solved tasks (unresolved, no_outcome); any: keep every outcome (default: resolved with outcomes, else any)' },
  chatTemplates: { type: 'string', arg: '<src[=w]>', help: "models' own chat templates: .jinja files, tokenizer_config.json, model folders or folders of .jinja files (a list)" },
  bosToken: { type: 'string', help: 'bos_token for chat templates whose source gives none' },
  eosToken: { type: 'string', help: 'eos_token for chat templates whose source gives none' },
  templateKwargs: { type: 'string', arg: '<json>', help: 'variables for every chat template, a JSON object (e.g. {"enable_thinking": false})' },
  jsonArguments: { type: 'string', arg: '<names>', help: 'chat templates given tool-call arguments as JSON strings (DeepSeek-V3.1 style)' },
  turns: { type: 'string', choices: TURN_MODES, default: 'whole', help: 'chat templates: whole (one render), faithful (each assistant turn in the context it was generated in: the generation prompt of the messages before it, then the turn; nesting turns share a sample), auto (faithful only where the template is unstable on the row)' },
  templateDate: { type: 'string', arg: '<yyyy-mm-dd>', default: '2024-07-26', help: 'the date strftime_now gives chat templates (recorded in the manifest)' },
  tokenizer: { type: 'string', default: 'qwen3', help: 'the packing tokenizer: only its added tokens become special spans in chat-template text' },
  ...TEMPLATE_BOUNDS_TABLE,
} satisfies OptionTable;

const DEFAULTS: TrajectoriesOptions = {
  ...(resolveTable(TEMPLATE_BOUNDS_TABLE, {}) as unknown as TemplateBounds),
  templates: { 'qwen3-coder': 1, hermes: 1, 'text-action': 1 },
  chatTemplates: [],
  templateKwargs: {},
  tokenizer: 'qwen3',
  allTemplates: false,
  lossOn: 'assistant',
  maxTrajectoryBytes: 32 << 20,
  requireTermination: true,
  requireValidCalls: true,
  outcomes: [],
  require: 'any',
  turns: 'whole',
  templateDate: TEMPLATE_DATE,
};

/** The defaults, for --help texts. */
export const TRAJECTORIES_DEFAULTS: Readonly<TrajectoriesOptions> = DEFAULTS;

/**
 * Validates raw options (CLI strings or config values): `templates` as "NAME=W,..." or a mapping,
 * `allTemplates` a boolean, `lossOn` one of assistant|all|last-assistant, `maxTrajectoryBytes` an
 * integer >= 1, `requireTermination`/`requireValidCalls` booleans, `outcomes` a path or a list
 * (comma-separated in one string), `require` resolved|any (the outcome files are read when the
 * source starts, filters.ts loadOutcomes); `chatTemplates` a "SRC[=W]" string, a list of them or a mapping SRC → weight
 * (read here: a missing file or a template that does not parse is an error now, not per
 * trajectory); `bosToken`/`eosToken` strings; `templateKwargs` a JSON object or its text;
 * `jsonArguments` chat-template names ("a,b" or a list); `tokenizer` a name or path; `turns`
 * whole|faithful|auto (not faithful or auto with lossOn all); `templateDate` YYYY-MM-DD; the
 * `template*` bounds numbers in their table's ranges (resolveTable). With chat
 * templates and no `templates`, the built-in templates get weight 0. An unknown key or a bad
 * value throws an error naming it.
 */
export function resolveTrajectoriesOptions(raw: Record<string, unknown>): TrajectoriesOptions {
  for (const k of Object.keys(raw)) {
    if (!(TRAJECTORIES_OPTION_KEYS as readonly string[]).includes(k)) throw new Error(`trajectories: unknown option "${k}" (allowed: ${TRAJECTORIES_OPTION_KEYS.join(', ')})`);
  }
  const o: TrajectoriesOptions = { ...DEFAULTS, templates: { ...DEFAULTS.templates } };
  if (raw.chatTemplates !== undefined) o.chatTemplates = chatTemplates(raw);
  if (raw.templates !== undefined) o.templates = templateWeights(raw.templates);
  else if (o.chatTemplates.length) o.templates = { 'qwen3-coder': 0, hermes: 0, 'text-action': 0 };
  if (raw.allTemplates !== undefined) {
    if (typeof raw.allTemplates !== 'boolean') throw new Error(`trajectories: allTemplates must be true or false, got ${JSON.stringify(raw.allTemplates)}`);
    o.allTemplates = raw.allTemplates;
  }
  if (raw.lossOn !== undefined) {
    if (!(LOSS_ON as readonly unknown[]).includes(raw.lossOn)) throw new Error(`trajectories: lossOn must be one of ${LOSS_ON.join(', ')}, got ${JSON.stringify(raw.lossOn)}`);
    o.lossOn = raw.lossOn as LossOn;
  }
  for (const k of ['requireTermination', 'requireValidCalls'] as const) {
    if (raw[k] === undefined) continue;
    if (typeof raw[k] !== 'boolean') throw new Error(`trajectories: ${k} must be true or false, got ${JSON.stringify(raw[k])}`);
    o[k] = raw[k];
  }
  o.outcomes = outcomeFiles(raw.outcomes);
  o.require = o.outcomes.length ? 'resolved' : 'any';
  if (raw.require !== undefined) {
    if (!(REQUIRE_OUTCOMES as readonly unknown[]).includes(raw.require)) throw new Error(`trajectories: require must be one of ${REQUIRE_OUTCOMES.join(', ')}, got ${JSON.stringify(raw.require)}`);
    o.require = raw.require as RequireOutcome;
  }
  if (raw.maxTrajectoryBytes !== undefined) {
    const v = raw.maxTrajectoryBytes;
    const n = typeof v === 'string' ? Number(v.replace(/_/g, '')) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new Error(`trajectories: maxTrajectoryBytes must be an integer >= 1, got ${JSON.stringify(v)}`);
    o.maxTrajectoryBytes = n;
  }
  Object.assign(o, resolveTable(TEMPLATE_BOUNDS_TABLE, Object.fromEntries(TEMPLATE_BOUND_KEYS.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]))));
  if (raw.templateKwargs !== undefined) o.templateKwargs = templateKwargs(raw.templateKwargs);
  if (raw.turns !== undefined) {
    if (!(TURN_MODES as readonly unknown[]).includes(raw.turns)) throw new Error(`trajectories: turns must be one of ${TURN_MODES.join(', ')}, got ${JSON.stringify(raw.turns)}`);
    o.turns = raw.turns as TurnMode;
    if (o.turns !== 'whole' && o.lossOn === 'all') throw new Error(`trajectories: turns ${o.turns} trains the assistant turns only; it cannot be used with lossOn all`);
  }
  if (raw.templateDate !== undefined) o.templateDate = templateDate(raw.templateDate);
  if (raw.tokenizer !== undefined) {
    if (typeof raw.tokenizer !== 'string' || raw.tokenizer === '') throw new Error(`trajectories: tokenizer must be a name or a path, got ${JSON.stringify(raw.tokenizer)}`);
    o.tokenizer = raw.tokenizer;
  }
  return o;
}

/** A string, or a list of strings, or "a,b": the list. */
function stringList(v: unknown, key: string): string[] {
  if (typeof v === 'string') return v.split(',').filter((x) => x !== '');
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new Error(`trajectories: ${key} must be a string or a list of strings, got ${JSON.stringify(v)}`);
}

function chatTemplates(raw: Record<string, unknown>): TrajectoriesOptions['chatTemplates'] {
  const v = raw.chatTemplates;
  const specs =
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.entries(v).map(([source, w]) => parseChatTemplateSpec(`${source}=${String(w)}`))
      : (typeof v === 'string' ? [v] : stringList(v, 'chatTemplates')).map(parseChatTemplateSpec);
  const tokens: Record<string, unknown> = { bosToken: raw.bosToken, eosToken: raw.eosToken };
  for (const [k, t] of Object.entries(tokens)) if (t !== undefined && typeof t !== 'string') throw new Error(`trajectories: ${k} must be a string, got ${JSON.stringify(t)}`);
  const json = new Set(raw.jsonArguments === undefined ? [] : stringList(raw.jsonArguments, 'jsonArguments'));
  const out: TrajectoriesOptions['chatTemplates'] = [];
  for (const spec of specs) {
    for (const t of loadChatTemplates(spec.source)) {
      if ((TEMPLATE_NAMES as readonly string[]).includes(t.name) || out.some((x) => x.template.name === t.name)) {
        throw new Error(`trajectories: two templates are named "${t.name}" (${t.source}); rename the file or folder`);
      }
      const template: ChatTemplate = { bosToken: raw.bosToken as string | undefined, eosToken: raw.eosToken as string | undefined, ...dropUndefined(t), jsonArguments: json.delete(t.name) };
      out.push({ template, weight: spec.weight });
    }
  }
  if (json.size) throw new Error(`trajectories: jsonArguments names no chat template: ${[...json].join(', ')} (names: ${out.map((x) => x.template.name).join(', ')})`);
  return out;
}

const dropUndefined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function templateKwargs(v: unknown): Record<string, unknown> {
  let o = v;
  if (typeof v === 'string') {
    try {
      o = JSON.parse(v);
    } catch (e) {
      throw new Error(`trajectories: templateKwargs is not JSON (${(e as Error).message})`);
    }
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new Error(`trajectories: templateKwargs must be a JSON object, got ${JSON.stringify(v)}`);
  for (const k of ['messages', 'tools', 'documents', 'add_generation_prompt']) if (k in o) throw new Error(`trajectories: templateKwargs cannot set "${k}"`);
  return o as Record<string, unknown>;

}

/** "YYYY-MM-DD" as that day's UTC midnight; anything else (or a day that does not exist) is refused. */
function templateDate(v: unknown): Date {
  const m = typeof v === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(v) : null;
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!d || d.toISOString().slice(0, 10) !== v) throw new Error(`trajectories: templateDate must be a date YYYY-MM-DD, got ${JSON.stringify(v)}`);
  return d;
}

/** Outcome report paths: a list, or one comma-separated string (the CLI's repeated flag gives a list). */
function outcomeFiles(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  const list = typeof v === 'string' ? v.split(',') : v;
  if (!Array.isArray(list) || !list.every((f) => typeof f === 'string')) throw new Error(`trajectories: outcomes must be a file path or a list of them, got ${JSON.stringify(v)}`);
  return list.map((f) => f.trim()).filter((f) => f !== '');
}

function templateWeights(v: unknown): Record<TemplateName, number> {
  const zero = { 'qwen3-coder': 0, hermes: 0, 'text-action': 0 };
  if (typeof v === 'string') return { ...zero, ...parseWeights(v, TEMPLATE_NAMES, 'trajectories: templates') };
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const spec = Object.entries(v).map(([k, w]) => `${k}=${String(w)}`).join(',');
    return { ...zero, ...parseWeights(spec, TEMPLATE_NAMES, 'trajectories: templates') };
  }
  throw new Error(`trajectories: templates must be "NAME=W,..." or a mapping, got ${JSON.stringify(v)}`);
}
