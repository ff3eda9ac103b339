import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { OVERLONG_POLICIES, type OverlongPolicy } from '../pack/index.js';

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
 *     type: repos            # repos | web | edits | code | documents
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
export const SOURCE_TYPES = ['repos', 'web', 'edits', 'code', 'documents'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];
export const THEN_TYPES = ['fim'] as const;

/** The options each part accepts: the library's own option names. */
export const SOURCE_OPTIONS: Record<SourceType, readonly string[]> = {
  repos: ['order', 'minFiles', 'maxFileBytes', 'layout', 'groupMemoryBytes', 'treeRate'],
  web: ['keepImageAlt', 'minTextChars', 'maxDepth', 'maxPageBytes', 'dedupWindow', 'llm', 'guard'],
  edits: ['formats', 'maskPrompt', 'maxContextLines', 'gitBatch', 'rev', 'maxCommits', 'maxFileBytes', 'maxCommitBytes', 'maxFiles', 'related', 'per', 'repoName'],
  code: ['maxFileBytes'],
  documents: [],
};
export const FIM_OPTIONS = ['fimRate', 'spmRate', 'formats', 'spans', 'maskPrompt', 'placeholder', 'maxContextLines', 'unitMaxChars'] as const;
export const MASK_OPTIONS = ['minChars', 'memoryMb', 'samples', 'minDocs', 'minFrac', 'keepFirst', 'bridge', 'top'] as const;
export const PACK_OPTIONS = ['seqLen', 'overlong', 'slideStride', 'windowUnits', 'maxOpenBins', 'passUnits', 'shuffleSeed', 'shuffle', 'rowsPerShard', 'name', 'chunkTokens'] as const;

export interface ThenConfig {
  type: (typeof THEN_TYPES)[number];
  options: Record<string, unknown>;
}

export interface SourceConfig {
  name: string;
  type: SourceType;
  inputs: string[];
  options: Record<string, unknown>;
  then: ThenConfig[];
}

export interface RunConfig {
  /** The config file, for messages; the paths below are relative to its folder (or absolute). */
  file: string;
  out: string;
  seed: number;
  tokenizer: string;
  workers?: number;
  sources: SourceConfig[];
  mask?: Record<string, unknown>;
  pack: {
    seqLen?: number;
    overlong?: OverlongPolicy;
    slideStride?: number;
    windowUnits?: number;
    maxOpenBins?: number;
    passUnits?: number;
    shuffleSeed?: number;
    shuffle?: boolean;
    rowsPerShard?: number;
    name?: string;
    chunkTokens?: number;
  };
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

export function parseRunConfig(raw: unknown, file: string): RunConfig {
  const fail = (path: string, msg: string): never => {
    throw new ConfigError(file, path, msg);
  };
  const obj = (v: unknown, path: string): Record<string, unknown> => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(path, 'must be a mapping (key: value)');
    return v as Record<string, unknown>;
  };
  const keys = (o: Record<string, unknown>, allowed: readonly string[], path: string) => {
    for (const k of Object.keys(o)) if (!allowed.includes(k)) fail(path ? `${path}.${k}` : k, `unknown key (allowed: ${allowed.join(', ') || 'none'})`);
  };
  const str = (v: unknown, path: string): string => (typeof v === 'string' && v.length ? v : fail(path, 'must be a non-empty string'));
  const int = (v: unknown, path: string, min = 0): number => (Number.isInteger(v) && (v as number) >= min ? (v as number) : fail(path, `must be an integer >= ${min}`));

  const top = obj(raw, '');
  keys(top, ['out', 'seed', 'tokenizer', 'workers', 'sources', 'mask', 'pack'], '');
  if (!Array.isArray(top.sources) || top.sources.length === 0) fail('sources', 'must be a non-empty list');
  const names = new Set<string>();
  const sources = (top.sources as unknown[]).map((s, i): SourceConfig => {
    const at = `sources[${i}]`;
    const o = obj(s, at);
    keys(o, ['name', 'type', 'inputs', 'options', 'then'], at);
    const type = str(o.type, `${at}.type`);
    if (!(SOURCE_TYPES as readonly string[]).includes(type)) fail(`${at}.type`, `must be one of ${SOURCE_TYPES.join(', ')}, got "${type}"`);
    const name = o.name === undefined ? type : str(o.name, `${at}.name`);
    if (names.has(name)) fail(`${at}.name`, `"${name}" is used twice (names label the figures of each source)`);
    names.add(name);
    if (!Array.isArray(o.inputs) || o.inputs.length === 0) fail(`${at}.inputs`, 'must be a non-empty list of paths');
    const inputs = (o.inputs as unknown[]).map((p, k) => str(p, `${at}.inputs[${k}]`));
    const options = o.options === undefined ? {} : obj(o.options, `${at}.options`);
    keys(options, SOURCE_OPTIONS[type as SourceType], `${at}.options`);
    const then = o.then === undefined ? [] : Array.isArray(o.then) ? o.then : fail(`${at}.then`, 'must be a list of stages');
    return {
      name,
      type: type as SourceType,
      inputs,
      options,
      then: (then as unknown[]).map((t, k) => {
        const tat = `${at}.then[${k}]`;
        const to = obj(t, tat);
        keys(to, ['type', 'options'], tat);
        const ttype = str(to.type, `${tat}.type`);
        if (!(THEN_TYPES as readonly string[]).includes(ttype)) fail(`${tat}.type`, `must be one of ${THEN_TYPES.join(', ')}`);
        const topts = to.options === undefined ? {} : obj(to.options, `${tat}.options`);
        keys(topts, FIM_OPTIONS, `${tat}.options`);
        return { type: ttype as ThenConfig['type'], options: topts };
      }),
    };
  });
  const mask = top.mask === undefined ? undefined : obj(top.mask, 'mask');
  if (mask) keys(mask, MASK_OPTIONS, 'mask');
  const pack = top.pack === undefined ? {} : obj(top.pack, 'pack');
  keys(pack, PACK_OPTIONS, 'pack');
  for (const k of ['seqLen', 'slideStride', 'windowUnits', 'maxOpenBins', 'passUnits', 'rowsPerShard', 'chunkTokens'] as const) if (pack[k] !== undefined) int(pack[k], `pack.${k}`, 1);
  if (pack.shuffleSeed !== undefined) int(pack.shuffleSeed, 'pack.shuffleSeed', 0);
  if (pack.shuffle !== undefined && typeof pack.shuffle !== 'boolean') fail('pack.shuffle', `must be true or false, got ${JSON.stringify(pack.shuffle)}`);
  if (pack.overlong !== undefined && !(OVERLONG_POLICIES as readonly string[]).includes(pack.overlong as string)) fail('pack.overlong', `must be one of ${OVERLONG_POLICIES.join(', ')}`);
  if (pack.name !== undefined) str(pack.name, 'pack.name');
  return {
    file,
    out: top.out === undefined ? 'out' : str(top.out, 'out'),
    seed: top.seed === undefined ? 0 : int(top.seed, 'seed'),
    tokenizer: top.tokenizer === undefined ? 'qwen3' : top.tokenizer === 'qwen3' ? 'qwen3' : str(top.tokenizer, 'tokenizer'),
    workers: top.workers === undefined ? undefined : int(top.workers, 'workers', 1),
    sources,
    mask,
    pack: pack as RunConfig['pack'],
  };
}
