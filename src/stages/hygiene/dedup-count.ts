import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Doc } from '../../doc/document.js';
import type { StageContext } from '../../core/stage.js';
import type { RankInfo } from '../../core/ranks.js';
import { combineExact, combineNear, EXACT_BYTES, itemKey, loadContentHash, NAME_BYTES, nearRecordBytes, normalizeContent, writeIndex, writeName, type IndexHeader } from './dedup-index.js';
import { itemName, itemsOf } from './items.js';
import { permutationSeeds, shingleHashes, signatureOf } from './minhash.js';
import { RecordSorter } from './record-runs.js';
import { tokenize } from './tokens.js';
import { dedupParams, type DedupOptions } from './dedup-options.js';

/**
 * Pass 1, a sink: for every item (a document, or each file of a repository document) one
 * exact record (content hash, item key, name) and, with `near`, one MinHash signature record.
 * Memory is `memoryMb` whatever the input: records buffer up to it and spill as sorted runs
 * into a work folder, merged into the index at the end. Each document consumed is counted as
 * output in the ledger (a sink's output).
 */
export async function countDedup(docs: AsyncIterable<Doc>, out: string, options: DedupOptions, ctx: StageContext, rank?: RankInfo): Promise<IndexHeader> {
  const params = dedupParams(options);
  const contentHash = await loadContentHash();
  const parent = options.workDir ?? dirname(out);
  mkdirSync(parent, { recursive: true });
  const work = mkdtempSync(join(parent, '.dedup-count-'));
  const budget = options.memoryMb * 2 ** 20;
  const near = params.near;
  const nearBytes = near ? nearRecordBytes(near) : 0;
  const exact = new RecordSorter(EXACT_BYTES, near ? budget / 4 : budget, work, 'exact', combineExact);
  const sigs = near ? new RecordSorter(nearBytes, (budget * 3) / 4, work, 'near', combineNear(nearBytes)) : undefined;
  const seeds = near ? permutationSeeds(near.bands * near.rows) : undefined;
  let documents = 0;
  let items = 0;
  try {
    for await (const doc of docs) {
      for (const item of itemsOf(doc)) {
        const content = doc.text.slice(item.start, item.end);
        const normalized = normalizeContent(content);
        if (!normalized) continue; // empty files are not duplicates of anything worth removing
        items++;
        const key = itemKey(doc.id, item.path);
        const name = itemName(doc, item);
        const h = contentHash(normalized);
        const r = exact.next();
        r.buf.writeUInt32LE(h.lo, r.at);
        r.buf.writeUInt32LE(h.hi, r.at + 4);
        r.buf.writeUInt32LE(key.lo, r.at + 8);
        r.buf.writeUInt32LE(key.hi, r.at + 12);
        r.buf.writeUInt32LE(1, r.at + 16);
        writeName(r.buf, r.at + 20, name);
        if (!sigs || !near || !seeds) continue;
        const seq = tokenize(content);
        if (seq.length < near.min_tokens) continue;
        const sig = signatureOf(shingleHashes(seq, near.shingle), seeds);
        const s = sigs.next();
        s.buf.writeUInt32LE(key.lo, s.at);
        s.buf.writeUInt32LE(key.hi, s.at + 4);
        writeName(s.buf, s.at + 8, name);
        s.buf.writeUInt32LE(seq.length, s.at + 10 + NAME_BYTES);
        Buffer.from(sig.buffer, sig.byteOffset, sig.byteLength).copy(s.buf, s.at + 14 + NAME_BYTES);
      }
      documents++;
      ctx.ledger.output();
    }
    const runs = (s: RecordSorter) => s.finish().map((path) => ({ path, offset: 0, count: statSync(path).size / s.recordBytes }));
    const exactRuns = runs(exact);
    const nearRuns = sigs ? runs(sigs) : [];
    const header = writeIndex(out, params, documents, items, exactRuns, nearRuns, rank ? { ranks: [rank.rank], world_size: rank.worldSize } : {});
    ctx.stats.dedup_count = { documents, items, exact_runs: exactRuns.length, near_runs: nearRuns.length, memory_mb: options.memoryMb, params };
    return header;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
