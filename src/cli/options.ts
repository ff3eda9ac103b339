import type { Command } from 'commander';
import { defaultText, OptionError, resolveTable, type OptionSpec, type OptionTable } from '../core/options.js';
import { pathOptions, requirePaths } from '../io/paths.js';

/**
 * Flags from a stage's option table (src/core/options.ts): `--kebab-case` of each key, help with
 * one default style, `(default: X)`. Values are only coerced here (a number flag becomes a number);
 * checking ranges, choices and defaults is the stage resolver's job, the same one a config uses.
 */
export const flagOf = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

export function addOptions(cmd: Command, table: OptionTable, keys: readonly string[] = Object.keys(table)): Command {
  for (const key of keys) {
    const spec = table[key]!;
    const flag = flagOf(key);
    const help = helpText(spec);
    if (spec.type === 'boolean') {
      cmd.option(spec.default === true ? `--no-${flag.slice(2)}` : flag, help);
    } else {
      const flags = `${flag} ${spec.arg ?? (isNumeric(spec) ? '<n>' : '<value>')}`;
      if (isNumeric(spec)) cmd.option(flags, help, toNumber);
      else cmd.option(flags, help);
      if (spec.type === 'string' && spec.negatable) cmd.option(`--no-${flag.slice(2)}`, `no ${flag.slice(2)} (the empty string)`);
    }
  }
  return cmd;
}

const isNumeric = (s: OptionSpec) => s.type === 'int' || s.type === 'number';

/** "1_000" and "1e6" are numbers; anything else stays a string so the resolver can name it. */
function toNumber(v: string): number | string {
  const n = Number(v.replace(/_/g, ''));
  return v.trim() !== '' && Number.isFinite(n) ? n : v;
}

function helpText(spec: OptionSpec): string {
  const choices = spec.type === 'string' && spec.choices ? ` (choices: ${spec.choices.join(', ')})` : '';
  const d = defaultText(spec);
  return `${spec.help}${choices}${d === undefined ? '' : ` (default: ${d})`}`;
}

/** The table's keys that commander parsed (given flags only: defaults come from the resolver). */
export function pickOptions(table: OptionTable, parsed: Record<string, unknown>, keys: readonly string[] = Object.keys(table)): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const key of keys) {
    const spec = table[key]!;
    const v = parsed[key];
    // Commander sets a --no-x flag's key to true unless given; only a given one counts.
    if (v === undefined || (spec.type === 'boolean' && spec.default === true && v === true)) continue;
    if (spec.type === 'string' && spec.negatable && v === true) continue;
    raw[key] = v;
  }
  return raw;
}

/**
 * Resolves parsed flags with a stage resolver; a refused value is named by its flag, and so is a
 * file or folder an option names that does not exist (src/io/paths.ts), before any work.
 */
export function resolveFlags<O>(table: OptionTable, parsed: Record<string, unknown>, resolve: (raw: Record<string, unknown>) => O, keys?: readonly string[]): O {
  return namedByFlag(() => {
    const raw = pickOptions(table, parsed, keys);
    const resolved = resolve(raw);
    requirePaths(pathOptions(table, raw));
    return resolved;
  });
}

/** Runs a check; an OptionError it throws is named by the option's flag. */
export function namedByFlag<T>(check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (e instanceof OptionError) throw new Error(`${flagOf(e.key)}: ${e.reason}${e.value === undefined ? '' : `, got ${JSON.stringify(e.value)}`}`);
    throw e;
  }
}

/** The table's values as a manifest records them: config key names, defaults filled, weights as written. */
export function flagValues(table: OptionTable, parsed: Record<string, unknown>, keys?: readonly string[]): Record<string, unknown> {
  return resolveFlags(table, parsed, (raw) => resolveTable(table, raw), keys);
}
