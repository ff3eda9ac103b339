/**
 * Options of function-aware FIM spans, with every default held once. The CLI (`midpack fim`)
 * and the `midpack run` config (`fim` stage, `functionAware: {...}`) both go through
 * `resolveFunctionAwareOptions`.
 */
export const MIDDLE_KINDS = ['function', 'body'] as const;
export type MiddleKind = (typeof MIDDLE_KINDS)[number];

export interface FunctionAwareOptions {
  /** The middle: the whole function (signature and body), or its body only. */
  middle: MiddleKind;
  /** Budget (UTF-16 units) of the files placed before the function's file: caller files first, then others. */
  contextChars: number;
  /** Complexity, not trivial: at least this many statements in the body... */
  minStatements: number;
  /** ...or at least this cyclomatic complexity. */
  minCyclomatic: number;
  /** Complexity, not unbounded: at most this many lines. */
  maxLines: number;
  /** Inferability: at least this many call sites outside the function's own body. */
  minCallers: number;
  /** Inferability score (call sites + signals: docstring, type annotations, called from tests) at least this. */
  minInferability: number;
  /** File rows of one repository are gathered up to this many characters to build its graph. */
  repoGroupChars: number;
}

export const DEFAULT_FUNCTION_AWARE_OPTIONS: FunctionAwareOptions = {
  middle: 'function',
  contextChars: 200_000,
  // Getters, pass-throughs and one-liners have fewer than 3 statements and no branching.
  minStatements: 3,
  minCyclomatic: 3,
  // About one screen: a middle the model can be expected to write whole.
  maxLines: 60,
  minCallers: 1,
  // One caller and one more piece of evidence (a second caller, a docstring, types, a test).
  minInferability: 2,
  repoGroupChars: 64 << 20,
};

const INTEGER_KEYS = ['contextChars', 'minStatements', 'minCyclomatic', 'maxLines', 'minCallers', 'minInferability', 'repoGroupChars'] as const;
const MINIMUM: Partial<Record<(typeof INTEGER_KEYS)[number], number>> = { maxLines: 1, repoGroupChars: 1 };

/** Validates every name and value (integers may be given as strings, as the CLI does). */
export function resolveFunctionAwareOptions(raw: Record<string, unknown>): FunctionAwareOptions {
  const out: FunctionAwareOptions = { ...DEFAULT_FUNCTION_AWARE_OPTIONS };
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (key === 'middle') {
      if (!(MIDDLE_KINDS as readonly unknown[]).includes(value)) throw new Error(`function-aware option middle: "${String(value)}" is not one of ${MIDDLE_KINDS.join(', ')}`);
      out.middle = value as MiddleKind;
      continue;
    }
    if (!(INTEGER_KEYS as readonly string[]).includes(key)) throw new Error(`function-aware option "${key}" is unknown; the options are middle, ${INTEGER_KEYS.join(', ')}`);
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    const min = MINIMUM[key as (typeof INTEGER_KEYS)[number]] ?? 0;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min) throw new Error(`function-aware option ${key}: expected an integer >= ${min}, got ${JSON.stringify(value)}`);
    out[key as (typeof INTEGER_KEYS)[number]] = n;
  }
  return out;
}
