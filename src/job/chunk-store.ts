import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TokenRanges } from '../tokenize/token-mask.js';

/**
 * Tokenized documents on disk, in chunks written atomically (tokens, mask, then the index
 * file last), so a killed run resumes from its last complete chunk instead of tokenizing
 * again. Packing reads tokens back by (document, range); only a few chunk indexes are held
 * in memory at a time, so memory does not grow with the corpus.
 *
 *   chunk-NNNNNN.tok   int32 LE token ids of its documents, back to back
 *   chunk-NNNNNN.msk   uint8 loss mask, aligned (1 = trained on)
 *   chunk-NNNNNN.json  { firstSeq, tokens, acceptedEnd, failed, docs: [{ id, kind, source, len, masked, boundaries?, ordering?, language?, template?, mix?, group? }] }
 *   chunk-NNNNNN.beg, chunk-NNNNNN.end   int32 LE, aligned: each token's character range [start, end)
 *                      in UTF-16 units of its document, kept only until the loss mask is placed
 *                      (a run tokenizing while it prepares: remask); both are needed, as the
 *                      ranges of tokens that split a character (or an NFC cluster) overlap
 */
export interface ChunkDoc {
  id: string;
  kind: string;
  source: string;
  /** Tokens, end-of-text included. */
  len: number;
  /** Tokens excluded from the loss. */
  masked: number;
  /** Token offsets where the boundary policy may cut (header = tokens before the first). */
  boundaries?: number[];
  ordering?: string;
  language?: string;
  /** A trajectory's tool-call template. */
  template?: string;
  /** The config source a `midpack run` mixture counts it under (meta.mixture_source). */
  mix?: string;
  /** Planned together with the consecutive documents of the same group where they fit in L (meta.group; pack/groups.ts). */
  group?: string;
}

export interface ChunkIndex {
  /** Packer index of the chunk's first document (documents that tokenized, in order). */
  firstSeq: number;
  tokens: number;
  docs: ChunkDoc[];
  /** Input documents consumed through this chunk, failed ones included: where a resumed run goes on. */
  acceptedEnd: number;
  /**
   * Documents of this chunk's range that failed to tokenize, so a resumed run counts them again;
   * `seq`: the document's number among those that could be tokenized (remask skips it).
   */
  failed: { reason: string; message: string; seq?: number }[];
}

interface LoadedChunk {
  index: ChunkIndex;
  /** Token offset of each document in the chunk files. */
  offsets: Float64Array;
  fdTok: number;
  fdMsk: number;
}

const name = (k: number) => `chunk-${String(k).padStart(6, '0')}`;

/**
 * Entries (a document, or one of its boundaries) of the chunk indexes held in memory from
 * registration on. After the last document the indexes are read three times (the planner's
 * counting pass, its planning pass, the write phase's chunk lookups), all on the serial tail
 * after tokenizing; reading and parsing the JSON again took 60-160 ms a pass at 100 MB of
 * input (13,000 documents, 2.4 MB of index; a machine under load). Past this many entries (tens of MB of objects) the
 * later chunks are read from disk as before, so memory stays bounded whatever the corpus.
 */
const HELD_INDEX_ENTRIES = 1 << 20;

export class ChunkStore {
  /** First sequence number of each chunk, for locating a document's chunk by binary search. */
  private readonly firstSeqs: number[] = [];
  private readonly loaded = new Map<number, LoadedChunk>();
  /** Chunk indexes kept from registration (see HELD_INDEX_ENTRIES), by chunk number. */
  private readonly held = new Map<number, ChunkIndex>();
  private heldEntries = 0;

  /**
   * `cacheChunks`: chunks kept open (two file handles and the parsed index each) for the
   * positioned reads of bin writing, least recently used closed first. `heldIndexEntries`: the
   * bound on the indexes held in memory (HELD_INDEX_ENTRIES).
   */
  constructor(
    readonly dir: string,
    private readonly cacheChunks = 64,
    private readonly heldIndexEntries = HELD_INDEX_ENTRIES,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /** Complete chunks left by an earlier run, in order: the consecutive ones from 0. */
  completed(): ChunkIndex[] {
    const out: ChunkIndex[] = [];
    for (let k = 0; existsSync(join(this.dir, `${name(k)}.json`)); k++) {
      out.push(this.readIndex(k));
    }
    // Anything after the first gap, or a half-written chunk, is from a killed run: remove it.
    for (const f of readdirSync(this.dir)) {
      const m = /^chunk-(\d{6})\./.exec(f);
      if ((m && Number(m[1]) >= out.length) || f.includes('.tmp')) rmSync(join(this.dir, f), { force: true });
    }
    return out;
  }

  get chunkCount(): number {
    return this.firstSeqs.length;
  }

  /** Registers a chunk (written now or found complete) so its documents can be read. */
  register(index: ChunkIndex): void {
    this.hold(this.firstSeqs.length, index);
    this.firstSeqs.push(index.firstSeq);
  }

  /** The index of chunk k: the one held since registration, else read from disk. */
  index(k: number): ChunkIndex {
    return this.held.get(k) ?? this.readIndex(k);
  }

  private readIndex(k: number): ChunkIndex {
    return JSON.parse(readFileSync(join(this.dir, `${name(k)}.json`), 'utf8')) as ChunkIndex;
  }

  /** Keeps chunk k's index in memory while the held entries stay within HELD_INDEX_ENTRIES (replacing the one held, if any). */
  private hold(k: number, index: ChunkIndex): void {
    const entries = indexEntries(index);
    const replaced = this.held.get(k);
    if (replaced) {
      this.held.delete(k);
      this.heldEntries -= indexEntries(replaced);
    }
    if (this.heldEntries + entries > this.heldIndexEntries) return;
    this.held.set(k, index);
    this.heldEntries += entries;
  }

  /** Starts chunk k: its documents' tokens and masks are appended as they come, and it appears complete on commit. */
  begin(k: number): ChunkWriter {
    return new ChunkWriter(join(this.dir, name(k)));
  }

  /** Copies tokens [start, end) of document `seq` into ids/mask at `at`. */
  read(seq: number, start: number, end: number, ids: Int32Array, mask: Uint8Array, at: number): void {
    const n = end - start;
    if (n <= 0) return;
    const c = this.chunkOf(seq);
    const docOffset = c.offsets[seq - c.index.firstSeq]!;
    const tokBuf = Buffer.from(ids.buffer, ids.byteOffset + at * 4, n * 4);
    readFully(c.fdTok, tokBuf, (docOffset + start) * 4);
    // `masked` counts the zeros of a document's mask (all 1 but the tokens masked): with none,
    // its mask is ones and is not read. Most documents have none: this halves the reads of the
    // write phase, which are most of assembling a bin.
    if (c.index.docs[seq - c.index.firstSeq]!.masked === 0) mask.fill(1, at, at + n);
    else readFully(c.fdMsk, Buffer.from(mask.buffer, mask.byteOffset + at, n), docOffset + start);
  }

  /**
   * Places chunk k's loss mask again from its tokens' character ranges (.beg/.end, which are then
   * removed): `place` clears the masked tokens of each document in turn (all 1 on entry) and
   * returns how many, which becomes the document's `masked`. A document's ranges are read only
   * when `place` asks for them (a document without spans needs none), one document's at a time;
   * the new mask and index replace the old ones atomically, the index last.
   */
  async remask(k: number, place: (doc: ChunkDoc, ranges: () => TokenRanges, mask: Uint8Array) => Promise<number>): Promise<ChunkIndex> {
    const base = join(this.dir, name(k));
    // A copy from disk: the held index changes only once the new mask and index are in place.
    const index = this.readIndex(k);
    const fds = ['beg', 'end'].map((ext) => openSync(`${base}.${ext}`, 'r'));
    const msk = new PendingRun(`${base}.msk.tmp`);
    try {
      let at = 0;
      for (const d of index.docs) {
        const offset = at * 4;
        const ranges = (): TokenRanges => {
          const [starts, ends] = fds.map((fd) => {
            const a = new Int32Array(d.len);
            readFully(fd, Buffer.from(a.buffer), offset);
            return a;
          }) as [Int32Array, Int32Array];
          return { starts, ends };
        };
        const mask = new Uint8Array(d.len).fill(1);
        d.masked = await place(d, ranges, mask);
        msk.append(mask);
        at += d.len;
      }
    } finally {
      msk.close();
      for (const fd of fds) closeSync(fd);
    }
    renameSync(`${base}.msk.tmp`, `${base}.msk`);
    writeFileSync(`${base}.json.tmp`, JSON.stringify(index));
    renameSync(`${base}.json.tmp`, `${base}.json`);
    for (const ext of ['beg', 'end']) rmSync(`${base}.${ext}`, { force: true });
    // Reads opened before would see the old mask file and index.
    this.unload(k);
    if (this.held.has(k)) this.hold(k, index);
    return index;
  }

  doc(seq: number): ChunkDoc {
    const c = this.chunkOf(seq);
    return c.index.docs[seq - c.index.firstSeq]!;
  }

  private chunkOf(seq: number): LoadedChunk {
    let lo = 0;
    let hi = this.firstSeqs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.firstSeqs[mid]! <= seq) lo = mid;
      else hi = mid - 1;
    }
    let c = this.loaded.get(lo);
    if (c) {
      // keep recently used chunks at the end of the map (LRU order)
      this.loaded.delete(lo);
      this.loaded.set(lo, c);
      return c;
    }
    const base = join(this.dir, name(lo));
    const index = this.index(lo);
    const offsets = new Float64Array(index.docs.length);
    let off = 0;
    index.docs.forEach((d, i) => {
      offsets[i] = off;
      off += d.len;
    });
    c = { index, offsets, fdTok: openSync(`${base}.tok`, 'r'), fdMsk: openSync(`${base}.msk`, 'r') };
    this.loaded.set(lo, c);
    if (this.loaded.size > this.cacheChunks) this.unload(this.loaded.keys().next().value as number);
    return c;
  }

  /** Closes chunk k's files and forgets its offsets, if it is open. */
  private unload(k: number): void {
    const c = this.loaded.get(k);
    if (!c) return;
    closeSync(c.fdTok);
    closeSync(c.fdMsk);
    this.loaded.delete(k);
  }

  close(): void {
    for (const k of [...this.loaded.keys()]) this.unload(k);
  }

  remove(): void {
    this.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * One chunk being written: tokens and masks go to temporary files as each document arrives, so
 * the tokenizer's result buffers die young instead of being held (and promoted by the garbage
 * collector) until the chunk is complete. Documents of one tokenizer batch are views of one
 * buffer, side by side: each such run is written with one call. commit() renames the files into
 * place and writes the index last, which is what makes the chunk complete.
 */
export class ChunkWriter {
  private readonly files = new Map<string, PendingRun>();

  constructor(private readonly base: string) {}

  /** A document's tokens and mask, and (when the mask is placed later: remask) their character ranges. */
  append(ids: Int32Array, mask: Uint8Array, ranges?: TokenRanges): void {
    this.file('tok').append(ids);
    this.file('msk').append(mask);
    if (ranges) {
      this.file('beg').append(ranges.starts);
      this.file('end').append(ranges.ends);
    }
  }

  /** Closes the files of a chunk that will not complete (its temporary files are removed by the next run). */
  abort(): void {
    for (const f of this.files.values()) f.close();
  }

  commit(index: ChunkIndex): void {
    for (const [ext, f] of this.files) {
      f.close();
      renameSync(`${this.base}.${ext}.tmp`, `${this.base}.${ext}`);
    }
    writeFileSync(`${this.base}.json.tmp`, JSON.stringify(index));
    renameSync(`${this.base}.json.tmp`, `${this.base}.json`);
  }

  private file(ext: string): PendingRun {
    let f = this.files.get(ext);
    if (!f) this.files.set(ext, (f = new PendingRun(`${this.base}.${ext}.tmp`)));
    return f;
  }
}

/** A file appended to, holding back the latest bytes while the next view continues them in the same buffer. */
class PendingRun {
  private readonly fd: number;
  private run: { buffer: ArrayBufferLike; start: number; end: number } | undefined;
  private closed = false;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  append(view: ArrayBufferView): void {
    const r = this.run;
    if (r && r.buffer === view.buffer && r.end === view.byteOffset) r.end += view.byteLength;
    else {
      this.flush();
      this.run = { buffer: view.buffer, start: view.byteOffset, end: view.byteOffset + view.byteLength };
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
    }
  }

  private flush(): void {
    const r = this.run;
    this.run = undefined;
    if (!r) return;
    const bytes = new Uint8Array(r.buffer, r.start, r.end - r.start);
    for (let done = 0; done < bytes.length; ) done += writeSync(this.fd, bytes, done, bytes.length - done);
  }
}

/** What a held index counts against HELD_INDEX_ENTRIES: its documents and their boundaries. */
function indexEntries(index: ChunkIndex): number {
  let n = 0;
  for (const d of index.docs) n += 1 + (d.boundaries?.length ?? 0);
  return n;
}

function readFully(fd: number, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) {
    const n = readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) throw new Error(`unexpected end of a tokenized chunk at byte ${position + done}`);
    done += n;
  }
}
