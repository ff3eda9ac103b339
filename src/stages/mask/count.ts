import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Doc } from '../../doc/document.js';
import type { StageContext } from '../../core/stage.js';
import { CountsWriter, mergeCountsFiles, type CountsHeader } from './counts-file.js';
import { HashTable } from './hash-table.js';
import { hashHex, loadSegmenter, sampleText, segmentParams, DEFAULT_MIN_CHARS } from './segments.js';

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
}

export const DEFAULT_MEMORY_MB = 512;
export const DEFAULT_SAMPLES = 1000;

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
  const segment = await loadSegmenter(params);
  const samples = options.samples ?? DEFAULT_SAMPLES;
  const memoryBytes = (options.memoryMb ?? DEFAULT_MEMORY_MB) * 2 ** 20;
  // Three quarters of the budget for the table (the rest: samples, buffers, the document).
  const slots = 2 ** Math.max(10, Math.floor(Math.log2((memoryBytes * 0.75) / HashTable.bytesPerSlot)));
  const spillAt = Math.floor(slots * 0.75);
  const table = new HashTable(slots);
  const inDoc = new HashTable(1024, true);
  // A sample per table slot for the segments most likely to end among the most frequent.
  const sampleCap = Math.max(4096, 4 * samples);
  const sampleBySlot = new Map<number, string>();

  const parent = options.workDir ?? dirname(out);
  mkdirSync(parent, { recursive: true });
  const work = mkdtempSync(join(parent, '.mask-count-'));
  const runs: string[] = [];
  let documents = 0;
  let runDocuments = 0;

  // Keeps the half of the samples with the highest counts (ties: the earliest kept).
  const pruneSamples = () => {
    const keep = sampleCap >> 1;
    const counts = new Uint32Array(sampleBySlot.size);
    let i = 0;
    for (const slot of sampleBySlot.keys()) counts[i++] = table.value(slot);
    counts.sort();
    const cutoff = counts[counts.length - keep]!;
    let above = 0;
    for (const c of counts) if (c > cutoff) above++;
    let tiesKept = 0;
    for (const slot of sampleBySlot.keys()) {
      const c = table.value(slot);
      if (c < cutoff || (c === cutoff && tiesKept++ >= keep - above)) sampleBySlot.delete(slot);
    }
  };

  const spill = () => {
    const path = join(work, `run-${String(runs.length).padStart(6, '0')}.counts`);
    const w = new CountsWriter(path, params, sampleCap);
    for (const slot of table.sortedSlots()) w.push(table.keyHi(slot), table.keyLo(slot), table.value(slot));
    const bySlotHash = new Map<string, string>();
    for (const [slot, text] of sampleBySlot) bySlotHash.set(hashHex(table.keyHi(slot), table.keyLo(slot)), text);
    w.close(runDocuments, () => bySlotHash);
    runs.push(path);
    runDocuments = 0;
    table.clear();
    sampleBySlot.clear();
    ctx?.log(`mask count: spilled run ${runs.length} (${documents} documents so far)`);
  };

  try {
    for await (const doc of docs) {
      inDoc.clear();
      segment(doc, (hi, lo, _start, _end, normalized) => {
        if (inDoc.value(inDoc.add(hi, lo, 1)) !== 1) return; // already counted for this document
        if (table.size >= spillAt) spill();
        const slot = table.add(hi, lo, 1);
        const n = table.value(slot);
        // Sample at 2, 4, 8... documents, so a frequent segment evicted early gets more
        // chances; at 1 only while there is room (a segment seen once per run, split thinly
        // over many runs, still gets one), so never-repeated lines cause no churn.
        if ((n & (n - 1)) === 0 && !sampleBySlot.has(slot) && (n > 1 || sampleBySlot.size < sampleCap)) {
          sampleBySlot.set(slot, sampleText(normalized));
          if (sampleBySlot.size > sampleCap) pruneSamples();
        }
      });
      documents++;
      runDocuments++;
      ctx?.ledger.output();
    }
    if (table.size || runDocuments || !runs.length) spill();
    const spilled = runs.length;
    let level = runs;
    const fanIn = Math.max(2, options.fanIn ?? 64);
    for (let round = 0; level.length > fanIn; round++) {
      const next: string[] = [];
      for (let i = 0; i < level.length; i += fanIn) {
        const path = join(work, `merge-${round}-${String(next.length).padStart(6, '0')}.counts`);
        mergeCountsFiles(level.slice(i, i + fanIn), path, sampleCap);
        next.push(path);
      }
      level = next;
    }
    const header = mergeCountsFiles(level, out, samples);
    const summary: CountSummary = { header, runs: spilled, table_slots: slots };
    if (ctx) ctx.stats.mask_count = { ...header, spilled_runs: spilled, table_slots: slots, memory_mb: options.memoryMb ?? DEFAULT_MEMORY_MB };
    return summary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
