import { OptionError, resolveTable, type OptionTable } from '../core/options.js';

/**
 * The mixture a `midpack run` config states (docs/mixing.md): per source a target, a share of
 * the packed tokens (`share: 0.3`) or a token budget (`tokens: 2e9`), and `maxRepeat` (how many
 * times its documents may be used, default 1); for the run a total (`pack.tokens`) and
 * `pack.perSource` (each source its own Megatron dataset and Arrow folder). A config that states
 * none of these packs what its sources produce, as before.
 */
export const MIXTURE_SOURCE_OPTIONS = {
  share: { type: 'number', min: 0, max: 1, help: 'share of the packed tokens this source holds (0..1)' },
  tokens: { type: 'number', min: 0, help: 'tokens of this source in the packed output' },
  maxRepeat: { type: 'number', min: 1, default: 1, help: 'how many times a document of this source may be used (fractional: a seeded share of the documents gets one use more)' },
} satisfies OptionTable;

/** The mixture keys of a config's `pack:` (the packer's own keys are in PACK_OPTIONS). */
export const MIXTURE_PACK_OPTIONS = {
  tokens: { type: 'number', min: 1, help: 'tokens of the whole packed output (default: the sum of the sources)' },
  perSource: { type: 'boolean', default: false, help: 'pack each source into its own Megatron dataset and Arrow folder, and write the Megatron blend line' },
} satisfies OptionTable;

export const MIXTURE_SOURCE_KEYS = Object.keys(MIXTURE_SOURCE_OPTIONS) as (keyof typeof MIXTURE_SOURCE_OPTIONS)[];
export const MIXTURE_PACK_KEYS = Object.keys(MIXTURE_PACK_OPTIONS) as (keyof typeof MIXTURE_PACK_OPTIONS)[];

export interface SourceTarget {
  name: string;
  share?: number;
  tokens?: number;
  maxRepeat: number;
}

export interface MixtureSpec {
  sources: SourceTarget[];
  /** pack.tokens: the total, when the config gives one. */
  tokens?: number;
  perSource: boolean;
}

/** A source's mixture keys, checked: `share` and `tokens` exclude each other. */
export function resolveSourceTarget(name: string, raw: Record<string, unknown>): SourceTarget {
  const r = resolveTable(MIXTURE_SOURCE_OPTIONS, raw) as { share?: number; tokens?: number; maxRepeat: number };
  if (r.share !== undefined && r.tokens !== undefined) throw new OptionError('tokens', raw.tokens, 'give share or tokens, not both');
  return { name, ...r };
}

/**
 * The run's mixture, or undefined when no source states a target and the pack states neither a
 * total nor perSource (today's behaviour). Throws OptionError naming the key (the config adds the path).
 */
export function resolveMixture(sources: SourceTarget[], packRaw: Record<string, unknown>): MixtureSpec | undefined {
  const p = resolveTable(MIXTURE_PACK_OPTIONS, packRaw) as { tokens?: number; perSource: boolean };
  const targeted = sources.some((s) => s.share !== undefined || s.tokens !== undefined || s.maxRepeat !== 1);
  if (!targeted && p.tokens === undefined && !p.perSource) return undefined;
  const shares = sources.reduce((sum, s) => sum + (s.share ?? 0), 0);
  const listed = () => sources.filter((s) => s.share !== undefined).map((s) => `${s.name} ${s.share}`).join(', ');
  // Plain errors: they concern the sources together, so the config names the sources list.
  if (shares > 1 + 1e-9) throw new Error(`the shares of the sources add up to ${round(shares)}, more than 1 (${listed()})`);
  const fixed = sources.filter((s) => s.share === undefined);
  if (shares > 1 - 1e-9 && fixed.some((s) => s.tokens === undefined) && p.tokens === undefined) {
    throw new Error(`the shares add up to 1 (${listed()}), which leaves no room for the sources without a target (${fixed.filter((s) => s.tokens === undefined).map((s) => s.name).join(', ')})`);
  }
  return { sources, ...(p.tokens !== undefined ? { tokens: p.tokens } : {}), perSource: p.perSource };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** The pack: mapping split into the mixture's keys and the packer's. */
export function splitPackRaw(raw: Record<string, unknown>): { mixture: Record<string, unknown>; pack: Record<string, unknown> } {
  const mixture: Record<string, unknown> = {};
  const pack: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) ((MIXTURE_PACK_KEYS as string[]).includes(k) ? mixture : pack)[k] = v;
  return { mixture, pack };
}
