import { parseWeights } from './weights.js';

/**
 * The options layer: every stage and source describes its options once, as a table of specs
 * (type, range or choices, default, help). `resolveTable` checks a raw mapping against it (the
 * CLI's parsed flags and a config's `options:` go through the same call) and fills the defaults,
 * so a flag and its config key cannot drift apart. Names: the config key is the spec's key
 * (`maxFileBytes`), the flag its kebab-case (`--max-file-bytes`), the manifest its snake_case
 * (`max_file_bytes`); see docs/options.md.
 *
 * We use a small table, not zod: the same table also writes each command's flags and help text
 * (src/cli/options.ts), which a schema library would need a second description for.
 */
interface BaseSpec {
  help: string;
  /** Flag value placeholder in --help (`<n>` by default for numbers). */
  arg?: string;
}
export interface IntSpec extends BaseSpec {
  type: 'int';
  min?: number;
  max?: number;
  default?: number;
}
export interface NumberSpec extends BaseSpec {
  type: 'number';
  min?: number;
  max?: number;
  default?: number;
}
export interface BooleanSpec extends BaseSpec {
  type: 'boolean';
  default?: boolean;
}
export interface StringSpec extends BaseSpec {
  type: 'string';
  choices?: readonly string[];
  default?: string;
  /** `--no-KEY` on the CLI (false) means the empty string. */
  negatable?: boolean;
  /** Names files or folders (comma-separated) that must exist: checked before any work (src/io/paths.ts). */
  path?: boolean;
}
/** "a=0.3,b=0.7" or "a,b": names from `keys`, weights >= 0, one positive. */
export interface WeightsSpec extends BaseSpec {
  type: 'weights';
  keys: readonly string[];
  default?: string;
}
export type OptionSpec = IntSpec | NumberSpec | BooleanSpec | StringSpec | WeightsSpec;
export type OptionTable = Record<string, OptionSpec>;

/** A refused option: the key, the value as given, and why. Callers add the path (config) or flag (CLI). */
export class OptionError extends Error {
  constructor(
    readonly key: string,
    readonly value: unknown,
    readonly reason: string,
  ) {
    super(`${key}: ${reason}${value === undefined ? '' : `, got ${JSON.stringify(value)}`}`);
    this.name = 'OptionError';
  }
}

/** 1 MiB: the one default size cap of a file in every stage that reads files. */
export const DEFAULT_MAX_FILE_BYTES = 1 << 20;

/** Validated values with every default filled (keys without a default stay absent when not given). */
export function resolveTable(table: OptionTable, raw: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(raw)) {
    if (!(key in table)) throw new OptionError(key, undefined, `unknown key (allowed: ${Object.keys(table).join(', ') || 'none'})`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(table)) {
    const v = raw[key] === undefined ? spec.default : checkValue(key, spec, raw[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function checkValue(key: string, spec: OptionSpec, v: unknown): unknown {
  const fail = (reason: string): never => {
    throw new OptionError(key, v, reason);
  };
  switch (spec.type) {
    case 'int':
    case 'number': {
      const range = `${spec.min ?? '-∞'}..${spec.max ?? '∞'}`;
      const what = spec.type === 'int' ? 'an integer' : 'a number';
      if (typeof v !== 'number' || !Number.isFinite(v) || (spec.type === 'int' && !Number.isInteger(v))) fail(`must be ${what} in ${range}`);
      if ((spec.min !== undefined && (v as number) < spec.min) || (spec.max !== undefined && (v as number) > spec.max)) fail(`must be ${what} in ${range}`);
      return v;
    }
    case 'boolean':
      return typeof v === 'boolean' ? v : fail('must be true or false');
    case 'string':
      if (v === false && spec.negatable) return '';
      if (typeof v !== 'string') fail('must be a string');
      if (spec.choices && !spec.choices.includes(v as string)) fail(`must be one of ${spec.choices.join(', ')}`);
      return v;
    case 'weights':
      if (typeof v !== 'string') fail(`must be weights like "${spec.keys.map((k) => `${k}=1`).join(',')}"`);
      try {
        parseWeights(v as string, spec.keys, key);
      } catch (e) {
        fail((e as Error).message.replace(`${key}: `, ''));
      }
      return v;
  }
}

/** The default of a spec as --help shows it (`(default: X)`), or undefined. */
export function defaultText(spec: OptionSpec): string | undefined {
  if (spec.default === undefined || spec.default === false) return undefined;
  // Commander's own style, for the flags it gives defaults to: strings quoted, numbers plain.
  return typeof spec.default === 'string' ? JSON.stringify(spec.default) : String(spec.default);
}

/** {a: 0.3, b: 0.7} as "a=0.3,b=0.7": the string form defaults and manifests use. */
export function formatWeights(w: Record<string, number | undefined>): string {
  return Object.entries(w)
    .filter(([, n]) => n !== undefined)
    .map(([k, n]) => `${k}=${n}`)
    .join(',');
}

/** Weights from a spec already checked by `resolveTable`, every key of `keys` present (0 when unnamed). */
export function weightsOf<K extends string>(spec: string, keys: readonly K[]): Record<K, number> {
  const zero = Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
  return { ...zero, ...parseWeights(spec, keys, 'weights') };
}
