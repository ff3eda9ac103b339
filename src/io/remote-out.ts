import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { manifestDataFiles, sha256File, type ManifestFileLists } from '../write/files.js';
import { OUTPUT_MARKER } from './inputs.js';
import { isRemote, joinRemote } from './remote.js';
import { deleteObjects, getObject, listObjects, PART_BYTES, putObject, storedSha256, takeRemoteLock, uploadFile, StorageError, type RemoteLockBody } from './s3.js';
import { processIsGone } from './stale.js';
import pLimit from 'p-limit';

/** A --work-dir given with a local --out: the work store already lives in OUT/.work there. */
export function checkWorkDir(out: string, workDir: string | undefined): void {
  if (workDir !== undefined && !isRemote(out)) throw new StorageError(`--work-dir (config workDir) ${workDir}: applies only when --out is an s3:// prefix (a local --out keeps its work store in OUT/.work)`, 'WorkDir');
  if (workDir !== undefined && isRemote(workDir)) throw new StorageError(`--work-dir (config workDir) ${workDir}: must be a local folder (the work store and staging are written in place)`, 'WorkDir');
}

/**
 * A pack or run whose --out is an s3:// prefix. The job runs as it does on local paths, into a
 * local staging folder (--work-dir, else MIDPACK_WORK_DIR, else a folder under the system's temporary folder
 * named by the prefix, so a rerun on the same machine resumes from its work), and its finished
 * files go up to the prefix with the local guarantees kept:
 *
 *   - one job per prefix: a lock object (PREFIX/.midpack.lock, written with If-None-Match);
 *   - the prefix must be empty or hold midpack's own output (its marker): the marker is brought
 *     down first, so the local checks (same fingerprint: resume; other: --overwrite) decide;
 *   - each file goes up as a multipart upload whose parts carry their SHA-256 (lib-storage),
 *     visible only when complete; a file the prefix already holds with the same sha256 is not
 *     sent again (a killed upload resumes where it stopped);
 *   - the marker, then manifest.json last: the commit. A manifest found names files that are all there;
 *   - --overwrite, and a finished output, remove only objects the earlier marker named.
 */
export interface RemoteOutOptions {
  /** The prefix the output goes to (a rank's prefix in a multi-rank run). */
  remote: string;
  /** The local staging folder of that prefix. */
  local: string;
  what: string;
}

/**
 * The local staging folder for a remote output (see above): the job's work store and its
 * finished files live there until they are uploaded, so `workDir` should be a local disk with
 * room for both.
 */
export function stagingDir(remote: string, workDir?: string): string {
  return join(workBase(workDir), createHash('sha256').update(remote).digest('hex').slice(0, 16));
}

/** The local folder remote jobs work in: --work-dir, else MIDPACK_WORK_DIR, else `midpack-work` in the system's temporary folder. */
export function workBase(workDir?: string): string {
  return resolve(workDir ?? process.env.MIDPACK_WORK_DIR ?? join(tmpdir(), 'midpack-work'));
}

/** readObject's codes for an object deleted or replaced while it was read. */
const INPUT_CHANGED = new Set(['ObjectGone', 'ObjectChanged']);

/** Runs `job` on the local staging folder of a remote output, then publishes what it finished. */
export async function withRemoteOut<T>(o: RemoteOutOptions, job: () => Promise<T>): Promise<T> {
  return withPrefixLock(o, async () => {
    await adoptRemoteMarker(o);
    let result: T;
    try {
      result = await job();
    } catch (e) {
      // An input that changed mid-read makes the work staged so far of no use to a rerun (its
      // fingerprint will differ): nothing is left behind. Other failures keep it, to resume from.
      if (e instanceof StorageError && INPUT_CHANGED.has(e.code)) rmSync(o.local, { recursive: true, force: true });
      // The local checks speak of the staging folder; the user named the prefix.
      if (e instanceof Error) e.message = e.message.split(o.local).join(o.remote);
      throw e;
    }
    await publish(o);
    return result;
  });
}

/** Runs `job` holding the prefix's lock object (one job per prefix); the lock is removed after. */
export async function withPrefixLock<T>(o: { remote: string; what: string }, job: () => Promise<T>): Promise<T> {
  await lockPrefix(o);
  try {
    return await job();
  } finally {
    await deleteObjects([joinRemote(o.remote, LOCK)]).catch(() => {});
  }
}

export const LOCK = '.midpack.lock';

async function lockPrefix(o: { remote: string; what: string }): Promise<RemoteLockBody> {
  const url = joinRemote(o.remote, LOCK);
  for (let attempt = 0; ; attempt++) {
    const got = await takeRemoteLock(url);
    if ('body' in got) return got.body;
    const h = got.heldBy;
    if (attempt === 0 && h && h.host === hostname() && processIsGone(h.pid)) {
      process.stderr.write(`midpack: ${o.what}: removing the stale lock of process ${h.pid} (no longer running) in ${o.remote}\n`);
      await deleteObjects([url]);
      continue;
    }
    const who = h ? `process ${h.pid} on ${h.host}, since ${h.started}` : 'a job whose lock cannot be read';
    throw new StorageError(`${o.remote} is in use by another midpack job (${who}); wait for it to finish, or if it is gone, delete ${url}`, 'Locked');
  }
}

interface MarkerFiles {
  fingerprint?: string;
  state?: string;
  files?: string[];
}

/**
 * The prefix decides: its marker replaces the staging folder's (another machine may have run
 * the job since), and a prefix holding anything but midpack's files is refused before any work.
 */
async function adoptRemoteMarker(o: RemoteOutOptions): Promise<void> {
  const marker = await getObject(joinRemote(o.remote, OUTPUT_MARKER));
  mkdirSync(o.local, { recursive: true });
  if (marker) {
    writeFileSync(join(o.local, OUTPUT_MARKER), marker);
    return;
  }
  const prefix = o.remote.endsWith('/') ? o.remote : `${o.remote}/`;
  const others = (await listObjects(prefix)).filter((x) => x.key.slice(x.key.lastIndexOf('/') + 1) !== LOCK);
  if (others.length) {
    const shown = others.slice(0, 5).map((x) => x.url.slice(prefix.length)).join(', ');
    throw new StorageError(`${o.remote} is not empty and is not a midpack output (it holds ${shown}${others.length > 5 ? `, ... (${others.length} objects)` : ''}); midpack writes only into an empty prefix or its own earlier output: choose another --out`, 'NotEmpty');
  }
}

/** Uploads a finished output: files not already there, then the marker, then manifest.json; then removes the earlier output's leftovers. */
async function publish(o: RemoteOutOptions): Promise<void> {
  const markerPath = join(o.local, OUTPUT_MARKER);
  const local = JSON.parse(readFileSync(markerPath, 'utf8')) as MarkerFiles;
  if (local.state !== 'complete') return; // a phase that packs nothing (prepare, count) leaves its work local
  const earlier = await getObject(joinRemote(o.remote, OUTPUT_MARKER));
  const before = earlier ? (JSON.parse(earlier.toString('utf8')) as MarkerFiles) : undefined;
  const files = (local.files ?? []).filter((f) => f !== 'manifest.json');
  if (before && before.fingerprint !== local.fingerprint) await deleteObjects([joinRemote(o.remote, 'manifest.json')]); // not a finished output of these files until the new one is up
  const hashed = manifestHashes(o.local);
  await sendFiles(files.map((f) => ({ path: join(o.local, f), url: joinRemote(o.remote, f), ...hashed.get(f) })), o.remote);
  await putObject(joinRemote(o.remote, OUTPUT_MARKER), readFileSync(markerPath));
  await sendFile(join(o.local, 'manifest.json'), joinRemote(o.remote, 'manifest.json'));
  const kept = new Set(local.files ?? []);
  const stale = (before?.files ?? []).filter((f) => !kept.has(f) && !f.startsWith('..'));
  await deleteObjects(stale.map((f) => joinRemote(o.remote, f)));
}

/**
 * The sha256 and size the staged manifest.json records for its data files (shards, Megatron
 * files, lengths), which the job hashed as it wrote them: not read again to be sent. The store
 * checks each upload against its sha256, so a file that differs is refused, never published.
 */
function manifestHashes(dir: string): Map<string, { sha256: string; bytes: number }> {
  const known = new Map<string, { sha256: string; bytes: number }>();
  let m: ManifestFileLists;
  try {
    m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  } catch {
    return known; // sendFile hashes what it does not know
  }
  for (const f of manifestDataFiles(m)) if (typeof f.sha256 === 'string' && typeof f.bytes === 'number') known.set(f.path, { sha256: f.sha256, bytes: f.bytes });
  return known;
}

/** Small files (one PUT each) sent at once; larger ones go one at a time, each a multipart upload of UPLOAD_QUEUE parts at once. */
const SMALL_UPLOADS_AT_ONCE = 4;

/**
 * Files up to a prefix, several at once (each request waits on the store far longer than on
 * this machine): one listing of the prefix says which may be there already, so a fresh prefix
 * costs no request per file before its upload. Every upload is settled before this returns
 * (none is left running behind a failure); the first failure is thrown.
 */
export async function sendFiles(files: readonly { path: string; url: string; sha256?: string; bytes?: number }[], prefix: string): Promise<void> {
  const listed = new Map((await listObjects(prefix.endsWith('/') ? prefix : `${prefix}/`)).map((x) => [x.url, x.size]));
  const small = pLimit(SMALL_UPLOADS_AT_ONCE);
  const large = pLimit(1);
  const settled = await Promise.allSettled(files.map((f) => (existsSync(f.path) && statSync(f.path).size > PART_BYTES ? large : small)(() => sendFile(f.path, f.url, listed, f))));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * One file up, unless the prefix holds it already (same sha256 and size, as midpack stored it).
 * `listed`: the sizes of the objects under the prefix, when it was listed: an object not there,
 * or of another size, is not asked about. `known`: the file's sha256 and size, when its manifest has them.
 */
export async function sendFile(path: string, url: string, listed?: ReadonlyMap<string, number>, known?: { sha256?: string; bytes?: number }): Promise<void> {
  if (!existsSync(path)) throw new StorageError(`${path}: a file of the finished output is missing from the staging folder; rerun the job`, 'Missing');
  const { sha256, bytes } = known?.sha256 && known.bytes === statSync(path).size ? { sha256: known.sha256, bytes: known.bytes } : await sha256File(path);
  const there = !listed || listed.get(url) === bytes ? await storedSha256(url) : undefined;
  if (there && there.sha256 === sha256 && there.size === bytes) return;
  if (bytes > PART_BYTES) await uploadFile(path, url, sha256);
  else await putObject(url, readFileSync(path), { sha256 });
}
