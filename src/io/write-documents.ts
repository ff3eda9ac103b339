import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import parquet from 'parquetjs-lite';
import type { Doc } from '../doc/document.js';
import { writeDocsJsonl } from './jsonl.js';

/**
 * Writes documents where `--out` says: `.parquet` → Parquet (below), anything else → JSONL
 * (`.gz`/`.zst` compressed, `-` for stdout). Either file appears only complete (written to a
 * temporary name, renamed at the end); an error leaves no partial file behind.
 */
export function writeDocuments(path: string, docs: AsyncIterable<Doc>): Promise<number> {
  return path.endsWith('.parquet') ? writeDocsParquet(path, docs) : writeDocsJsonl(path, docs);
}

/**
 * Parquet with the document fields as columns: `id`, `kind`, `source`, `text` as strings;
 * `meta`, `loss_mask_spans`, `special_spans` as JSON text (nested values whose shape differs by
 * stage, which a fixed Parquet schema cannot hold). pyarrow, polars and midpack's own reader
 * (hyparquet) read it; parquetjs-lite writes it (snappy pages, row groups of `ROW_GROUP_DOCS`
 * documents, so memory is bounded by that many documents).
 */
const DOC_PARQUET_SCHEMA = new parquet.ParquetSchema({
  id: { type: 'UTF8', compression: 'SNAPPY' },
  kind: { type: 'UTF8', compression: 'SNAPPY' },
  source: { type: 'UTF8', compression: 'SNAPPY' },
  text: { type: 'UTF8', compression: 'SNAPPY' },
  meta: { type: 'UTF8', compression: 'SNAPPY' },
  loss_mask_spans: { type: 'UTF8', compression: 'SNAPPY' },
  special_spans: { type: 'UTF8', compression: 'SNAPPY' },
});

const ROW_GROUP_DOCS = 256;

export async function writeDocsParquet(path: string, docs: AsyncIterable<Doc>): Promise<number> {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  const writer = await parquet.ParquetWriter.openFile(DOC_PARQUET_SCHEMA, tmp, { rowGroupSize: ROW_GROUP_DOCS });
  let n = 0;
  try {
    for await (const d of docs) {
      await writer.appendRow({
        id: d.id,
        kind: d.kind,
        source: d.source,
        text: d.text,
        meta: JSON.stringify(d.meta ?? {}),
        loss_mask_spans: JSON.stringify(d.loss_mask_spans ?? []),
        special_spans: JSON.stringify(d.special_spans ?? []),
      });
      n++;
    }
    await writer.close();
  } catch (e) {
    await writer.close().catch(() => undefined);
    rmSync(tmp, { force: true });
    throw e;
  }
  renameSync(tmp, path);
  return n;
}
