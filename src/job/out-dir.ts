import { accessSync, constants, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { manifestDataFiles, writeFileAtomic, type ManifestFileLists } from '../write/files.js';
import { OUTPUT_MARKER } from '../io/inputs.js';
import { isRemote } from '../io/remote.js';
import { remoteEntriesSync } from '../io/storage.js';
import { firstDifference } from './merge-checks.js';

/**
 * The output folder of a pack job (`midpack pack`, `midpack run`), guarded so that a job
 *
 *   - writes only into an empty folder or a midpack output of its own: OUT/.midpack-output.json
 *     (the marker) says midpack made the folder and for which fingerprint (everything that
 *     determines the bytes: settings, tokenizer, inputs);
 *   - resumes only work of the same fingerprint; another dataset is replaced only with
 *     --overwrite, and then by removing the files midpack's marker and manifest name;
 *   - removes only files it can prove it wrote: names it records, or its own output names
 *     inside a folder that carries its marker;
 *   - holds an exclusive lock (OUT/.midpack.lock: pid and host) while it runs.
 */
export const OUT_MARKER = OUTPUT_MARKER;
export const OUT_LOCK = '.midpack.lock';

/** What determines an output's bytes, as JSON. */
export type Fingerprint = Record<string, unknown>;

interface Marker {
  format: 'midpack-output';
  version: 1;
  fingerprint: string;
  components: Fingerprint;
  state: 'running' | 'complete';
  /** Megatron dataset names this folder has held (an earlier --name's files are removed on --overwrite). */
  megatron_names: string[];
  /** Files of the finished output, relative to the folder. */
  files: string[];
}

export interface OutDir {
  readonly dir: string;
  readonly fingerprint: string;
  /**
   * The work folder `name` (.work) for work of this fingerprint: kept when it holds the same
   * fingerprint (a resume); otherwise started clean, with the dataset files of an earlier run
   * removed, so every file the job leaves was written for this fingerprint.
   */
  openWork(name: string, fingerprint: string): void;
  /** Stamps the open work folder `name` as work of `fingerprint` (its work became what that fingerprint names), keeping what it holds. */
  stampWork(name: string, fingerprint: string): void;
  /** Records the finished output's files (relative paths) in the marker. */
  complete(files: string[]): void;
  /** Gives up the lock (the marker stays: the folder is midpack's). */
  release(): void;
}

export interface ClaimOptions {
  out: string;
  fingerprint: Fingerprint;
  overwrite: boolean;
  megatronName?: string;
  /** The command, for messages ("pack", "run"). */
  what: string;
}

/** JSON with sorted keys: equal values give equal strings. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

export function fingerprintHash(f: Fingerprint): string {
  return createHash('sha256').update(canonicalJson(f)).digest('hex');
}

/**
 * The identity of input paths without reading them: each file's absolute path, size and
 * mtime; a folder by the same of every file under it. Summarized (count, bytes, sha256) so
 * a marker stays small for a hundred thousand files.
 */
export function inputsIdentity(paths: readonly string[]): { files: number; bytes: number; sha256: string } {
  const h = createHash('sha256');
  let files = 0;
  let bytes = 0;
  const add = (p: string) => {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new Error(`input not found: ${p}`);
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) add(join(p, name));
      return;
    }
    if (!st.isFile()) return;
    files++;
    bytes += st.size;
    h.update(`${resolve(p)}\0${st.size}\0${Math.round(st.mtimeMs)}\n`);
  };
  const addRemote = (url: string) => {
    const found = remoteEntriesSync(url);
    if (!found) throw new Error(`input not found: ${url}`);
    for (const o of 'file' in found ? [found.file] : found.under) {
      files++;
      bytes += o.size;
      h.update(`${o.url}\0${o.size}\0${o.etag}\n`); // the ETag changes with the content, as mtime does
    }
  };
  for (const p of paths) {
    if (p === '-') h.update('-\n');
    else if (isRemote(p)) addRemote(p);
    else add(p);
  }
  return { files, bytes, sha256: h.digest('hex') };
}

/** Takes the folder for a job: lock, ownership and fingerprint checks, cleanup of its own leftovers. */
export function claimOutDir(o: ClaimOptions): OutDir {
  try {
    mkdirSync(o.out, { recursive: true });
    accessSync(o.out, constants.W_OK);
  } catch (e) {
    throw new Error(`cannot write the output folder ${o.out}: ${(e as Error).message}`);
  }
  const releaseLock = acquireLock(o.out, o.what);
  try {
    const fingerprint = fingerprintHash(o.fingerprint);
    const marker = prepareFolder(o, fingerprint);
    if (o.megatronName && !marker.megatron_names.includes(o.megatronName)) marker.megatron_names.push(o.megatronName);
    marker.state = 'running';
    writeMarker(o.out, marker);
    return {
      dir: o.out,
      fingerprint,
      openWork(name, workFingerprint) {
        openWork(o, marker, name, workFingerprint);
      },
      stampWork(name, workFingerprint) {
        writeFileAtomic(join(o.out, name, 'fingerprint'), workFingerprint);
      },
      complete(files) {
        writeMarker(o.out, { ...marker, state: 'complete', files: [...files].sort() });
      },
      release: releaseLock,
    };
  } catch (e) {
    releaseLock();
    throw e;
  }
}

/** Decides what the folder holds and readies it; returns the marker to write. */
function prepareFolder(o: ClaimOptions, fingerprint: string): Marker {
  const fresh: Marker = { format: 'midpack-output', version: 1, fingerprint, components: o.fingerprint, state: 'running', megatron_names: [], files: [] };
  const old = readMarker(o.out);
  if (old && old.fingerprint === fingerprint) {
    removeOwnTemporaries(o.out, old.megatron_names);
    return old;
  }
  if (old) {
    if (!o.overwrite) {
      const d = firstDifference(old.components, o.fingerprint);
      const why = !d || d.a === undefined || d.b === undefined ? 'it was made by another command' : `${d.path} was ${JSON.stringify(d.a)}, now ${JSON.stringify(d.b)}`;
      // core/ranks.ts PARTITION_KEYS: its ranks own other records than this job's would.
      const what = d?.path === 'partition_keys' && d.a === undefined ? 'whose ranks split the inputs by path (an earlier midpack)' : `of other inputs or settings (${why})`;
      throw new Error(
        `${o.out} holds a midpack output ${what}; ${o.what} does not mix or replace it: ` +
          `pass --overwrite to replace it, or choose another --out`,
      );
    }
    removeOwnOutput(o.out, old);
    process.stderr.write(`midpack: ${o.what}: --overwrite: removed the earlier output in ${o.out}\n`);
    return fresh;
  }
  const entries = readdirSync(o.out).filter((n) => n !== OUT_LOCK);
  if (entries.length === 0) return fresh;
  const legacy = legacyOutput(o.out);
  if (legacy && o.overwrite) {
    removeOwnOutput(o.out, legacy);
    process.stderr.write(`midpack: ${o.what}: --overwrite: removed the earlier midpack output in ${o.out}\n`);
    return fresh;
  }
  if (legacy) throw new Error(`${o.out} holds a midpack output written before output markers, so its fingerprint is unknown; pass --overwrite to replace it, or choose another --out`);
  const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? `, ... (${entries.length} entries)` : '');
  throw new Error(`${o.out} is not empty and is not a midpack output (it holds ${shown}); midpack writes only into an empty folder or its own earlier output: choose another --out`);
}

/** The marker of a midpack output folder, if it has one. */
export function readMarker(dir: string): Marker | undefined {
  const p = join(dir, OUT_MARKER);
  if (!existsSync(p)) return undefined;
  try {
    const m = JSON.parse(readFileSync(p, 'utf8')) as Marker;
    if (m.format === 'midpack-output' && typeof m.fingerprint === 'string') return { ...m, megatron_names: m.megatron_names ?? [], files: m.files ?? [] };
  } catch {
    /* not ours */
  }
  return undefined;
}

function writeMarker(dir: string, m: Marker): void {
  writeFileAtomic(join(dir, OUT_MARKER), JSON.stringify(m, null, 2) + '\n');
}

/** An output of a midpack without markers: its manifest.json (midpack_version) or its .work/config.json. */
function legacyOutput(dir: string): Marker | undefined {
  const files: string[] = [];
  const names: string[] = [];
  const manifestPath = join(dir, 'manifest.json');
  let midpack = existsSync(join(dir, '.work', 'config.json'));
  if (existsSync(manifestPath)) {
    try {
      const m = JSON.parse(readFileSync(manifestPath, 'utf8'));
      if (typeof m?.midpack_version === 'string') {
        midpack = true;
        files.push(...manifestFiles(m));
        if (typeof m.config?.name === 'string') names.push(m.config.name);
      }
    } catch {
      /* not a midpack manifest */
    }
  }
  return midpack ? { format: 'midpack-output', version: 1, fingerprint: '', components: {}, state: 'complete', megatron_names: names, files } : undefined;
}

/** The files a pack manifest names, relative to its folder. */
export function manifestFiles(m: ManifestFileLists): string[] {
  return [...manifestDataFiles(m).map((f) => f.path), ...FIXED_FILES];
}

/** Files every pack output has besides its shards, Megatron files and lengths. */
const FIXED_FILES = ['manifest.json', 'report.json', 'report.html', join('shards', 'state.json'), join('shards', 'dataset_info.json')];

/** Names midpack gives its own files in a marked folder, per sub-folder. */
function ownNames(megatronNames: readonly string[]): { sub: string; name: RegExp }[] {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const megatron = megatronNames.map(esc).join('|');
  return [
    { sub: '', name: /^(manifest\.json|report\.json|report\.html|doc_lengths\.u32|\.midpack-output\.json)$/ },
    { sub: 'shards', name: /^(part-\d{5,}\.arrow|state\.json|dataset_info\.json)$/ },
    ...(megatron ? [{ sub: 'megatron', name: new RegExp(`^(${megatron})_(text|loss_mask|doc_lens)_document\\.(bin|idx)$`) }] : []),
  ];
}

/** Temporary files of a killed job: only midpack's own names with a `.tmp-PID` suffix, only in its own sub-folders. */
function removeOwnTemporaries(dir: string, megatronNames: readonly string[]): void {
  for (const { sub, name } of ownNames(megatronNames)) {
    const d = join(dir, sub);
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d)) {
      const m = /^(.*)\.tmp-\d+$/.exec(f);
      if (m && name.test(m[1]!)) rmSync(join(d, f), { force: true });
    }
  }
}

/**
 * Removes an earlier output: the files its marker and manifest list, midpack's own names in
 * its sub-folders (a killed run lists none yet), its work folders. A user's other files stay.
 */
function removeOwnOutput(dir: string, old: Marker, work = true): void {
  const manifest = legacyOutput(dir);
  const names = [...old.megatron_names, ...(manifest?.megatron_names ?? [])];
  for (const f of [...old.files, ...(manifest?.files ?? [])]) {
    const p = resolve(dir, f);
    if (!relative(resolve(dir), p).startsWith('..')) rmSync(p, { force: true });
  }
  removeOwnTemporaries(dir, names);
  for (const { sub, name } of ownNames(names)) {
    const d = join(dir, sub);
    if (existsSync(d)) for (const f of readdirSync(d)) if (name.test(f) && f !== OUT_MARKER) rmSync(join(d, f), { force: true });
  }
  if (work) for (const w of ['.work', '.run']) rmSync(join(dir, w), { recursive: true, force: true });
}

function openWork(o: ClaimOptions, marker: Marker, name: string, fingerprint: string): void {
  const workDir = join(o.out, name);
  const stamp = join(workDir, 'fingerprint');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === fingerprint) return;
  if (existsSync(workDir)) process.stderr.write(`midpack: ${o.what}: ${workDir} holds work of other inputs or settings: starting over\n`);
  rmSync(workDir, { recursive: true, force: true });
  removeOwnOutput(o.out, { ...marker, files: [...marker.files] }, false);
  writeMarker(o.out, { ...marker, state: 'running', files: [] });
  mkdirSync(workDir, { recursive: true });
  writeFileAtomic(stamp, fingerprint);
}

interface LockBody {
  pid: number;
  host: string;
  started: string;
}

/**
 * An exclusive lock: the lock file is made whole under a temporary name and hard-linked into
 * place (link fails if it exists). A lock of a dead process on this host is stale and taken over.
 */
function acquireLock(dir: string, what: string): () => void {
  const path = join(dir, OUT_LOCK);
  const body: LockBody = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(body) + '\n');
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, path);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw lockError(dir, path, e as Error);
        const holder = readLock(path);
        if (!holder || holder.host !== body.host || isAlive(holder.pid)) throw lockError(dir, path, undefined, holder);
        process.stderr.write(`midpack: ${what}: removing the stale lock of process ${holder.pid} (no longer running) in ${dir}\n`);
        rmSync(path, { force: true });
      }
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  const release = () => {
    if (readLock(path)?.pid === process.pid) rmSync(path, { force: true });
    process.off('exit', release);
  };
  process.on('exit', release);
  return release;
}

function readLock(path: string): LockBody | undefined {
  try {
    const b = JSON.parse(readFileSync(path, 'utf8')) as LockBody;
    return Number.isInteger(b.pid) && typeof b.host === 'string' ? b : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function lockError(dir: string, path: string, cause?: Error, holder?: LockBody): Error {
  if (cause && (cause as NodeJS.ErrnoException).code !== 'EEXIST') return new Error(`cannot lock ${dir}: ${cause.message}`);
  const who = holder ? `process ${holder.pid} on ${holder.host}, since ${holder.started}` : 'a process whose lock file cannot be read';
  return new Error(`${dir} is in use by another midpack job (${who}); wait for it to finish, or if it is gone, remove ${path}`);
}
