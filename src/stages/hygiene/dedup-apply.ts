import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc } from '../../doc/document.js';
import { docToJson } from '../../doc/document.js';
import { Ledger } from '../../core/ledger.js';
import type { Stage, StageContext } from '../../core/stage.js';
import { AtomicLineWriter } from '../../io/jsonl.js';
import { readDocumentFile } from '../../io/documents.js';
import { HashTable } from '../mask/hash-table.js';
import { countDedup } from './dedup-count.js';
import { EXACT_BYTES, hex64, itemKey, loadContentHash, normalizeContent, readIndexHeader, readName, type IndexHeader } from './dedup-index.js';
import type { DedupOptions } from './dedup-options.js';
import { itemName, itemsOf, removeItems } from './items.js';
import { nearClusters, SignatureFile } from './lsh.js';
import { RecordCursor } from './record-runs.js';

/**
 * What pass 2 needs from an index: the content hashes held by more than one item, each with
 * its keeper, and the near-duplicate clusters (item key to keeper). Memory grows with the
 * duplicates only, not with the corpus.
 */
export interface DedupTables {
  header: IndexHeader;
  exact: HashTable;
  keepers: { key: string; name: string; count: number }[];
  near: Map<string, { keeper: string; keeperName: string; size: number }>;
  clusters: { type: 'exact' | 'near'; size: number; kept: string; members?: string[] }[];
}

const MAX_LISTED_MEMBERS = 100;

export function loadDedupTables(indexPath: string, options: Pick<DedupOptions, 'threshold' | 'memoryMb'>): DedupTables {
  const header = readIndexHeader(indexPath);
  const exact = new HashTable(1024, true);
  const keepers: DedupTables['keepers'] = [];
  const clusters: DedupTables['clusters'] = [];
  const ex = header.sections.exact;
  for (const c = new RecordCursor(indexPath, EXACT_BYTES, ex.offset, ex.records); !c.done; c.next()) {
    const count = c.buf.readUInt32LE(c.at + 16);
    if (count < 2) continue;
    exact.setValue(exact.add(c.buf.readUInt32LE(c.at + 4), c.buf.readUInt32LE(c.at), 0), keepers.length);
    const k = { key: hex64(c.buf.readUInt32LE(c.at + 12), c.buf.readUInt32LE(c.at + 8)), name: readName(c.buf, c.at + 20), count };
    keepers.push(k);
    clusters.push({ type: 'exact', size: count, kept: k.name });
  }
  const near = new Map<string, { keeper: string; keeperName: string; size: number }>();
  if (header.sections.near) {
    const file = new SignatureFile(indexPath, header);
    try {
      for (const cl of nearClusters(file, options.threshold, options.memoryMb * 2 ** 20)) {
        const keeper = file.keyHex(cl.keeper);
        const keeperName = file.name(cl.keeper);
        for (const m of cl.members) near.set(file.keyHex(m), { keeper, keeperName, size: cl.members.length });
        clusters.push({ type: 'near', size: cl.members.length, kept: keeperName, members: cl.members.slice(0, MAX_LISTED_MEMBERS).map((m) => file.name(m)) });
      }
    } finally {
      file.close();
    }
  }
  return { header, exact, keepers, near, clusters };
}

type Reason = 'duplicate' | 'near_duplicate';

interface Tally {
  documents_dropped: Record<Reason, number>;
  /** Files of repository documents removed (with `dryRun`: items that would go). */
  items_removed: Record<Reason, number>;
  chars_removed: number;
  examples: { item: string; kept: string; reason: Reason }[];
}

/**
 * Pass 2, a transform: drops every item whose content has a keeper other than itself
 * (`duplicate`) or whose near-duplicate cluster keeps another member (`near_duplicate`). A
 * repository document loses only those files; it is dropped when none is left. `dryRun`
 * passes every document through unchanged and counts what would go.
 */
export function dedupApply(tables: DedupTables, options: Pick<DedupOptions, 'dryRun'>): Stage {
  return async function* (docs, ctx) {
    const contentHash = await loadContentHash();
    const t: Tally = { documents_dropped: { duplicate: 0, near_duplicate: 0 }, items_removed: { duplicate: 0, near_duplicate: 0 }, chars_removed: 0, examples: [] };
    for await (const doc of docs) {
      const items = itemsOf(doc);
      const remove = new Set<number>();
      const why: { reason: Reason; kept: string }[] = [];
      items.forEach((item, i) => {
        const normalized = normalizeContent(doc.text.slice(item.start, item.end));
        if (!normalized) return;
        const key = itemKey(doc.id, item.path);
        const self = hex64(key.hi, key.lo);
        const h = contentHash(normalized);
        const slot = tables.exact.find(h.hi, h.lo);
        const keeper = slot >= 0 ? tables.keepers[tables.exact.value(slot)]! : undefined;
        const near = tables.near.get(self);
        const verdict = keeper && keeper.key !== self ? { reason: 'duplicate' as const, kept: keeper.name } : near && near.keeper !== self ? { reason: 'near_duplicate' as const, kept: near.keeperName } : undefined;
        if (!verdict) return;
        remove.add(i);
        why.push(verdict);
        t.chars_removed += item.end - item.start;
        if (t.examples.length < 20) t.examples.push({ item: itemName(doc, item), ...verdict });
      });
      const out = options.dryRun || !remove.size ? doc : removeItems(doc, items, remove);
      if (!out) {
        const reason = why.some((w) => w.reason === 'duplicate') ? 'duplicate' : 'near_duplicate';
        t.documents_dropped[reason]++;
        const first = why[0]!;
        ctx.ledger.drop(reason, items.length > 1 ? `${doc.id}: all ${items.length} files are duplicates (first kept copy: ${first.kept})` : `${doc.id}: ${first.reason.replace('_', '-')} of ${first.kept} (kept)`);
        continue;
      }
      for (const w of why) t.items_removed[w.reason]++;
      ctx.ledger.output();
      yield out;
    }
    ctx.stats.dedup = dedupStats(tables, t, !!options.dryRun);
  };
}

function dedupStats(tables: DedupTables, t: Tally, dryRun: boolean): Record<string, unknown> {
  const sizes: Record<string, number> = {};
  for (const c of tables.clusters) sizes[`${c.type}:${c.size}`] = (sizes[`${c.type}:${c.size}`] ?? 0) + 1;
  return {
    dry_run: dryRun,
    params: tables.header.params,
    items_indexed: tables.header.items,
    exact_groups: tables.clusters.filter((c) => c.type === 'exact').length,
    near_clusters: tables.clusters.filter((c) => c.type === 'near').length,
    cluster_sizes: sizes,
    ...t,
  };
}

/** The clusters as JSONL lines (for `--dry-run` and the report), sorted so reruns write the same bytes. */
export function clusterLines(tables: DedupTables): string[] {
  return tables.clusters.map((c) => JSON.stringify(c)).sort();
}

/**
 * Both passes in one process over a stream that can be read once: documents are spooled to
 * the work folder while pass 1 indexes them, then replayed through pass 2. The spool lives
 * on disk, so memory stays bounded. On several ranks give `index` (a merged index) instead.
 */
export function dedupStage(options: DedupOptions): Stage {
  return async function* (docs, ctx) {
    if (options.index) {
      yield* dedupApply(loadDedupTables(options.index, options), options)(docs, ctx);
      return;
    }
    if (ctx.owns) throw new Error('dedup on several ranks needs every rank\'s index: run `midpack dedup count` per rank, `midpack dedup merge`, and give the merged file as the stage\'s "index" option');
    const parent = options.workDir ?? ctx.workDir ?? '.';
    mkdirSync(parent, { recursive: true });
    const work = mkdtempSync(join(parent, '.dedup-'));
    try {
      const spool = new AtomicLineWriter(join(work, 'spool.jsonl'));
      const countCtx: StageContext = { ...ctx, ledger: new Ledger(), stats: {} };
      async function* spooled(): AsyncIterable<Doc> {
        for await (const d of docs) {
          await spool.write(docToJson(d));
          yield d;
        }
      }
      await countDedup(spooled(), join(work, 'index.bin'), { ...options, workDir: work }, countCtx);
      await spool.close();
      const tables = loadDedupTables(join(work, 'index.bin'), options);
      ctx.stats.dedup_count = countCtx.stats.dedup_count;
      yield* dedupApply(tables, options)(readDocumentFile(join(work, 'spool.jsonl'), new Ledger()), ctx);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  };
}

