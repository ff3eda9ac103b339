import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { isRemote, joinRemote, remoteAsPath } from '../io/remote.js';
import { LOCK, sendFile, sendFiles, stagingDir, withPrefixLock } from '../io/remote-out.js';
import { copyObjectAny, deleteObjects, getObject, listObjects, storedSha256, type RemoteObject } from '../io/s3.js';
import type { Manifest } from './pack-manifest.js';
import { MergeError, type RankOutput } from './merge-checks.js';
import { mergeRanks, type MergeOptions, type MergeSummary, type ShardPlacement } from './merge.js';

/**
 * `midpack merge` when the rank outputs and --out are s3:// prefixes. The ranks' shards are
 * copied inside the store (CopyObject; UploadPartCopy ranges past 5 GiB): no shard byte passes
 * through this machine, and each keeps the sha256 its rank's manifest gives it. The small files
 * (manifests, reports, Megatron datasets, doc lengths) come down to a local staging folder,
 * where the local merge plans and writes the rest exactly as it does on disk; those go up, and
 * manifest.json last, the commit. One merge per prefix (its lock object); the prefix must be
 * empty, an earlier merge, or what a killed merge left (merge's own names only).
 */
export interface RemoteMergeOptions extends MergeOptions {
  /** Local folder for the staging (default: MIDPACK_WORK_DIR, else under the temporary folder). */
  workDir?: string;
}

export async function mergeRemoteRanks(prefixes: string[], out: string, opts: RemoteMergeOptions = {}): Promise<MergeSummary> {
  if (!isRemote(out) || prefixes.some((p) => !isRemote(p))) throw new MergeError('merge across a bucket takes s3:// rank outputs and an s3:// --out together (or local folders for both)');
  if (opts.verify) throw new MergeError('--verify reads every file; across a bucket the shards are checked against the sha256 stored with them instead: leave --verify out');
  const ranks = await expandRanks(prefixes);
  const staging = stagingDir(out, opts.workDir);
  return withPrefixLock({ remote: out, what: 'merge' }, async () => {
    await checkOutPrefix(out);
    rmSync(staging, { recursive: true, force: true });
    const mirrors = await Promise.all(ranks.map((p, i) => mirrorRank(p, join(staging, 'ranks', String(i)))));
    const prefixOf = new Map(mirrors.map((m, i) => [m, ranks[i]!]));
    const local = join(staging, 'merged');
    let summary: MergeSummary;
    try {
      summary = await mergeRanks(mirrors, local, { ...opts, verify: false }, bucketPlacement(out, prefixOf));
    } catch (e) {
      if (e instanceof Error) for (const [m, p] of prefixOf) e.message = e.message.split(m).join(p);
      throw e;
    }
    await publishMerge(local, out, summary.manifest.shards.length);
    rmSync(staging, { recursive: true, force: true });
    return summary;
  });
}

/** One prefix holding OUT/rank-RRRRR outputs (no manifest.json of its own) stands for those ranks. */
async function expandRanks(prefixes: string[]): Promise<string[]> {
  if (prefixes.length !== 1 || (await getObject(joinRemote(prefixes[0]!, 'manifest.json')))) return prefixes.map((p) => p.replace(/\/+$/, ''));
  const base = prefixes[0]!.replace(/\/+$/, '');
  const found = (await listObjects(`${base}/`)).map((o) => /^(.*\/rank-\d+)\/manifest\.json$/.exec(o.url)?.[1]).filter((x): x is string => x !== undefined && dirname(x.slice(base.length + 1)) === '.');
  if (!found.length) throw new MergeError(`${base}: not a finished rank output (no manifest.json) and holds no rank-RRRRR/manifest.json`);
  return found;
}

/** The names a merge writes: a prefix holding only these (and no pack manifest) is an earlier or killed merge. */
const MERGE_NAMES = /^(shards\/part-\d+\.arrow|shards\/dataset_info\.json|shards\/state\.json|megatron\/[^/]+\.(bin|idx)|doc_lengths\.u32|report\.json|report\.html|manifest\.json)$/;

async function checkOutPrefix(out: string): Promise<void> {
  const prefix = `${out.replace(/\/+$/, '')}/`;
  const keys = (await listObjects(prefix)).map((o) => o.url.slice(prefix.length)).filter((k) => k !== LOCK);
  const foreign = keys.filter((k) => !MERGE_NAMES.test(k));
  if (foreign.length) throw new MergeError(`--out ${out} holds objects a merge does not write (${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', ...' : ''}); merge into an empty prefix or an earlier merge output`);
  const manifest = keys.includes('manifest.json') ? await getObject(joinRemote(out, 'manifest.json')) : undefined;
  if (!manifest) return;
  let rank: unknown;
  try {
    rank = JSON.parse(manifest.toString('utf8')).rank;
  } catch {
    rank = 'unreadable';
  }
  if (rank !== null) throw new MergeError(`--out ${out} holds a manifest.json that is not a merge output (rank ${JSON.stringify(rank)}); merge into an empty prefix or an earlier merge output`);
}

/** A rank's files but its shards, brought down into `dir` (manifest.json last, as a finished rank has it). */
async function mirrorRank(prefix: string, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const manifestBytes = await getObject(joinRemote(prefix, 'manifest.json'));
  if (!manifestBytes) throw new MergeError(`${prefix}: not a finished rank output (no manifest.json; did its pack run finish?)`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(manifestBytes.toString('utf8')) as Manifest;
  } catch (e) {
    throw new MergeError(`${prefix}/manifest.json: not valid JSON (${(e as Error).message}); not a finished rank output`);
  }
  const files = ['report.json', ...(manifest.megatron ?? []).map((f) => f.path), ...(manifest.doc_lengths ? [manifest.doc_lengths.path] : [])];
  for (const f of files) {
    const bytes = await getObject(joinRemote(prefix, f));
    if (!bytes) continue; // the local checks name what is missing
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), bytes);
  }
  writeFileSync(join(dir, 'manifest.json'), manifestBytes);
  return dir;
}

/** Shards stay in the bucket: checked by listing and their stored sha256, copied server-side. */
function bucketPlacement(out: string, prefixOf: ReadonlyMap<string, string>): ShardPlacement {
  const listed = new Map<string, RemoteObject>();
  const prefix = (o: RankOutput) => prefixOf.get(o.dir)!;
  let started = false;
  return {
    async check(ranks) {
      const problems: string[] = [];
      for (const o of ranks) {
        for (const x of await listObjects(`${prefix(o)}/shards/`)) listed.set(x.url, x);
        for (const s of o.manifest.shards) {
          const url = `${prefix(o)}/shards/${s.filename}`;
          const there = listed.get(url);
          const stored = there ? await storedSha256(url) : undefined;
          if (!there) problems.push(`${url}: missing`);
          else if (there.size !== s.bytes) problems.push(`${url}: ${there.size} bytes, its manifest says ${s.bytes}`);
          else if (stored && stored.sha256 !== s.sha256) problems.push(`${url}: stored sha256 ${stored.sha256}, its manifest says ${s.sha256}`);
        }
      }
      if (problems.length) throw new MergeError(`rank outputs do not match their manifests: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? ` (${problems.length} problems in all)` : ''}`);
    },
    async place(o, filename, dst) {
      // Every check has passed (a refused merge leaves the prefix as it was); a merge killed
      // from here on must never look finished: the earlier manifest goes first.
      if (!started) await deleteObjects([joinRemote(out, 'manifest.json')]);
      started = true;
      const src = listed.get(`${prefix(o)}/shards/${filename}`)!;
      const sha256 = o.manifest.shards.find((s) => s.filename === filename)!.sha256;
      const to = joinRemote(out, 'shards', dst);
      const there = await storedSha256(to);
      if (there && there.sha256 === sha256 && there.size === src.size) return 'linked'; // a re-merge: already in place
      await copyObjectAny(src, to, sha256);
      return 'copied';
    },
    rankDir: (o) => posix.relative(remoteAsPath(out), remoteAsPath(prefix(o))),
  };
}

/** Uploads the merge's files but the shards (already copied), manifest.json last; removes shards past the new count. */
async function publishMerge(local: string, out: string, shardCount: number): Promise<void> {
  const files = walk(local).filter((f) => f !== 'manifest.json' && !/^shards\/part-\d+\.arrow$/.test(f));
  await deleteObjects([joinRemote(out, 'manifest.json')]); // gone already unless no shard was placed
  await sendFiles(files.map((f) => ({ path: join(local, f), url: joinRemote(out, f) })), out);
  const stale = (await listObjects(`${joinRemote(out, 'shards')}/`)).filter((o) => {
    const m = /\/shards\/part-(\d+)\.arrow$/.exec(o.url);
    return m !== null && Number(m[1]) >= shardCount;
  });
  await deleteObjects(stale.map((o) => o.url));
  await sendFile(join(local, 'manifest.json'), joinRemote(out, 'manifest.json'));
}

/** The files under `dir`, as relative paths with `/`. */
function walk(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name), base) : [relative(base, join(dir, e.name)).split('\\').join('/')]));
}
