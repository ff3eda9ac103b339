import type { OptionTable } from '../../core/options.js';
import type { Doc } from '../../doc/document.js';
import { parseWeights } from '../../core/weights.js';
import { LOSS_ON, type LossOn } from './chatml.js';
import { TEMPLATE_NAMES, type TemplateName } from './templates/index.js';
import type { RequireOutcome } from './filters.js';

/** The trajectories source's options: the CLI command and `midpack run` both resolve them here. */
export interface TrajectoriesOptions {
  /** Template weights: each trajectory gets one template drawn by them, seeded by its source. */
  templates: Record<TemplateName, number>;
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
  /** Counts a document's tokens for the stats (the CLI's --count-tokens); not a config value. */
  countTokens?: (doc: Pick<Doc, 'text' | 'special_spans'>) => number;
}

export const TRAJECTORIES_OPTION_KEYS = ['templates', 'allTemplates', 'lossOn', 'maxTrajectoryBytes', 'requireTermination', 'requireValidCalls', 'outcomes', 'require'] as const;
export const REQUIRE_OUTCOMES = ['resolved', 'any'] as const;

/** The same options as an option table (the registry's form; resolveTrajectoriesOptions checks them). */
export const TRAJECTORIES_TABLE = {
  templates: { type: 'weights', keys: TEMPLATE_NAMES, default: 'qwen3-coder=1,hermes=1,text-action=1', arg: '<weights>', help: 'tool-call templates chosen per trajectory by seeded weight' },
  allTemplates: { type: 'boolean', default: false, help: 'every template for every trajectory' },
  lossOn: { type: 'string', choices: LOSS_ON, default: 'assistant', help: 'turns in the loss: assistant, all or last-assistant' },
  maxTrajectoryBytes: { type: 'int', min: 1, default: 32 << 20, help: 'a trajectory over this many bytes is dropped unread' },
  requireTermination: { type: 'boolean', default: true, help: 'drop a run that did not end by itself, where its format records the end (no_termination)' },
  requireValidCalls: { type: 'boolean', default: true, help: 'drop a trajectory with a malformed tool call (undeclared tool, missing or mistyped argument, unparsed text action)' },
  outcomes: { type: 'string', arg: '<files>', help: 'SWE-bench-style reports (instance id -> resolved), comma-separated or a list, joined by instance id' },
  require: { type: 'string', choices: REQUIRE_OUTCOMES, help: 'resolved: keep only solved tasks (unresolved, no_outcome); any: keep every outcome (default: resolved with outcomes, else any)' },
} satisfies OptionTable;

const DEFAULTS: TrajectoriesOptions = {
  templates: { 'qwen3-coder': 1, hermes: 1, 'text-action': 1 },
  allTemplates: false,
  lossOn: 'assistant',
  maxTrajectoryBytes: 32 << 20,
  requireTermination: true,
  requireValidCalls: true,
  outcomes: [],
  require: 'any',
};

/** The defaults, for --help texts. */
export const TRAJECTORIES_DEFAULTS: Readonly<TrajectoriesOptions> = DEFAULTS;

/**
 * Validates raw options (CLI strings or config values): `templates` as "NAME=W,..." or a mapping,
 * `allTemplates` a boolean, `lossOn` one of assistant|all|last-assistant, `maxTrajectoryBytes` an
 * integer >= 1, `requireTermination`/`requireValidCalls` booleans, `outcomes` a path or a list
 * (comma-separated in one string), `require` resolved|any. An unknown key or a bad value throws an
 * error naming it. The outcome files are read when the source starts (filters.ts loadOutcomes).
 */
export function resolveTrajectoriesOptions(raw: Record<string, unknown>): TrajectoriesOptions {
  for (const k of Object.keys(raw)) {
    if (!(TRAJECTORIES_OPTION_KEYS as readonly string[]).includes(k)) throw new Error(`trajectories: unknown option "${k}" (allowed: ${TRAJECTORIES_OPTION_KEYS.join(', ')})`);
  }
  const o: TrajectoriesOptions = { ...DEFAULTS, templates: { ...DEFAULTS.templates } };
  if (raw.templates !== undefined) o.templates = templateWeights(raw.templates);
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
  return o;
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
