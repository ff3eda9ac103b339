import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { MinHeap } from '../../core/heap.js';
import { hashHex, type SegmentParams } from './segments.js';
import { checkRankSet, rankList, type RankInfo } from '../../core/ranks.js';

/**
 * The counts file (one per rank, merged with `mask merge`), little-endian throughout:
 *
 *   [0, 8)        magic "MPMASKC1"
 *   [8, 12)       u32: byte length of the header JSON
 *   [12, ...)     header JSON (CountsHeader, then "sha256": the checksum of that JSON
 *                 and every byte after HEADER_BYTES), zero-padded up to HEADER_BYTES
 *   HEADER_BYTES  `segments_distinct` records of 12 bytes, sorted by hash ascending:
 *                   u64 segment hash (xxh64 of the normalized line), u32 document count
 *   then          `samples_bytes` of JSONL samples, most frequent first:
 *                   {"hash":"<16 hex>","docs":N,"text":"<normalized line, truncated>"}
 *
 * Sorted fixed-size records make merging a streaming k-way merge and the file's bytes
 * a function of the counts alone: 1 rank or 4 ranks merged give the same file.
 */
export const HEADER_BYTES = 4096;
export const RECORD_BYTES = 12;
const MAGIC = 'MPMASKC1';

export interface CountsHeader extends SegmentParams {
  format: 'midpack-mask-counts';
  /** 2: with a checksum (a file with one flipped byte is refused). */
  version: 2;
  /** Documents counted. */
  documents: number;
  /** Distinct segments (records in the file). */
  segments_distinct: number;
  /** Sum of the document counts: segment occurrences after deduplication within each document. */
  segment_occurrences: number;
  /** How many samples the file holds (for the most frequent segments). */
  samples: number;
  samples_bytes: number;
  /** The ranks whose documents these are, and the run's world size (absent: counts of no rank). */
  ranks?: number[];
  world_size?: number;
  /** Ranks merged without (`mask merge --allow-missing-ranks`): these counts are not the whole run's. */
  missing_ranks?: number[];
}

/** Which ranks a counts file covers (stamped on a rank's file, carried through merges). */
export interface CountsRanks {
  ranks: number[];
  world_size: number;
  missing_ranks?: number[];
}

export interface Sample {
  hash: string;
  docs: number;
  text: string;
}

interface TopEntry {
  hi: number;
  lo: number;
  docs: number;
}

/** Orders the top-N heap: its top is the entry that leaves first (fewest docs, then largest hash). */
const worse = (a: TopEntry, b: TopEntry) => a.docs < b.docs || (a.docs === b.docs && (a.hi > b.hi || (a.hi === b.hi && a.lo > b.lo)));

/** Most frequent first, ties by hash: the samples' order in the file and in reports. */
export function byFrequency(a: TopEntry, b: TopEntry): number {
  return b.docs - a.docs || a.hi - b.hi || a.lo - b.lo;
}

/** Keeps the `n` most frequent entries seen (a bounded heap). */
export class TopN {
  private heap = new MinHeap<TopEntry>(worse);

  constructor(readonly n: number) {}

  offer(hi: number, lo: number, docs: number): void {
    if (this.n <= 0) return;
    if (this.heap.size < this.n) {
      this.heap.push({ hi, lo, docs });
      return;
    }
    const top = this.heap.peek()!;
    if (docs < top.docs) return; // most records, and no object made for them
    if (!worse(top, { hi, lo, docs })) return;
    top.hi = hi;
    top.lo = lo;
    top.docs = docs;
    this.heap.siftDown();
  }

  sorted(): TopEntry[] {
    return this.heap.toArray().sort(byFrequency);
  }
}

/**
 * Writes a counts file: records pushed in strictly increasing hash order, then the header
 * and the samples of the most frequent records. Written under a temporary name and renamed.
 */
export class CountsWriter {
  private readonly tmp: string;
  private readonly fd: number;
  private readonly buf = Buffer.alloc(RECORD_BYTES * 16384);
  private used = 0;
  private position = HEADER_BYTES;
  private records = 0;
  private occurrences = 0;
  private lastHi = -1;
  private lastLo = -1;
  /** Of every byte after the header block, in file order. */
  private readonly body = createHash('sha256');
  readonly top: TopN;

  constructor(
    readonly path: string,
    readonly params: SegmentParams,
    samples: number,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.tmp = `${path}.tmp-${process.pid}`;
    this.fd = openSync(this.tmp, 'w');
    this.top = new TopN(samples);
  }

  push(hi: number, lo: number, docs: number): void {
    if (hi < this.lastHi || (hi === this.lastHi && lo <= this.lastLo)) throw new Error(`${this.path}: records out of order`);
    this.lastHi = hi;
    this.lastLo = lo;
    this.buf.writeUInt32LE(lo, this.used);
    this.buf.writeUInt32LE(hi, this.used + 4);
    this.buf.writeUInt32LE(docs, this.used + 8);
    this.used += RECORD_BYTES;
    this.records++;
    this.occurrences += docs;
    this.top.offer(hi, lo, docs);
    if (this.used === this.buf.length) this.flush();
  }

  /**
   * As push() for each record of `records`, three words each (key low half, key high half,
   * documents: HashTable.records), written as they are: a table's millions of records were most
   * of the time between a run's last prepared document and the start of its masking pass.
   */
  pushRecords(records: Uint32Array): void {
    if (new Uint8Array(Uint32Array.of(1).buffer)[0] !== 1) throw new Error('pushRecords writes its words as they are: a little-endian host');
    this.flush();
    let [lastHi, lastLo] = [this.lastHi, this.lastLo];
    for (let at = 0; at < records.length; at += 3) {
      const [lo, hi, docs] = [records[at]!, records[at + 1]!, records[at + 2]!];
      if (hi < lastHi || (hi === lastHi && lo <= lastLo)) throw new Error(`${this.path}: records out of order`);
      [lastHi, lastLo] = [hi, lo];
      this.occurrences += docs;
      this.top.offer(hi, lo, docs);
    }
    [this.lastHi, this.lastLo] = [lastHi, lastLo];
    const bytes = Buffer.from(records.buffer, records.byteOffset, records.byteLength);
    writeSync(this.fd, bytes, 0, bytes.length, this.position);
    this.body.update(bytes);
    this.position += bytes.length;
    this.records += records.length / 3;
  }

  /** `sampleText(hex)` gives the text for a top hash when one is known. */
  close(documents: number, sampleText: (hashes: Set<string>) => Map<string, string>, ranks?: CountsRanks): CountsHeader {
    this.flush();
    const top = this.top.sorted();
    const texts = sampleText(new Set(top.map((t) => hashHex(t.hi, t.lo))));
    const lines: string[] = [];
    for (const t of top) {
      const hash = hashHex(t.hi, t.lo);
      const text = texts.get(hash);
      if (text !== undefined) lines.push(JSON.stringify({ hash, docs: t.docs, text } satisfies Sample) + '\n');
    }
    const samples = Buffer.from(lines.join(''), 'utf8');
    writeSync(this.fd, samples, 0, samples.length, this.position);
    this.body.update(samples);
    const header: CountsHeader = {
      format: 'midpack-mask-counts',
      version: 2,
      ...this.params,
      documents,
      segments_distinct: this.records,
      segment_occurrences: this.occurrences,
      samples: lines.length,
      samples_bytes: samples.length,
      ...(ranks ? { ranks: ranks.ranks, world_size: ranks.world_size, ...(ranks.missing_ranks?.length ? { missing_ranks: ranks.missing_ranks } : {}) } : {}),
    };
    const head = encodeHeader(header, this.body.digest('hex'));
    writeSync(this.fd, head, 0, head.length, 0);
    closeSync(this.fd);
    renameSync(this.tmp, this.path);
    return header;
  }

  abort(): void {
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    rmSync(this.tmp, { force: true });
  }

  private flush(): void {
    if (!this.used) return;
    writeSync(this.fd, this.buf, 0, this.used, this.position);
    this.body.update(this.buf.subarray(0, this.used));
    this.position += this.used;
    this.used = 0;
  }
}

/** The checksum over the header's JSON (without its checksum) and the body's sha256. */
function headerChecksum(json: string, bodySha256: string): string {
  return createHash('sha256').update(json).update('\n').update(bodySha256).digest('hex');
}

function encodeHeader(header: CountsHeader, bodySha256: string): Buffer {
  const bare = JSON.stringify(header);
  const json = Buffer.from(JSON.stringify({ ...header, sha256: headerChecksum(bare, bodySha256) }), 'utf8');
  if (json.length + 12 > HEADER_BYTES) throw new Error('counts header too large');
  const head = Buffer.alloc(HEADER_BYTES);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(json.length, 8);
  json.copy(head, 12);
  return head;
}

/**
 * Reads a counts file's header and verifies the whole file against its checksum (one
 * streaming read), so a corrupt file is refused by every reader; the error names the file.
 */
export function readCountsHeader(path: string): CountsHeader {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    const n = readSync(fd, head, 0, HEADER_BYTES, 0);
    if (n < 12 || head.toString('latin1', 0, 8) !== MAGIC) throw new Error(`${path}: not a midpack mask counts file`);
    const len = head.readUInt32LE(8);
    if (len + 12 > n || n < HEADER_BYTES) throw new Error(`${path}: truncated counts header`);
    let parsed: CountsHeader & { sha256?: string };
    try {
      parsed = JSON.parse(head.toString('utf8', 12, 12 + len));
    } catch {
      throw new Error(`${path}: corrupt counts file (its header is not JSON)`);
    }
    if (parsed.format !== 'midpack-mask-counts') throw new Error(`${path}: unsupported counts format`);
    if (parsed.version !== 2) throw new Error(`${path}: counts format version ${parsed.version} has no checksum; count again with this midpack`);
    const { sha256, ...header } = parsed;
    if (head.subarray(12 + len).some((b) => b !== 0)) throw new Error(`${path}: corrupt counts file (header padding is not zero)`);
    const expected = HEADER_BYTES + header.segments_distinct * RECORD_BYTES + header.samples_bytes;
    if (fstatSync(fd).size !== expected) throw new Error(`${path}: corrupt counts file (${fstatSync(fd).size} bytes, its header says ${expected})`);
    if (sha256 !== headerChecksum(JSON.stringify(header), bodySha256(fd))) throw new Error(`${path}: corrupt counts file (checksum mismatch)`);
    return header;
  } finally {
    closeSync(fd);
  }
}

function bodySha256(fd: number): string {
  const hash = createHash('sha256');
  const buf = Buffer.alloc(1 << 20);
  for (let at = HEADER_BYTES; ; ) {
    const got = readSync(fd, buf, 0, buf.length, at);
    if (got === 0) return hash.digest('hex');
    hash.update(buf.subarray(0, got));
    at += got;
  }
}

/** A forward cursor over a counts file's sorted records, read in fixed-size chunks. */
export class RecordCursor {
  hi = 0;
  lo = 0;
  docs = 0;
  done = false;
  private readonly fd: number;
  private readonly buf = Buffer.alloc(RECORD_BYTES * 8192);
  private filled = 0;
  private at = 0;
  private remaining: number;
  private position = HEADER_BYTES;

  constructor(
    readonly path: string,
    header: CountsHeader,
  ) {
    this.fd = openSync(path, 'r');
    this.remaining = header.segments_distinct;
    this.next();
  }

  /** Moves to the next record; sets `done` (and closes the file) after the last. */
  next(): void {
    if (this.at === this.filled) {
      if (this.remaining === 0) {
        this.done = true;
        closeSync(this.fd);
        return;
      }
      const want = Math.min(this.remaining, this.buf.length / RECORD_BYTES) * RECORD_BYTES;
      const got = readSync(this.fd, this.buf, 0, want, this.position);
      if (got !== want) throw new Error(`${this.path}: truncated counts file`);
      this.position += got;
      this.remaining -= got / RECORD_BYTES;
      this.filled = got;
      this.at = 0;
    }
    this.lo = this.buf.readUInt32LE(this.at);
    this.hi = this.buf.readUInt32LE(this.at + 4);
    this.docs = this.buf.readUInt32LE(this.at + 8);
    this.at += RECORD_BYTES;
  }
}

/** The samples of a counts file (bounded: a few hundred bytes per sample, `samples` of them). */
export function readSamples(path: string, header: CountsHeader): Sample[] {
  if (!header.samples_bytes) return [];
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(header.samples_bytes);
    const at = HEADER_BYTES + header.segments_distinct * RECORD_BYTES;
    if (readSync(fd, buf, 0, buf.length, at) !== buf.length) throw new Error(`${path}: truncated samples`);
    return buf
      .toString('utf8')
      .split('\n')
      .filter((l) => l)
      .map((l) => JSON.parse(l) as Sample);
  } finally {
    closeSync(fd);
  }
}

const sameParams = (a: SegmentParams, b: SegmentParams) =>
  a.unit === b.unit && a.normalize === b.normalize && a.hash === b.hash && a.min_chars === b.min_chars;

export function paramsOf(h: SegmentParams): SegmentParams {
  return { unit: h.unit, normalize: h.normalize, hash: h.hash, min_chars: h.min_chars };
}

/**
 * Merges counts files into one: a k-way merge of their sorted records summing the counts
 * of equal hashes (document counts add up because the inputs counted disjoint documents).
 * Memory: one read buffer per input plus the top-N samples.
 */
export function mergeCountsFiles(inputs: string[], out: string, samples: number, o: MergeCountsOptions = {}): CountsHeader {
  if (!inputs.length) throw new Error('mask merge: no counts files given');
  const headers = inputs.map(readCountsHeader);
  const ranks = o.rank ? { ranks: [o.rank.rank], world_size: o.rank.worldSize } : mergedRanks(inputs, headers, o.allowMissingRanks ?? false);
  refuseDuplicates(inputs, headers);
  const params = paramsOf(headers[0]!);
  headers.forEach((h, i) => {
    if (!sameParams(params, h)) {
      throw new Error(`${inputs[i]}: segment parameters ${JSON.stringify(paramsOf(h))} differ from ${inputs[0]}'s ${JSON.stringify(params)}`);
    }
  });
  const writer = new CountsWriter(out, params, samples);
  try {
    const heap = new MinHeap<RecordCursor>((a, b) => a.hi < b.hi || (a.hi === b.hi && a.lo < b.lo));
    inputs.forEach((p, i) => {
      const c = new RecordCursor(p, headers[i]!);
      if (!c.done) heap.push(c);
    });
    while (heap.size) {
      const first = heap.peek()!;
      const hi = first.hi;
      const lo = first.lo;
      let docs = 0;
      while (heap.size && heap.peek()!.hi === hi && heap.peek()!.lo === lo) {
        const c = heap.peek()!;
        docs = Math.min(0xffffffff, docs + c.docs);
        c.next();
        if (c.done) heap.pop();
        else heap.siftDown();
      }
      writer.push(hi, lo, docs);
    }
    const documents = headers.reduce((s, h) => s + h.documents, 0);
    return writer.close(documents, (wanted) => {
      const texts = new Map<string, string>();
      inputs.forEach((p, i) => {
        for (const s of readSamples(p, headers[i]!)) if (wanted.has(s.hash) && !texts.has(s.hash)) texts.set(s.hash, s.text);
      });
      return texts;
    }, ranks);
  } catch (e) {
    writer.abort();
    throw e;
  }
}

export interface MergeCountsOptions {
  /** Stamp the result as this rank's counts (the last step of a rank's own count). */
  rank?: RankInfo;
  /** Merge ranked counts with ranks missing, recording them (default: refused, naming them). */
  allowMissingRanks?: boolean;
}

/**
 * The ranks merged counts cover: counts of ranks must be ranks 0..W-1 of one run, each once
 * (checkRankSet); counts of no rank (`mask count` of a file set) merge as before, but never
 * mixed with ranked ones.
 */
function mergedRanks(inputs: string[], headers: CountsHeader[], allowMissing: boolean): CountsRanks | undefined {
  const ranked = headers.map((h, i) => ({ h, name: inputs[i]! })).filter(({ h }) => h.ranks !== undefined);
  if (ranked.length === 0) return undefined;
  const unranked = inputs.filter((_, i) => headers[i]!.ranks === undefined);
  if (unranked.length) throw new Error(`mask merge: ${unranked.join(', ')} ${unranked.length > 1 ? 'are counts' : 'is counts'} of no rank, ${ranked[0]!.name} of rank ${ranked[0]!.h.ranks!.join(', ')}: merge the counts of one run's ranks`);
  const set = checkRankSet('mask merge', ranked.map(({ h, name }) => ({ ranks: h.ranks!, worldSize: h.world_size!, name })), allowMissing);
  return { ranks: set.ranks, world_size: set.worldSize, ...(set.missing.length ? { missing_ranks: set.missing } : {}) };
}

/**
 * Phase pack's check: counts of several ranks must include this rank's documents, and come from
 * a run of its world size; otherwise its masks would come from counts that never saw them.
 */
export function checkCountsCover(path: string, header: CountsHeader, rank: RankInfo): void {
  if (rank.worldSize === 1) return;
  if (header.ranks === undefined) throw new Error(`${path}: counts of no rank; rank ${rank.rank} of ${rank.worldSize} needs the merged counts of every rank (midpack mask merge OUT/rank-*/.run/mask-counts.bin)`);
  if (header.world_size !== rank.worldSize) throw new Error(`${path}: counts of a run over ${header.world_size} ranks; this is rank ${rank.rank} of ${rank.worldSize}`);
  if (!header.ranks.includes(rank.rank)) {
    throw new Error(`${path}: the counts of ranks ${rankList(header.ranks)} of ${header.world_size} do not include this rank (${rank.rank}): its masks would not count its own documents; merge the counts of every rank`);
  }
}

/** The same file given twice (any spelling, or a copy) would count its documents twice: refused. */
function refuseDuplicates(inputs: string[], headers: CountsHeader[]): void {
  const seen = new Map<string, string>();
  for (const [i, p] of inputs.entries()) {
    if (headers[i]!.documents === 0) continue; // empty counts add nothing, however often
    const fd = openSync(p, 'r');
    let key: string;
    try {
      const head = Buffer.alloc(HEADER_BYTES);
      readSync(fd, head, 0, HEADER_BYTES, 0);
      // The header's checksum covers the whole content: equal checksums, equal files.
      key = createHash('sha256').update(head).digest('hex');
    } finally {
      closeSync(fd);
    }
    const first = seen.get(key);
    if (first !== undefined) throw new Error(`mask merge: ${p} holds the same counts as ${first}; merging it twice would double its counts`);
    seen.set(key, p);
  }
}
