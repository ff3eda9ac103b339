import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';

/** Readers of a pack (or merge) output's Arrow shards, for tests that check the packed contents. */
export interface Row {
  ids: Int32Array;
  mask: Uint8Array;
  lens: number[];
  docIds: string[];
  offsets: number[];
  /** The mixture source of each unit ('' outside a mixture). */
  sources: string[];
}

/** Every row of the output's shards, in the order its manifest lists them. */
export function readRows(out: string): Row[] {
  const rows: Row[] = [];
  for (const s of JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).shards) {
    const t = tableFromIPC(readFileSync(join(out, 'shards', s.filename)));
    for (let r = 0; r < t.numRows; r++) {
      const row = t.get(r)!;
      rows.push({
        ids: Int32Array.from(row.input_ids.toArray()),
        mask: Uint8Array.from(row.loss_mask.toArray()),
        lens: Array.from(row.doc_lens.toArray()),
        docIds: Array.from(row.doc_ids.toArray()),
        offsets: Array.from(row.doc_offsets.toArray()),
        sources: Array.from(row.doc_sources.toArray()),
      });
    }
  }
  return rows;
}

/** Each document's tokens and loss mask, reassembled from its units (split policy: chunks by offset). */
export function documentsOf(rows: Row[]): Map<string, { ids: number[]; mask: number[] }> {
  const pieces = new Map<string, { offset: number; ids: Int32Array; mask: Uint8Array }[]>();
  for (const row of rows) {
    let at = 0;
    row.lens.forEach((len, u) => {
      const list = pieces.get(row.docIds[u]!) ?? [];
      list.push({ offset: row.offsets[u]!, ids: row.ids.subarray(at, at + len), mask: row.mask.subarray(at, at + len) });
      pieces.set(row.docIds[u]!, list);
      at += len;
    });
  }
  const docs = new Map<string, { ids: number[]; mask: number[] }>();
  for (const [id, list] of pieces) {
    list.sort((a, b) => a.offset - b.offset);
    docs.set(id, { ids: list.flatMap((p) => Array.from(p.ids)), mask: list.flatMap((p) => Array.from(p.mask)) });
  }
  return docs;
}
