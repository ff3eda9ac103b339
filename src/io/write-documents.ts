import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { createRequire } from 'node:module';
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
const DOC_PARQUET_COLUMNS = ['id', 'kind', 'source', 'text', 'meta', 'loss_mask_spans', 'special_spans'];

type Parquetjs = typeof import('parquetjs-lite');
let parquetjs: Parquetjs | undefined;
/** parquetjs-lite (CommonJS, about 250 KB with its Thrift code), loaded when a Parquet file is written, not by every command that can write one. */
function parquetLib(): Parquetjs {
  return (parquetjs ??= createRequire(import.meta.url)('parquetjs-lite') as Parquetjs);
}

const ROW_GROUP_DOCS = 256;

export async function writeDocsParquet(path: string, docs: AsyncIterable<Doc>): Promise<number> {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  const parquet = parquetLib();
  const schema = new parquet.ParquetSchema(Object.fromEntries(DOC_PARQUET_COLUMNS.map((c) => [c, { type: 'UTF8', compression: 'SNAPPY' }])));
  const writer = await parquet.ParquetWriter.openFile(schema, tmp, { rowGroupSize: ROW_GROUP_DOCS });
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
