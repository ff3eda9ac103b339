import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Ledger } from '../core/ledger.js';
import type { ReportJson } from '../report/figures.js';
import { datasetInfo, datasetState, removeStaleShards, shardFilename, shardSchema, shardsFingerprint, type ShardInfo } from '../write/arrow-shards.js';
import { AtomicFile, GrowInt32, tempPath, writeFileAtomic } from '../write/files.js';
import { MegatronIndexedReader, binPath, encodeIndex, idxPath, megatronPrefixes, type MegatronFileInfo } from '../write/megatron.js';
import { MergeError, checkRanks, checkSizes, loadRankOutput, missingRanks, verifyChecksums, type RankOutput } from './merge-checks.js';
import { mergeReports, mergeStages } from './merge-report.js';
import { writeJobFiles, type Manifest } from './pack-manifest.js';

export { MergeError } from './merge-checks.js';

/**
 * `midpack merge`: the rank outputs of one multi-rank pack run (OUT/rank-RRRRR, each a whole
 * pack output for its share of the records) joined into one output, as if one process had
 * written it: shards renumbered, Megatron datasets concatenated, figures recomputed from the
 * ranks' counts. Everything is ordered by rank (never by argument or directory order), so the
 * same rank folders give the same bytes.
 */
export interface MergeOptions {
  /** Copy the shards even where a hard link would do. */
  copy?: boolean;
  /** Merge with ranks missing (recorded in the manifest as missing_ranks); default: refused. */
  allowMissingRanks?: boolean;
  /** Recompute the sha256 of every rank file against its manifest before merging. */
  verify?: boolean;
}

/**
 * Where the ranks' shards are (merge-remote.ts: in a bucket, the rank folders being local copies
 * of everything else): how they are checked, put in place, and how a rank is named in the manifest.
 */
export interface ShardPlacement {
  /** Every shard the ranks list is there with its size (run before anything is written). */
  check(ranks: readonly RankOutput[]): Promise<void>;
  /** Puts a rank's shard at shards/DST of the output; 'linked' when no bytes were written. */
  place(rank: RankOutput, filename: string, dst: string): Promise<'linked' | 'copied'>;
  /** The rank's folder as the merged manifest records it (relative to the output). */
  rankDir(rank: RankOutput): string;
}

/** The local placement: shards hard-linked (or copied) from the rank folders. */
function localPlacement(out: string, copy: boolean): ShardPlacement {
  return {
    check: async (ranks) => checkSizes(ranks, true),
    place: async (o, filename, dst) => placeFile(join(o.dir, 'shards', filename), join(out, 'shards', dst), copy),
    rankDir: (o) => relative(resolve(out), resolve(o.dir)),
  };
}

export interface MergedManifest extends Omit<Manifest, 'rank'> {
  rank: null;
  /** The merged rank outputs in rank order; `dir` is relative to the merge output. */
  ranks: { rank: number; dir: string; manifest_sha256: string }[];
  /** Ranks merged without (`--allow-missing-ranks`): the output is not the whole run's. */
  missing_ranks?: number[];
}

export interface MergeSummary {
  manifest: MergedManifest;
  report: ReportJson;
  /** How the shards got into place (hard links share the ranks' disk space). */
  shardsLinked: number;
  shardsCopied: number;
}

export async function mergeRanks(dirs: string[], out: string, opts: MergeOptions = {}, shardsAt?: ShardPlacement): Promise<MergeSummary> {
  // Every check runs before anything is written: a refused merge leaves DIR as it was.
  const ranks = checkRanks(dirs.map(loadRankOutput), opts.allowMissingRanks ?? false);
  const missing = missingRanks(ranks);
  for (const o of ranks) if (resolve(o.dir) === resolve(out)) throw new MergeError(`--out ${out} is one of the rank folders; merge into another folder`);
  const placement = shardsAt ?? localPlacement(out, opts.copy ?? false);
  checkSizes(ranks, false);
  await placement.check(ranks);
  if (opts.verify) await verifyChecksums(ranks);
  const inputs = mergeInputs(ranks);
  const first = ranks[0]!.manifest;
  const datasets = openMegatron(ranks, String(first.config.name));
  const report = mergeReports(ranks.map((o) => o.report));
  checkConsistent(ranks, report, datasets);

  prepareOutput(out);
  const shards = await mergeShards(ranks, join(out, 'shards'), placement);
  const megatron = await mergeMegatron(datasets, out);
  const lengthsSha = await concatFiles(ranks.map((o) => join(o.dir, o.manifest.doc_lengths.path)), join(out, 'doc_lengths.u32'));

  const ledger = new Ledger();
  for (const o of ranks) ledger.merge(o.manifest.ledger);
  const stages = mergeStages(ranks.map((o) => o.manifest.stages));
  const manifest: MergedManifest = {
    midpack_version: first.midpack_version,
    rank: null,
    world_size: first.world_size,
    ranks: ranks.map((o) => ({ rank: o.manifest.rank, dir: placement.rankDir(o), manifest_sha256: o.manifestSha256 })),
    ...(missing.length ? { missing_ranks: missing } : {}),
    config: first.config,
    tokenizer: first.tokenizer,
    inputs,
    ledger: ledger.toJSON(),
    balanced: ledger.balanced(),
    counts: sumCounts(ranks.map((o) => o.manifest.counts)),
    shards: shards.list.map(({ filename, rows, bytes, sha256 }) => ({ filename, rows, bytes, sha256 })),
    shards_fingerprint: shards.fingerprint,
    megatron,
    doc_lengths: { path: 'doc_lengths.u32', sha256: lengthsSha },
  };
  if (stages) manifest.stages = stages;
  if (report.mixture) manifest.mixture = report.mixture;
  // The same final files as a pack, manifest.json last: a folder with one is a finished merge.
  await writeJobFiles(out, report, manifest);
  return { manifest, report, shardsLinked: shards.linked, shardsCopied: shards.list.length - shards.linked };
}

/** The union of the ranks' inputs by path, sorted; one path with two checksums means the input changed mid-run. */
export function mergeInputs(ranks: readonly RankOutput[]): Manifest['inputs'] {
  const byPath = new Map<string, { input: Manifest['inputs'][number]; dir: string }>();
  for (const o of ranks) {
    for (const input of o.manifest.inputs) {
      const seen = byPath.get(input.path);
      if (!seen) byPath.set(input.path, { input, dir: o.dir });
      else if (seen.input.sha256 !== input.sha256 || seen.input.bytes !== input.bytes) {
        throw new MergeError(`input ${input.path} differs between ${seen.dir} and ${o.dir} (sha256 ${seen.input.sha256} vs ${input.sha256}): it changed while the ranks ran`);
      }
    }
  }
  return [...byPath.keys()].sort().map((p) => byPath.get(p)!.input);
}

function sumCounts(parts: readonly Manifest['counts'][]): Manifest['counts'] {
  const out = { ...parts[0]! };
  for (const key of Object.keys(out) as (keyof Manifest['counts'])[]) out[key] = parts.reduce((s, c) => s + c[key], 0);
  return out;
}

/**
 * Readies DIR: a pack output is refused (a merge would overwrite a real run); the previous
 * merge's manifest.json goes first, so a merge killed midway never looks finished; temporary
 * files of a killed merge are removed.
 */
function prepareOutput(out: string): void {
  const manifestPath = join(out, 'manifest.json');
  if (existsSync(manifestPath)) {
    let rank: unknown;
    try {
      rank = JSON.parse(readFileSync(manifestPath, 'utf8')).rank;
    } catch {
      rank = 'unreadable';
    }
    if (rank !== null) throw new MergeError(`--out ${out} holds a manifest.json that is not a merge output (rank ${JSON.stringify(rank)}); merge into an empty folder or an earlier merge output`);
    rmSync(manifestPath);
  }
  for (const d of [out, join(out, 'shards'), join(out, 'megatron')]) {
    mkdirSync(d, { recursive: true });
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isFile() && /\.tmp-\d+$/.test(e.name)) rmSync(join(d, e.name), { force: true });
  }
}

/**
 * The ranks' shards in rank order, renumbered from part-00000. Empty shards (a rank with no
 * bins writes one so its folder loads) are left out, unless every shard is empty.
 */
async function mergeShards(ranks: readonly RankOutput[], dir: string, placement: ShardPlacement): Promise<{ list: ShardInfo[]; fingerprint: string; linked: number }> {
  const all = ranks.flatMap((o) => o.manifest.shards.map((s) => ({ rank: o, shard: s })));
  const nonEmpty = all.filter((x) => x.shard.rows > 0);
  const chosen = nonEmpty.length ? nonEmpty : all.slice(0, 1);
  let linked = 0;
  const list: ShardInfo[] = [];
  for (const [i, { rank, shard }] of chosen.entries()) {
    const filename = shardFilename(i);
    if ((await placement.place(rank, shard.filename, filename)) === 'linked') linked++;
    // The same bytes as the rank's shard: its sha256 is the rank manifest's.
    list.push({ filename, rows: shard.rows, bytes: shard.bytes, sha256: shard.sha256, reused: false });
  }
  removeStaleShards(dir, list.length);
  const fingerprint = shardsFingerprint(shardSchema(), list);
  writeFileAtomic(join(dir, 'dataset_info.json'), JSON.stringify(datasetInfo(), null, 2) + '\n');
  writeFileAtomic(join(dir, 'state.json'), JSON.stringify(datasetState(list, fingerprint), null, 2) + '\n');
  return { list, fingerprint, linked };
}

/** Errors of link() that mean "cannot link here" (another filesystem, no link support): copy instead. */
const CANNOT_LINK = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

/** Puts src at dst under a temporary name first: hard-linked when possible (and not `copy`), else copied. */
export function placeFile(src: string, dst: string, copy: boolean): 'linked' | 'copied' {
  if (!copy && existsSync(dst) && sameFile(src, dst)) return 'linked'; // a re-merge: already in place
  const tmp = tempPath(dst);
  rmSync(tmp, { force: true });
  let how: 'linked' | 'copied' = 'copied';
  if (!copy) {
    try {
      linkSync(src, tmp);
      how = 'linked';
    } catch (e) {
      if (!CANNOT_LINK.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
    }
  }
  if (how === 'copied') copyFileSync(src, tmp);
  // rename() between two links of one file does nothing and keeps tmp (POSIX), hence sameFile above.
  renameSync(tmp, dst);
  return how;
}

function sameFile(a: string, b: string): boolean {
  const sa = statSync(a);
  const sb = statSync(b);
  return sa.ino === sb.ino && sa.dev === sb.dev;
}

/** The ranks' three Megatron datasets, opened (index read and checked against its .bin) before anything is written. */
interface RankDatasets {
  name: string;
  byKey: Record<keyof ReturnType<typeof megatronPrefixes>, MegatronIndexedReader[]>;
}

function openMegatron(ranks: readonly RankOutput[], name: string): RankDatasets {
  const open = (key: keyof ReturnType<typeof megatronPrefixes>) => ranks.map((o) => new MegatronIndexedReader(megatronPrefixes(join(o.dir, 'megatron'), name)[key]));
  return { name, byKey: { text: open('text'), lossMask: open('lossMask'), docLens: open('docLens') } };
}

/**
 * The three Megatron datasets, each the ranks' datasets back to back: the .bin files streamed
 * one after another, the .idx rebuilt (lengths appended, pointers recomputed, document indices
 * shifted by the sequences before) with the same encoder a pack run uses, so the bytes are
 * what one pack run writing these bins would write.
 */
async function mergeMegatron(datasets: RankDatasets, out: string): Promise<MegatronFileInfo[]> {
  const outPrefixes = megatronPrefixes(join(out, 'megatron'), datasets.name);
  const files: MegatronFileInfo[] = [];
  for (const key of ['text', 'lossMask', 'docLens'] as const) {
    const readers = datasets.byKey[key];
    const dtype = readers[0]!.dtype;
    const lengths = new GrowInt32();
    const documentEnds = new GrowInt32();
    let before = 0;
    for (const r of readers) {
      if (r.dtype !== dtype) throw new MergeError(`${idxPath(r.prefix)}: dtype ${r.dtype}, but ${idxPath(readers[0]!.prefix)} has ${dtype}`);
      if (r.documentIndices[0] !== 0n) throw new MergeError(`${idxPath(r.prefix)}: document indices do not start with 0`);
      lengths.push(r.sequenceLengths);
      for (let d = 1; d < r.documentIndices.length; d++) documentEnds.pushOne(before + Number(r.documentIndices[d]!));
      before += r.length;
    }
    const prefix = outPrefixes[key];
    const binSha = await concatFiles(readers.map((r) => binPath(r.prefix)), binPath(prefix));
    const index = encodeIndex(dtype, lengths.view(), documentEnds.view());
    writeFileAtomic(idxPath(prefix), index);
    files.push(
      { path: relative(out, binPath(prefix)), bytes: statSync(binPath(prefix)).size, sha256: binSha },
      { path: relative(out, idxPath(prefix)), bytes: index.byteLength, sha256: createHash('sha256').update(index).digest('hex') },
    );
  }
  return files;
}

/** Streams files one after another into dst (temporary name, then renamed); returns the sha256. */
async function concatFiles(sources: readonly string[], dst: string): Promise<string> {
  const file = new AtomicFile(dst);
  try {
    for (const src of sources) for await (const chunk of createReadStream(src, { highWaterMark: 1 << 20 })) await file.write(chunk as Buffer);
    return await file.commit();
  } catch (e) {
    await file.abort();
    throw e;
  }
}

/** One bin is one shard row and one sequence of each Megatron dataset: each rank's files must agree with its report. */
function checkConsistent(ranks: readonly RankOutput[], merged: ReportJson, datasets: RankDatasets): void {
  const problems: string[] = [];
  ranks.forEach((o, i) => {
    const bins = o.report.packing.bins;
    const rows = o.manifest.shards.reduce((s, x) => s + x.rows, 0);
    const seqs = (['text', 'lossMask', 'docLens'] as const).map((k) => datasets.byKey[k][i]!.length);
    if (rows !== bins || o.manifest.counts.bins !== bins || seqs.some((n) => n !== bins)) {
      problems.push(`${o.dir}: report.json has ${bins} bins, manifest.json ${o.manifest.counts.bins} bins and ${rows} shard rows, Megatron ${seqs.join('/')} sequences`);
    }
  });
  if (merged.packing.seq_len !== ranks[0]!.manifest.config.seq_len) problems.push(`report seq_len ${merged.packing.seq_len} is not the config's ${ranks[0]!.manifest.config.seq_len}`);
  if (problems.length) throw new MergeError(`rank outputs are inconsistent: ${problems.join('; ')}`);
}
