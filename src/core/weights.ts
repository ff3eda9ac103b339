/**
 * "a=0.3,b=0.7" into weights ({a: 0.3, b: 0.7}); a bare name means weight 1. Unknown names,
 * negative or non-numeric weights, and all-zero weights are refused with a message naming `what`.
 */
export function parseWeights<K extends string>(spec: string, keys: readonly K[], what: string): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [k, w = '1'] = part.split('=') as [string, string?];
    const n = Number(w);
    if (!(keys as readonly string[]).includes(k)) throw new Error(`${what}: "${k}" is not one of ${keys.join(', ')}`);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${what}: weight of "${k}" must be a number >= 0, got "${w}"`);
    out[k as K] = n;
  }
  if (!Object.values(out).some((n) => (n as number) > 0)) throw new Error(`${what}: give at least one positive weight`);
  return out;
}
