import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import YAML from 'yaml';
import { OptionError, resolveTable } from '../core/options.js';
import { resolveMaskOptions } from '../stages/mask/options.js';
import { resolvePackOptions } from './pack-options.js';
import { SOURCES, STAGES, entryPaths } from './registry.js';
import { requirePaths } from '../io/paths.js';
import { MIXTURE_PACK_KEYS, MIXTURE_PACK_OPTIONS, MIXTURE_SOURCE_KEYS, resolveMixture, resolveSourceTarget, splitPackRaw, type MixtureSpec, type SourceTarget } from '../mix/spec.js';
import { PACK_OPTIONS } from './pack-options.js';

/**
 * The `midpack run` config (JSON or YAML): sources, the stages each goes through, masking,
 * tokenizer, packing and output. Every key is checked; a wrong one is named with its path
 * (`sources[1].options.ordr`) and the keys that are allowed.
 *
 * ```yaml
 * out: out/demo
 * seed: 0
 * tokenizer: qwen3
 * sources:
 *   - name: repos
 *     type: repos            # a key of SOURCES in registry.ts: repos | web | edits | code | documents
 *     inputs: [data-samples/repos]
 *     options: { order: "alpha=0.3,dependency=0.5,random=0.2" }
 *     then:
 *       - type: fim
 *         options: { fimRate: 0.3, formats: "fim=0.5,chat_fim=0.25,sr_fim=0.25" }
 * mask: { minDocs: 3 }
 * pack: { seqLen: 262144, overlong: boundary }
 * ```
 * Paths are relative to the config file's folder and are kept as written: `midpack run` works
 * from that folder, so paths, and with them document sources, ids and the rank partition, are the
 * same on every machine that has the same layout below the config.
 */
/** Source and stage types: the registry's keys (src/job/registry.ts). */
export const SOURCE_TYPES = Object.keys(SOURCES);
export type SourceType = string;
export const THEN_TYPES = Object.keys(STAGES);

export interface ThenConfig {
  type: string;
  options: Record<string, unknown>;
}

export interface SourceConfig {
  name: string;
  type: SourceType;
  inputs: string[];
  options: Record<string, unknown>;
  then: ThenConfig[];
  /** The source's target in the mixture (share, tokens, maxRepeat), when it states one. */
  target?: SourceTarget;
}

export interface RunConfig {
  /** The config file, for messages; the paths below are relative to its folder (or absolute). */
  file: string;
  out: string;
  seed: number;
  tokenizer: string;
  workers?: number;
  /** The run's memory budget in MB (memory-budget.ts): its shares go to the parts bounded by configuration. */
  memoryMb?: number;
  /** With an s3:// out: the local folder for the work store and staging (--work-dir wins); not part of the fingerprint. */
  workDir?: string;
  /** Ranks of a multi-rank run (else --world-size, OUT's record, the scheduler's environment). */
  worldSize?: number;
  sources: SourceConfig[];
  mask?: Record<string, unknown>;
  /** Raw options of each part, checked by its resolver (resolvePackOptions, resolveMaskOptions...). */
  pack: Record<string, unknown>;
  /** Token-budgeted mixture (sources' share/tokens/maxRepeat, pack.tokens, pack.perSource); absent: pack what the sources give. */
  mixture?: MixtureSpec;
}

export class ConfigError extends Error {
  constructor(file: string, path: string, message: string) {
    super(`${file}: ${path ? `${path}: ` : ''}${message}`);
    this.name = 'ConfigError';
  }
}

export function loadRunConfig(file: string): RunConfig {
  let raw: unknown;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`config not readable: ${file}: ${(e as Error).message}`);
  }
  try {
    raw = /\.json$/i.test(file) ? JSON.parse(text) : YAML.parse(text);
  } catch (e) {
    throw new ConfigError(file, '', `not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(e as Error).message}`);
  }
  return parseRunConfig(raw, file);
}

type Fail = (path: string, msg: string) => never;

/** Checks a config object (parsed YAML/JSON, or built in code); `file` names it in messages. */
export function parseRunConfig(raw: unknown, file: string): RunConfig {
  const fail: Fail = (path, msg) => {
    throw new ConfigError(file, path, msg);
  };
  const c = checkers(fail);
  const top = c.obj(raw, '');
  c.keys(top, ['out', 'seed', 'tokenizer', 'workers', 'memoryMb', 'workDir', 'worldSize', 'sources', 'mask', 'pack'], '');
  if (!Array.isArray(top.sources) || top.sources.length === 0) fail('sources', 'must be a non-empty list');
  const names = new Set<string>();
  // A file or folder an option names is checked from the config's folder, as the run reads it.
  const sources = (top.sources as unknown[]).map((s, i) => parseSource(s, `sources[${i}]`, c, names, dirname(file)));
  const mask = top.mask === undefined ? undefined : c.obj(top.mask, 'mask');
  if (mask) resolved(() => resolveMaskOptions(mask), 'mask', fail);
  const packRaw = top.pack === undefined ? {} : c.obj(top.pack, 'pack');
  c.keys(packRaw, [...Object.keys(PACK_OPTIONS), ...MIXTURE_PACK_KEYS], 'pack');
  const { mixture: mixtureRaw, pack } = splitPackRaw(packRaw);
  resolved(() => resolvePackOptions(pack), 'pack', fail);
  resolved(() => resolveTable(MIXTURE_PACK_OPTIONS, mixtureRaw), 'pack', fail);
  const mixture = resolved(() => resolveMixture(sources.map((s) => s.target ?? { name: s.name, maxRepeat: 1 }), mixtureRaw), 'sources', fail);
  return {
    file,
    out: top.out === undefined ? 'out' : c.str(top.out, 'out'),
    seed: top.seed === undefined ? 0 : c.int(top.seed, 'seed'),
    tokenizer: top.tokenizer === undefined ? 'qwen3' : c.str(top.tokenizer, 'tokenizer'),
    workers: top.workers === undefined ? undefined : c.int(top.workers, 'workers', 1),
    ...(top.memoryMb === undefined ? {} : { memoryMb: c.int(top.memoryMb, 'memoryMb', 64) }),
    ...(top.workDir === undefined ? {} : { workDir: c.str(top.workDir, 'workDir') }),
    ...(top.worldSize === undefined ? {} : { worldSize: c.int(top.worldSize, 'worldSize', 1) }),
    sources,
    mask,
    pack,
    ...(mixture ? { mixture } : {}),
  };
}

/** Runs a resolver; a refused option is named by its path in the config and its value. */
function resolved<T>(resolve: () => T, path: string, fail: Fail): T {
  try {
    return resolve();
  } catch (e) {
    // A stage's own resolver may throw a plain Error whose message names the option: keep the path.
    if (!(e instanceof OptionError)) return fail(path, (e as Error).message);
    return fail(`${path}.${e.key}`, `${e.reason}${e.value === undefined ? '' : `, got ${JSON.stringify(e.value)}`}`);
  }
}

type Checkers = ReturnType<typeof checkers>;

function checkers(fail: Fail) {
  const show = (v: unknown) => (v === undefined ? '' : `, got ${JSON.stringify(v)}`);
  return {
    fail,
    obj: (v: unknown, path: string): Record<string, unknown> => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(path, `must be a mapping (key: value)${show(v)}`);
      return v as Record<string, unknown>;
    },
    keys: (o: Record<string, unknown>, allowed: readonly string[], path: string) => {
      for (const k of Object.keys(o)) if (!allowed.includes(k)) fail(path ? `${path}.${k}` : k, `unknown key (allowed: ${allowed.join(', ') || 'none'})`);
    },
    str: (v: unknown, path: string): string => (typeof v === 'string' && v.length ? v : fail(path, `must be a non-empty string${show(v)}`)),
    int: (v: unknown, path: string, min = 0): number => (Number.isInteger(v) && (v as number) >= min ? (v as number) : fail(path, `must be an integer >= ${min}${show(v)}`)),
  };
}

function parseSource(s: unknown, at: string, c: Checkers, names: Set<string>, base: string): SourceConfig {
  const o = c.obj(s, at);
  c.keys(o, ['name', 'type', 'inputs', 'options', 'then', ...MIXTURE_SOURCE_KEYS], at);
  const type = c.str(o.type, `${at}.type`);
  if (!SOURCES[type]) c.fail(`${at}.type`, `must be one of ${SOURCE_TYPES.join(', ')}, got "${type}"`);
  const name = o.name === undefined ? type : c.str(o.name, `${at}.name`);
  if (names.has(name)) c.fail(`${at}.name`, `"${name}" is used twice (names label the figures of each source)`);
  names.add(name);
  if (!Array.isArray(o.inputs) || o.inputs.length === 0) c.fail(`${at}.inputs`, 'must be a non-empty list of paths');
  const inputs = (o.inputs as unknown[]).map((p, k) => c.str(p, `${at}.inputs[${k}]`));
  const options = o.options === undefined ? {} : c.obj(o.options, `${at}.options`);
  resolved(() => SOURCES[type]!.resolve(options), `${at}.options`, c.fail);
  resolved(() => requirePaths(entryPaths(SOURCES[type]!, options), base), `${at}.options`, c.fail);
  const then = o.then === undefined ? [] : Array.isArray(o.then) ? o.then : c.fail(`${at}.then`, 'must be a list of stages');
  const targetRaw = Object.fromEntries(MIXTURE_SOURCE_KEYS.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
  const target = Object.keys(targetRaw).length ? resolved(() => resolveSourceTarget(name, targetRaw), at, c.fail) : undefined;
  return { name, type, inputs, options, then: (then as unknown[]).map((t, k) => parseThen(t, `${at}.then[${k}]`, c, base)), ...(target ? { target } : {}) };
}

function parseThen(t: unknown, at: string, c: Checkers, base: string): ThenConfig {
  const o = c.obj(t, at);
  c.keys(o, ['type', 'options'], at);
  const type = c.str(o.type, `${at}.type`);
  if (!STAGES[type]) c.fail(`${at}.type`, `must be one of ${THEN_TYPES.join(', ')}, got "${type}"`);
  const options = o.options === undefined ? {} : c.obj(o.options, `${at}.options`);
  resolved(() => STAGES[type]!.resolve(options), `${at}.options`, c.fail);
  resolved(() => requirePaths(entryPaths(STAGES[type]!, options), base), `${at}.options`, c.fail);
  return { type, options };
}
