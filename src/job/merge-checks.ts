import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ReportJson } from '../report/figures.js';
import { sha256File } from '../write/files.js';
import { inputsFingerprint, type Manifest } from './pack-manifest.js';
import { rankList } from '../core/ranks.js';

/**
 * The checks `midpack merge` makes before it writes anything: every folder is a finished
 * rank output of the same run (same world size, settings and tokenizer), the ranks are
 * exactly 0..W-1, each balances, and (with --verify) every file matches its checksum.
 */
export interface RankOutput {
  /** The folder as given. */
  dir: string;
  manifest: Manifest;
  report: ReportJson;
  /** sha256 of manifest.json's bytes: the merged manifest names exactly what it merged. */
  manifestSha256: string;
}

export class MergeError extends Error {}

/** Reads one rank folder; a folder without a complete manifest and report is not a finished rank output. */
export function loadRankOutput(dir: string): RankOutput {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new MergeError(`${dir}: not a finished rank output (no such folder)`);
  if (!existsSync(manifestPath)) throw new MergeError(`${dir}: not a finished rank output (no manifest.json; did its pack run finish?)`);
  const bytes = readFileSync(manifestPath);
  const manifest = parseJson(manifestPath, bytes.toString('utf8')) as Manifest;
  if (typeof manifest !== 'object' || manifest === null || !('world_size' in manifest) || !('config' in manifest) || !Array.isArray(manifest.shards)) {
    throw new MergeError(`${dir}: not a finished rank output (manifest.json is not a midpack pack manifest)`);
  }
  if (manifest.rank === null) throw new MergeError(`${dir}: is a merged output (rank null), not a rank output; merge the rank folders themselves`);
  if (!Number.isInteger(manifest.rank) || !Number.isInteger(manifest.world_size)) {
    throw new MergeError(`${dir}: manifest.json has rank ${JSON.stringify(manifest.rank)} and world_size ${JSON.stringify(manifest.world_size)}, not integers`);
  }
  const reportPath = join(dir, 'report.json');
  if (!existsSync(reportPath)) throw new MergeError(`${dir}: not a finished rank output (no report.json)`);
  const report = parseJson(reportPath, readFileSync(reportPath, 'utf8')) as ReportJson;
  return { dir, manifest, report, manifestSha256: createHash('sha256').update(bytes).digest('hex') };
}

function parseJson(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new MergeError(`${path}: not valid JSON (${(e as Error).message}); not a finished rank output`);
  }
}

/**
 * Checks that the outputs form one whole run; returns them in rank order. With `allowMissing`
 * (`merge --allow-missing-ranks`) ranks may be missing: the caller records which.
 */
export function checkRanks(outputs: readonly RankOutput[], allowMissing = false): RankOutput[] {
  if (outputs.length === 0) throw new MergeError('no rank folders given');
  const name = (o: RankOutput) => `${o.dir} (rank ${o.manifest.rank})`;
  const sorted = [...outputs].sort((a, b) => a.manifest.rank - b.manifest.rank);
  const first = sorted[0]!;

  const sizes = new Set(sorted.map((o) => o.manifest.world_size));
  if (sizes.size > 1) {
    throw new MergeError(`the rank outputs come from runs of different world sizes: ${sorted.map((o) => `${name(o)}: ${o.manifest.world_size}`).join(', ')}`);
  }
  for (const o of sorted) {
    if (o.manifest.tokenizer?.sha256 !== first.manifest.tokenizer?.sha256) {
      throw new MergeError(`${name(first)} and ${name(o)} used different tokenizers (sha256 ${first.manifest.tokenizer?.sha256} vs ${o.manifest.tokenizer?.sha256})`);
    }
    const diff = firstDifference(first.manifest.config, o.manifest.config);
    if (diff) {
      throw new MergeError(`${name(first)} and ${name(o)} were packed with different settings: config.${diff.path} is ${JSON.stringify(diff.a)} vs ${JSON.stringify(diff.b)}`);
    }
  }

  const inputsOf = (o: RankOutput) => o.manifest.inputs_fingerprint ?? inputsFingerprint(o.manifest.inputs);
  for (const o of sorted) {
    if (inputsOf(o) !== inputsOf(first)) {
      const list = (x: RankOutput) => x.manifest.inputs.map((i) => i.path).slice(0, 5).join(', ') + (x.manifest.inputs.length > 5 ? ', ...' : '');
      throw new MergeError(`${name(first)} and ${name(o)} were packed from different inputs (${list(first)} vs ${list(o)}; or the same paths with other contents): the ranks of one run read the same inputs`);
    }
  }

  const W = first.manifest.world_size;
  const byRank = new Map<number, RankOutput[]>();
  for (const o of sorted) byRank.set(o.manifest.rank, [...(byRank.get(o.manifest.rank) ?? []), o]);
  const problems: string[] = [];
  const outOfRange = sorted.filter((o) => o.manifest.rank < 0 || o.manifest.rank >= W);
  if (outOfRange.length) problems.push(`out of range for world size ${W}: ${outOfRange.map(name).join(', ')}`);
  const duplicated = [...byRank.entries()].filter(([, list]) => list.length > 1);
  for (const [rank, list] of duplicated) problems.push(`rank ${rank} is given twice: ${list.map((o) => o.dir).join(' and ')}`);
  const missing = Array.from({ length: W }, (_, r) => r).filter((r) => !byRank.has(r));
  if (missing.length && !allowMissing) problems.push(`missing rank${missing.length > 1 ? 's' : ''} ${abbreviate(missing)} of 0..${W - 1} (--allow-missing-ranks merges without them, recording which)`);
  if (problems.length) throw new MergeError(`the rank outputs are not exactly ranks 0..${W - 1} of one run: ${problems.join('; ')}`);

  const unbalanced = sorted.filter((o) => o.manifest.balanced !== true);
  if (unbalanced.length) throw new MergeError(`these rank outputs do not balance (some records unaccounted for): ${unbalanced.map(name).join(', ')}`);
  return sorted;
}

const abbreviate = rankList;

/** Ranks 0..W-1 that none of the outputs is. */
export function missingRanks(outputs: readonly RankOutput[]): number[] {
  const have = new Set(outputs.map((o) => o.manifest.rank));
  return Array.from({ length: outputs[0]?.manifest.world_size ?? 0 }, (_, r) => r).filter((r) => !have.has(r));
}

/** The first key path (sorted keys, depth first) where two JSON values differ. */
export function firstDifference(a: unknown, b: unknown, path = ''): { path: string; a: unknown; b: unknown } | undefined {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (isObj(a) && isObj(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      const d = firstDifference(a[k], b[k], path ? `${path}.${k}` : k);
      if (d) return d;
    }
    return undefined;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? undefined : { path: path || '(whole value)', a, b };
}

/** Every file a rank output lists, with the size and checksum its manifest records (the shards left out when `withShards` is false). */
export function listedFiles(o: RankOutput, withShards = true): { path: string; bytes?: number; sha256: string }[] {
  const m = o.manifest;
  return [
    ...(withShards ? m.shards : []).map((s) => ({ path: join(o.dir, 'shards', s.filename), bytes: s.bytes, sha256: s.sha256 })),
    ...m.megatron.map((f) => ({ path: resolve(o.dir, f.path), bytes: f.bytes, sha256: f.sha256 })),
    { path: join(o.dir, m.doc_lengths.path), sha256: m.doc_lengths.sha256 },
  ];
}

/** Cheap check without reading: every listed file exists with the size its manifest records. */
export function checkSizes(outputs: readonly RankOutput[], withShards = true): void {
  const problems: string[] = [];
  for (const o of outputs) {
    for (const f of listedFiles(o, withShards)) {
      if (!existsSync(f.path)) problems.push(`${f.path}: missing`);
      else if (f.bytes !== undefined && statSync(f.path).size !== f.bytes) problems.push(`${f.path}: ${statSync(f.path).size} bytes, its manifest says ${f.bytes}`);
    }
  }
  if (problems.length) throw new MergeError(`rank outputs do not match their manifests: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? ` (${problems.length} problems in all)` : ''}`);
}

/** --verify: recomputes the sha256 of every shard, Megatron file and doc_lengths.u32. */
export async function verifyChecksums(outputs: readonly RankOutput[]): Promise<void> {
  const problems: string[] = [];
  for (const o of outputs) {
    for (const f of listedFiles(o)) {
      const { sha256 } = await sha256File(f.path);
      if (sha256 !== f.sha256) problems.push(`${f.path}: sha256 ${sha256}, its manifest says ${f.sha256}`);
    }
  }
  if (problems.length) throw new MergeError(`--verify: files differ from their manifests: ${problems.join('; ')}`);
}
