/**
 * Option checking for the hygiene stages: one spec per stage lists every name with its type,
 * range or choices and its default, so the CLI and the `midpack run` config resolve options
 * through the same function and a default lives in one place.
 */
export type OptionSpec =
  | { type: 'int'; default?: number; min: number; max?: number }
  | { type: 'number'; default?: number; min: number; max: number }
  | { type: 'boolean'; default: boolean }
  | { type: 'string'; default?: string }
  | { type: 'choice'; default: string; choices: readonly string[] }
  | { type: 'strings'; default: string[] };

export function resolveWithSpec(raw: Record<string, unknown>, spec: Record<string, OptionSpec>, what: string): Record<string, unknown> {
  for (const k of Object.keys(raw)) {
    if (!(k in spec) && raw[k] !== undefined) throw new Error(`${what}: unknown option "${k}" (allowed: ${Object.keys(spec).join(', ')})`);
  }
  const out: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(spec)) {
    const v = raw[k];
    if (v === undefined) {
      if (s.default !== undefined) out[k] = s.default;
      continue;
    }
    const bad = (expect: string): never => {
      throw new Error(`${what}: option "${k}" must be ${expect}, got ${JSON.stringify(v)}`);
    };
    switch (s.type) {
      case 'int':
        if (!Number.isInteger(v) || (v as number) < s.min || (s.max !== undefined && (v as number) > s.max)) bad(`an integer >= ${s.min}${s.max !== undefined ? ` and <= ${s.max}` : ''}`);
        break;
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v) || v < s.min || v > s.max) bad(`a number in [${s.min}, ${s.max}]`);
        break;
      case 'boolean':
        if (typeof v !== 'boolean') bad('true or false');
        break;
      case 'string':
        if (typeof v !== 'string' || !v) bad('a non-empty string');
        break;
      case 'choice':
        if (typeof v !== 'string' || !s.choices.includes(v)) bad(`one of ${s.choices.join(', ')}`);
        break;
      case 'strings':
        if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || !x)) bad('a list of non-empty strings');
        break;
    }
    out[k] = v;
  }
  return out;
}
