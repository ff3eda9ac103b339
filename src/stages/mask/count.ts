import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Doc } from '../../doc/document.js';
import type { StageContext } from '../../core/stage.js';
import type { RankInfo } from '../../core/ranks.js';
import { CountsWriter, mergeCountsFiles, type CountsHeader, type CountsRanks } from './counts-file.js';
import { HashTable } from './hash-table.js';
import { hashHex, LineText, loadSegmenter, normalizedAt, sampleText, segmentParams, DEFAULT_MIN_CHARS, SEGMENT_WORDS, type Segmenter } from './segments.js';

export interface CountOptions {
  /** Shortest normalized line that counts as a segment (UTF-16 units). */
  minChars?: number;
  /** Memory for the in-memory count table; past it, sorted runs spill to `workDir`. */
  memoryMb?: number;
  /** How many of the most frequent segments keep a text sample in the counts file. */
  samples?: number;
  /** Where spilled runs go (default: a temporary folder beside `out`); removed at the end. */
  workDir?: string;
  /** Runs merged at once; more runs merge in rounds. */
  fanIn?: number;
  /** The rank whose documents these are: recorded in the counts file, checked at merges. */
  rank?: RankInfo;
  /**
   * A document's segments found elsewhere (a prepare worker: documentSegments), or undefined to
   * find them here: the same segments, in the same order, give the same counts file.
   */
  segmentsOf?: (doc: Doc) => Uint32Array | undefined;
  /**
   * With segmentsOf, the document's JSONL line when it has one: the samples are read from it
   * (lineTextSlice), so a document parsed only on use is not parsed for them.
   */
  lineOf?: (doc: Doc) => Uint8Array | undefined;
}

export const DEFAULT_MEMORY_MB = 512;
export const DEFAULT_SAMPLES = 1000;
/**
 * The count table's first size (16 MB, or the budget's if smaller); it doubles at half load up to
 * the budget's. bench:run's history-heavy corpus (22 MB prepared, 410,799 distinct segments)
 * ends at this size: from 2^16 slots it took four doublings, each rehashing the table and
 * moving the samples (0.2 s of the main thread's prepare). Pages untouched stay unmapped.
 */
const INITIAL_SLOTS = 2 ** 20;

export interface CountSummary {
  header: CountsHeader;
  runs: number;
  table_slots: number;
}

/**
 * Pass 1, a sink: counts in how many distinct documents each segment occurs and writes
 * the counts file `out`. Memory is bounded by `memoryMb` whatever the corpus: when the
 * table fills, its entries spill as a sorted run (itself a counts file), and the runs
 * are k-way merged at the end. Spilling in the middle of a document is safe: the
 * per-document set keeps a segment from being counted twice for one document.
 * Every document consumed is counted as output in the ledger (a sink's output).
 */
export async function countSegments(docs: AsyncIterable<Doc>, out: string, options: CountOptions = {}, ctx?: StageContext): Promise<CountSummary> {
  const params = segmentParams(options.minChars ?? DEFAULT_MIN_CHARS);
  const segment = loadSegmenter(params);
  const parent = options.workDir ?? dirname(out);
  mkdirSync(parent, { recursive: true });
  const work = mkdtempSync(join(parent, '.mask-count-'));
  try {
    const counter = new SegmentCounter(params, options, work, (m) => ctx?.log(m));
    for await (const doc of docs) {
      const found = options.segmentsOf?.(doc);
      if (found) counter.addFound(doc, found, options.lineOf?.(doc));
      else counter.add(doc, segment);
      ctx?.ledger.output();
    }
    const summary = counter.finish(out, Math.max(2, options.fanIn ?? 64), options.rank);
    if (ctx) ctx.stats.mask_count = { ...summary.header, spilled_runs: summary.runs, table_slots: summary.table_slots, memory_mb: options.memoryMb ?? DEFAULT_MEMORY_MB };
    return summary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A document's distinct segments in the order the counter meets them (first occurrences), for a
 * counter on another thread (SegmentCounter.addFound): the work of finding and hashing them is
 * then done where the document was made.
 */
export function documentSegments(doc: Pick<Doc, 'text' | 'special_spans'>, segment: Segmenter): Uint32Array {
  return segment(doc, true);
}

/** The count table, its samples and its spilled runs (in `work`, which the caller removes). */
export class SegmentCounter {
  private readonly samples: number;
  private readonly slots: number;
  private readonly spillAt: number;
  /** Starts small and doubles up to `slots`: a table the budget's size would page in hundreds of MB for a corpus that needs a few. */
  private readonly table: HashTable;
  /** A sample per table slot for the segments most likely to end among the most frequent. */
  private readonly sampleCap: number;
  private readonly sampleBySlot = new Map<number, string>();
  private readonly runs: string[] = [];
  /** The fewest documents a segment needs to get a sample: 1 until the run's first prune, then that prune's cutoff (at least 2; see count()). */
  private sampleFloor = 1;
  private documents = 0;
  private runDocuments = 0;

  constructor(
    private readonly params: ReturnType<typeof segmentParams>,
    options: CountOptions,
    private readonly work: string,
    private readonly log: (message: string) => void,
  ) {
    this.samples = options.samples ?? DEFAULT_SAMPLES;
    const memoryBytes = (options.memoryMb ?? DEFAULT_MEMORY_MB) * 2 ** 20;
    // Three quarters of the budget for the table (the rest: samples, buffers, the document).
    this.slots = 2 ** Math.max(10, Math.floor(Math.log2((memoryBytes * 0.75) / HashTable.bytesPerSlot)));
    this.spillAt = Math.floor(this.slots * 0.75);
    this.table = new HashTable(Math.min(this.slots, INITIAL_SLOTS));
    this.sampleCap = Math.max(4096, 4 * this.samples);
  }

  /** Counts a document: each of its segments once (its first occurrence). */
  add(doc: Doc, segment: Segmenter): void {
    this.addFound(doc, documentSegments(doc, segment));
  }

  /** As add(), with the document's distinct segments already found (documentSegments); its samples from `line`, its JSONL line, when given. */
  addFound(doc: Doc, found: Uint32Array, line?: Uint8Array): void {
    let text: LineText | undefined;
    for (let i = 0; i < found.length; ) {
      // The table counts until it must grow or spill (the native core's loop: HashTable.countKeys), then the samples of what it counted.
      const { stoppedAt, candidates } = this.table.countKeys(found, i, found.length, SEGMENT_WORDS, this.sizeToMakeRoomAt(), this.sampleFloor);
      for (let c = 0; c < candidates.length; c += 2) {
        const [at, slot] = [candidates[c]!, candidates[c + 1]!];
        if (!this.wantsSample(slot)) continue;
        const [start, lineEnd] = [found[at + 2]!, found[at + 3]!];
        this.sample(slot, line ? (text ??= new LineText(line, () => doc)).slice(start, lineEnd).trim() : normalizedAt(doc.text, start, lineEnd));
      }
      i = stoppedAt;
      if (i < found.length) this.makeRoom();
    }
    this.documents++;
    this.runDocuments++;
  }

  /** The table's size at which it must grow (at half load, below the budget's size) or spill (at spillAt) before it counts on. */
  private sizeToMakeRoomAt(): number {
    const { capacity } = this.table;
    return capacity < this.slots ? Math.min(this.spillAt, capacity / 2) : this.spillAt;
  }

  private makeRoom(): void {
    if (this.table.size >= this.spillAt) this.spill();
    else this.grow();
  }

  /**
   * Whether a segment just counted (its count a power of two: 1, 2, 4, 8... documents, so a
   * frequent segment evicted early gets more chances) gets a sample: from the floor up, and once.
   * A prune keeps the highest counts (the earliest first among ties) and counts only grow, so its
   * cutoff never falls within a run, and a sample under it would be among the first to go at the
   * next prune. Below the floor, samples were nearly every line of a corpus taken and dropped
   * again: most of the counting's time. The floor may rise between a document's segments (a
   * prune), so it is read here, not only where the table counted.
   */
  private wantsSample(slot: number): boolean {
    return this.table.value(slot) >= this.sampleFloor && !this.sampleBySlot.has(slot);
  }

  private sample(slot: number, normalized: string): void {
    this.sampleBySlot.set(slot, sampleText(normalized));
    if (this.sampleBySlot.size > this.sampleCap) this.pruneSamples();
  }

  /** Spills the rest, merges the runs (`fanIn` at a time, in rounds) into `out`; a table that never spilled goes to `out` directly. */
  finish(out: string, fanIn: number, rank?: RankInfo): CountSummary {
    if (!this.runs.length) {
      // What merging its one run would give: the run's records, the top `samples` of them with their texts, this rank's stamp.
      const header = this.writeTable(out, this.samples, rank ? { ranks: [rank.rank], world_size: rank.worldSize } : undefined);
      return { header, runs: 1, table_slots: this.slots };
    }
    if (this.table.size || this.runDocuments) this.spill();
    let level = this.runs;
    for (let round = 0; level.length > fanIn; round++) {
      const next: string[] = [];
      for (let i = 0; i < level.length; i += fanIn) {
        const path = join(this.work, `merge-${round}-${String(next.length).padStart(6, '0')}.counts`);
        mergeCountsFiles(level.slice(i, i + fanIn), path, this.sampleCap);
        next.push(path);
      }
      level = next;
    }
    const header = mergeCountsFiles(level, out, this.samples, { rank });
    return { header, runs: this.runs.length, table_slots: this.slots };
  }

  /**
   * The table at twice the size, its entries and the samples' slots moved over (the samples in
   * their order, which pruning's ties follow): what it counts and keeps is as with the full table.
   */
  private grow(): void {
    const { table } = this;
    const sampled = [...this.sampleBySlot].map(([slot, text]) => ({ hi: table.keyHi(slot), lo: table.keyLo(slot), text }));
    table.resize(Math.min(this.slots, table.capacity * 2));
    this.sampleBySlot.clear();
    for (const s of sampled) this.sampleBySlot.set(table.find(s.hi, s.lo), s.text);
  }

  /** Keeps the half of the samples with the highest counts (ties: the earliest kept). */
  private pruneSamples(): void {
    const { table, sampleBySlot } = this;
    const keep = this.sampleCap >> 1;
    const counts = new Uint32Array(sampleBySlot.size);
    let i = 0;
    for (const slot of sampleBySlot.keys()) counts[i++] = table.value(slot);
    counts.sort();
    const cutoff = counts[counts.length - keep]!;
    this.sampleFloor = Math.max(2, cutoff);
    let above = 0;
    for (const c of counts) if (c > cutoff) above++;
    let tiesKept = 0;
    for (const slot of sampleBySlot.keys()) {
      const c = table.value(slot);
      if (c < cutoff || (c === cutoff && tiesKept++ >= keep - above)) sampleBySlot.delete(slot);
    }
  }

  private spill(): void {
    const path = join(this.work, `run-${String(this.runs.length).padStart(6, '0')}.counts`);
    this.writeTable(path, this.sampleCap);
    this.runs.push(path);
    this.runDocuments = 0;
    this.table.clear();
    this.sampleBySlot.clear();
    this.sampleFloor = 1;
    this.log(`mask count: spilled run ${this.runs.length} (${this.documents} documents so far)`);
  }

  /** The table's entries in hash order as a counts file, with the texts of its `samples` most frequent that have one. */
  private writeTable(path: string, samples: number, ranks?: CountsRanks): CountsHeader {
    const { table } = this;
    const w = new CountsWriter(path, this.params, samples);
    w.pushRecords(table.records());
    const bySlotHash = new Map<string, string>();
    for (const [slot, text] of this.sampleBySlot) bySlotHash.set(hashHex(table.keyHi(slot), table.keyLo(slot)), text);
    return w.close(this.runDocuments, () => bySlotHash, ranks);
  }
}
