import { closeSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import xxhash from 'xxhash-wasm';
import { hash64 } from '../../core/random.js';
import { checkRankSet, rankList, type RankInfo } from '../../core/ranks.js';
import { mergeRecords, RecordOutput, type Combine } from './record-runs.js';

/**
 * The dedup index (one per rank, joined with `midpack dedup merge`), little-endian:
 *
 *   [0, 8)        magic "MPDEDUP1"
 *   [8, 12)       u32: byte length of the header JSON
 *   [12, ...)     header JSON (IndexHeader), zero-padded up to HEADER_BYTES
 *   sections.exact.offset   `records` records of EXACT_BYTES, sorted by content hash:
 *                   u64 content hash, u64 keeper key, u32 items with this content,
 *                   u16 name length, NAME_BYTES of the keeper's name (UTF-8, `id` or `id:path`)
 *   sections.near.offset    (with --near) records of near.record_bytes, sorted by item key:
 *                   u64 item key, u16 name length, NAME_BYTES name, u32 tokens, k × u32 MinHash signature
 *
 * An item's key (itemKey) orders by document, then file: the copy that stays is the one with
 * the smallest key, a choice that depends on the items alone. Equal content hashes fold by
 * summing the counts and keeping the smaller keeper, so the merged file's bytes are the same
 * for 1 rank or any number of ranks over the same documents.
 */
export const HEADER_BYTES = 4096;
export const NAME_BYTES = 106;
export const EXACT_BYTES = 8 + 8 + 4 + 2 + NAME_BYTES;
const MAGIC = 'MPDEDUP1';

export interface NearParams {
  /** Tokens per shingle. */
  shingle: number;
  bands: number;
  rows: number;
  /** Items with fewer tokens take part in exact dedup only (a MinHash of a few shingles is noise). */
  min_tokens: number;
}

export interface DedupParams {
  normalize: 'lf-rstrip-trim';
  hash: 'xxh64';
  near?: NearParams;
}

export interface Section {
  offset: number;
  records: number;
  record_bytes: number;
}

export interface IndexHeader {
  format: 'midpack-dedup-index';
  version: 1;
  params: DedupParams;
  documents: number;
  items: number;
  sections: { exact: Section; near?: Section };
  /** The ranks whose documents these are, and the run's world size (absent: an index of no rank). */
  ranks?: number[];
  world_size?: number;
  /** Ranks merged without (`dedup merge --allow-missing-ranks`). */
  missing_ranks?: number[];
}

export type IndexRanks = Pick<IndexHeader, 'ranks' | 'world_size' | 'missing_ranks'>;

export const nearRecordBytes = (p: NearParams) => 8 + 2 + NAME_BYTES + 4 + 4 * p.bands * p.rows;

/**
 * Exact dedup's normalization: CRLF to LF, trailing whitespace cut from every line, blank
 * lines cut at both ends. Two files that differ only there are the same file.
 */
export function normalizeContent(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[ \t\f\v]+$/gm, '').replace(/^\n+|\n+$/g, '');
}

let h64: ((input: string, seed?: bigint) => bigint) | undefined;

export async function loadContentHash(): Promise<(text: string) => { hi: number; lo: number }> {
  h64 ??= (await xxhash()).h64;
  const h = h64;
  return (text) => split64(h(text));
}

export function split64(v: bigint): { hi: number; lo: number } {
  return { hi: Number(v >> 32n), lo: Number(BigInt.asUintN(32, v)) };
}

/**
 * An item's key: the high half from the document id alone, the low half from the id and the
 * path. Keys order by document first, so when two repositories share many files (a fork) the
 * same repository keeps all of them rather than each keeping a random share.
 */
export function itemKey(docId: string, path: string | undefined): { hi: number; lo: number } {
  return { hi: split64(hash64('dedup-doc', docId)).hi, lo: split64(hash64('dedup-item', docId, path ?? '')).lo };
}

/** Writes a name truncated to NAME_BYTES at a character boundary; returns nothing. */
export function writeName(buf: Buffer, at: number, name: string): void {
  let bytes = Buffer.from(name, 'utf8');
  if (bytes.length > NAME_BYTES) bytes = Buffer.from(new TextDecoder().decode(bytes.subarray(0, NAME_BYTES)).replace(/\uFFFD+$/, ''), 'utf8');
  buf.writeUInt16LE(bytes.length, at);
  bytes.copy(buf, at + 2);
}

export function readName(buf: Buffer, at: number): string {
  return buf.toString('utf8', at + 2, at + 2 + buf.readUInt16LE(at));
}

export const hex64 = (hi: number, lo: number) => hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');

/** Equal content: add the counts, keep the keeper with the smaller key (and its name). */
export const combineExact: Combine = (into, i, from, f) => {
  into.writeUInt32LE(Math.min(0xffffffff, into.readUInt32LE(i + 16) + from.readUInt32LE(f + 16)), i + 16);
  const ih = into.readUInt32LE(i + 12);
  const fh = from.readUInt32LE(f + 12);
  if (fh < ih || (fh === ih && from.readUInt32LE(f + 8) < into.readUInt32LE(i + 8))) {
    from.copy(into, i + 8, f + 8, f + 16);
    from.copy(into, i + 20, f + 20, f + EXACT_BYTES);
  }
};

/** The same item twice (a repeated document id): keep the bytewise smaller record, whatever the order. */
export function combineNear(recordBytes: number): Combine {
  return (into, i, from, f) => {
    if (from.compare(into, i, i + recordBytes, f, f + recordBytes) < 0) from.copy(into, i, f, f + recordBytes);
  };
}

export interface SectionSource {
  path: string;
  offset: number;
  count: number;
}

/** Writes an index from sorted sections (runs of pass 1, or the indexes of several ranks). */
export function writeIndex(out: string, params: DedupParams, documents: number, items: number, exact: SectionSource[], near: SectionSource[], ranks: IndexRanks = {}): IndexHeader {
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    const ex = new RecordOutput(tmp, EXACT_BYTES, HEADER_BYTES, fd);
    mergeRecords(exact, EXACT_BYTES, ex, combineExact);
    ex.close();
    const sections: IndexHeader['sections'] = { exact: { offset: HEADER_BYTES, records: ex.records, record_bytes: EXACT_BYTES } };
    if (params.near) {
      const rb = nearRecordBytes(params.near);
      const nr = new RecordOutput(tmp, rb, ex.end, fd);
      mergeRecords(near, rb, nr, combineNear(rb));
      nr.close();
      sections.near = { offset: ex.end, records: nr.records, record_bytes: rb };
    }
    const header: IndexHeader = { format: 'midpack-dedup-index', version: 1, params, documents, items, sections, ...ranks };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    const head = Buffer.alloc(HEADER_BYTES);
    head.write(MAGIC, 0, 'latin1');
    head.writeUInt32LE(json.length, 8);
    json.copy(head, 12);
    writeSync(fd, head, 0, HEADER_BYTES, 0);
    closeSync(fd);
    renameSync(tmp, out);
    return header;
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
}

export function readIndexHeader(path: string): IndexHeader {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    const n = readSync(fd, head, 0, HEADER_BYTES, 0);
    if (n < 12 || head.toString('latin1', 0, 8) !== MAGIC) throw new Error(`${path}: not a midpack dedup index`);
    const len = head.readUInt32LE(8);
    const header = JSON.parse(head.toString('utf8', 12, 12 + len)) as IndexHeader;
    if (header.format !== 'midpack-dedup-index' || header.version !== 1) throw new Error(`${path}: unsupported dedup index format`);
    return header;
  } finally {
    closeSync(fd);
  }
}

/**
 * Joins the indexes of several ranks (which read disjoint documents) into one. Indexes of ranks
 * must be ranks 0..W-1 of one run, each once (a missing rank only with `allowMissing`, recorded);
 * indexes of no rank (`dedup count` without a rank) join as before, never mixed with ranked ones.
 */
export function mergeIndexes(inputs: string[], out: string, allowMissing = false): IndexHeader {
  if (!inputs.length) throw new Error('dedup merge: no index files given');
  const headers = inputs.map(readIndexHeader);
  const params = JSON.stringify(headers[0]!.params);
  headers.forEach((h, i) => {
    if (JSON.stringify(h.params) !== params) throw new Error(`${inputs[i]}: parameters ${JSON.stringify(h.params)} differ from ${inputs[0]}'s ${params}`);
  });
  const ranks = mergedIndexRanks(inputs, headers, allowMissing);
  const section = (name: 'exact' | 'near') => headers.map((h, i) => ({ path: inputs[i]!, offset: h.sections[name]!.offset, count: h.sections[name]!.records }));
  return writeIndex(
    out,
    headers[0]!.params,
    headers.reduce((s, h) => s + h.documents, 0),
    headers.reduce((s, h) => s + h.items, 0),
    section('exact'),
    headers[0]!.params.near ? section('near') : [],
    ranks,
  );
}

function mergedIndexRanks(inputs: string[], headers: IndexHeader[], allowMissing: boolean): IndexRanks {
  const ranked = headers.map((h, i) => ({ h, name: inputs[i]! })).filter(({ h }) => h.ranks !== undefined);
  if (ranked.length === 0) return {};
  const unranked = inputs.filter((_, i) => headers[i]!.ranks === undefined);
  if (unranked.length) throw new Error(`dedup merge: ${unranked.join(', ')}: an index of no rank, ${ranked[0]!.name} of rank ${ranked[0]!.h.ranks!.join(', ')}: merge the indexes of one run's ranks`);
  const set = checkRankSet('dedup merge', ranked.map(({ h, name }) => ({ ranks: h.ranks!, worldSize: h.world_size!, name })), allowMissing);
  return { ranks: set.ranks, world_size: set.worldSize, ...(set.missing.length ? { missing_ranks: set.missing } : {}) };
}

/** `dedup apply` on one rank of several: the index must hold this rank's documents (an index of ranks), else its duplicates go unseen. */
export function checkIndexCovers(path: string, header: IndexHeader, rank: RankInfo): void {
  if (rank.worldSize === 1 || header.ranks === undefined) return;
  if (header.world_size !== rank.worldSize) throw new Error(`${path}: the index of a run over ${header.world_size} ranks; this is rank ${rank.rank} of ${rank.worldSize}`);
  if (!header.ranks.includes(rank.rank)) throw new Error(`${path}: the index of ranks ${rankList(header.ranks)} of ${header.world_size} does not include this rank (${rank.rank}): merge the indexes of every rank (midpack dedup merge)`);
}
