import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as ApacheArrow from 'apache-arrow';
import type { Data, DataType } from 'apache-arrow';
import { checkBin, type PackedBin } from './bin.js';
import { AtomicFile, GrowInt32, GrowUint8, sha256File, writeFileAtomic } from './files.js';

/**
 * The same library and version as its CommonJS build: its ES modules (a few hundred files,
 * each linked as a module) cost the main thread about 0.28 s of CPU to load, on a pack's path
 * while the tokenizer workers start; the CommonJS files about 0.16 s. (Not the minified single
 * file, 0.04 s: it renames the protected members PartsWriter overrides.) Only this writer uses
 * it: the objects it makes never meet the readers' (io/arrow-rows.ts), which load the modules.
 */
const { Field, Int32, List, makeData, RecordBatch, RecordBatchStreamWriter, Schema, Struct, Uint8, Utf8 } = createRequire(import.meta.url)('apache-arrow/Arrow.node') as typeof ApacheArrow;

/**
 * Arrow IPC *stream* shards, one row per packed bin, laid out as Hugging Face `datasets`
 * writes them (`save_to_disk`), so `load_from_disk(OUT/shards)` and `Dataset.from_file`
 * open them, and pyarrow and polars read them:
 *
 *   shards/part-00000.arrow ...  schema message, record batches, end-of-stream marker
 *   shards/state.json            _data_files, a content fingerprint, the format fields
 *   shards/dataset_info.json     the declared features, matching the Arrow types exactly
 */

/** The list columns and the types of their elements, in column order. */
const COLUMNS = [
  ['input_ids', 'int32'],
  ['loss_mask', 'uint8'],
  ['doc_lens', 'int32'],
  ['doc_ids', 'string'],
  ['doc_kinds', 'string'],
  ['doc_offsets', 'int32'],
  // The config source a `midpack run` mixture counts each unit under ('' outside a mixture), so
  // the per-source figures of the report can be recomputed from the shards alone.
  ['doc_sources', 'string'],
] as const;

type ValueDtype = (typeof COLUMNS)[number][1];

/**
 * The declared features, as `datasets` serialises them. `Sequence` (rather than `List`,
 * which only datasets >= 4 knows) is read by every datasets version; both mean list<item>.
 */
export function shardFeatures(): Record<string, unknown> {
  return Object.fromEntries(COLUMNS.map(([name, dtype]) => [name, { feature: { dtype, _type: 'Value' }, _type: 'Sequence' }]));
}

function arrowType(dtype: ValueDtype): DataType {
  return dtype === 'int32' ? new Int32() : dtype === 'uint8' ? new Uint8() : new Utf8();
}

/**
 * The one Schema every batch uses (a batch whose schema differs, even in nullability,
 * makes the Arrow writer close). Nullable fields and an `item` child, as pyarrow and
 * datasets make them; the `huggingface` metadata lets `Dataset.from_file` on a single
 * shard recover the features too.
 */
export function shardSchema(): ApacheArrow.Schema {
  const fields = COLUMNS.map(([name, dtype]) => new Field(name, new List(new Field('item', arrowType(dtype), true)), true));
  const metadata = new Map([['huggingface', JSON.stringify({ info: { features: shardFeatures() } })]]);
  return new Schema(fields, metadata);
}

export interface ArrowShardWriterOptions {
  /** Output folder (OUT/shards). */
  dir: string;
  /** Tokens per bin (L). */
  seqLen: number;
  /** Rows per shard file (default 256: about 320 MB at L = 262,144). */
  rowsPerShard?: number;
  /** Rows per record batch (default 8); bounds the writer's memory to about batchRows × L × 10 bytes. */
  batchRows?: number;
  /**
   * Resume: shards 0 .. startShard-1 are complete on disk from an earlier run (renamed, so
   * whole) and are reused as they are. The caller feeds every bin again, in the same
   * deterministic order; the writer skips the rows that belong to those shards.
   */
  startShard?: number;
}

export interface ShardInfo {
  filename: string;
  rows: number;
  bytes: number;
  sha256: string;
  /** True when this shard was reused from an earlier run (resume). */
  reused: boolean;
}

export interface ShardsResult {
  dir: string;
  shards: ShardInfo[];
  rows: number;
  fingerprint: string;
}

export function shardFilename(index: number): string {
  return `part-${String(index).padStart(5, '0')}.arrow`;
}

const SHARD_NAME = /^part-(\d{5,})\.arrow$/;
const END_OF_STREAM = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

/**
 * How many shards a killed run completed: the consecutive part-NNNNN.arrow files from 0
 * (partial shards never carry the final name). Pass it as `startShard` to resume.
 */
export function completedShards(dir: string): number {
  let n = 0;
  while (existsSync(join(dir, shardFilename(n)))) n++;
  return n;
}

/** Utf8 list column being filled: one byte buffer and string offsets. */
class StringColumn {
  readonly bytes = new GrowUint8();
  readonly offsets = new GrowInt32();
  private readonly encoder = new TextEncoder();

  constructor() {
    this.offsets.pushOne(0);
  }

  push(s: string): void {
    this.bytes.reserve(s.length * 3);
    const { written } = this.encoder.encodeInto(s, this.bytes.spare());
    this.bytes.length += written;
    this.offsets.pushOne(this.bytes.length);
  }

  clear(): void {
    this.bytes.clear();
    this.offsets.clear();
    this.offsets.pushOne(0);
  }
}

/** One record batch being filled; its buffers are reused from batch to batch. */
class BatchBuffers {
  rows = 0;
  readonly inputIds: Int32Array;
  readonly lossMask: Uint8Array;
  /** Offsets of the fixed-length token lists: row i starts at i × L. */
  readonly tokenOffsets: Int32Array;
  /** Offsets of the per-unit lists (doc_lens, doc_ids, ...): where each row's units start. */
  readonly unitOffsets: Int32Array;
  readonly docLens = new GrowInt32();
  readonly docOffsets = new GrowInt32();
  readonly docIds = new StringColumn();
  readonly docKinds = new StringColumn();
  readonly docSources = new StringColumn();

  constructor(
    readonly capacity: number,
    readonly seqLen: number,
  ) {
    this.inputIds = new Int32Array(capacity * seqLen);
    this.lossMask = new Uint8Array(capacity * seqLen);
    this.tokenOffsets = Int32Array.from({ length: capacity + 1 }, (_, i) => i * seqLen);
    this.unitOffsets = new Int32Array(capacity + 1);
  }

  add(bin: PackedBin): void {
    const r = this.rows++;
    this.inputIds.set(bin.inputIds, r * this.seqLen);
    this.lossMask.set(bin.lossMask, r * this.seqLen);
    const units = bin.docLens.length;
    this.docLens.push(bin.docLens);
    if (bin.docOffsets) this.docOffsets.push(bin.docOffsets);
    else this.docOffsets.push(new Int32Array(units));
    for (let i = 0; i < units; i++) {
      this.docIds.push(bin.docIds[i]!);
      this.docKinds.push(bin.docKinds?.[i] ?? '');
      this.docSources.push(bin.docSources?.[i] ?? '');
    }
    this.unitOffsets[r + 1] = this.unitOffsets[r]! + units;
  }

  clear(): void {
    this.rows = 0;
    this.docLens.clear();
    this.docOffsets.clear();
    this.docIds.clear();
    this.docKinds.clear();
    this.docSources.clear();
  }

  /** The batch as Arrow data over views of these buffers: no per-element work. */
  toRecordBatch(schema: ApacheArrow.Schema): ApacheArrow.RecordBatch {
    const rows = this.rows;
    const units = this.unitOffsets[rows]!;
    const tokens = rows * this.seqLen;
    const childType = (i: number) => (schema.fields[i]!.type as ApacheArrow.List).valueType;
    const list = (i: number, valueOffsets: Int32Array, child: Data) =>
      makeData({ type: schema.fields[i]!.type as ApacheArrow.List, length: rows, nullCount: 0, valueOffsets: valueOffsets.subarray(0, rows + 1), child });
    const ints = (i: number, data: Int32Array | Uint8Array, length: number) =>
      makeData({ type: childType(i) as ApacheArrow.Int32, length, nullCount: 0, data: data.subarray(0, length) as Int32Array });
    const strings = (i: number, col: StringColumn) =>
      makeData({ type: childType(i) as ApacheArrow.Utf8, length: units, nullCount: 0, valueOffsets: col.offsets.view(), data: col.bytes.view() });
    const children = [
      list(0, this.tokenOffsets, ints(0, this.inputIds, tokens)),
      list(1, this.tokenOffsets, ints(1, this.lossMask, tokens)),
      list(2, this.unitOffsets, ints(2, this.docLens.view(), units)),
      list(3, this.unitOffsets, strings(3, this.docIds)),
      list(4, this.unitOffsets, strings(4, this.docKinds)),
      list(5, this.unitOffsets, ints(5, this.docOffsets.view(), units)),
      list(6, this.unitOffsets, strings(6, this.docSources)),
    ];
    const struct = makeData({ type: new Struct(schema.fields), length: rows, nullCount: 0, children });
    return new RecordBatch(schema, struct);
  }
}

/**
 * apache-arrow's stream writer, keeping the parts it writes (message headers, padding, and views
 * of the batch's own buffers) instead of queueing them to be joined into one copy: a batch of 8
 * bins is about 10 MB, and joining it cost a fresh buffer, a copy and the garbage collections
 * that followed, each batch. `_write` is the writer's one output step (a protected method).
 */
class PartsWriter extends RecordBatchStreamWriter {
  parts: Uint8Array[] = [];

  protected override _write(chunk: unknown): this {
    if (!this._started) return this;
    if (!ArrayBuffer.isView(chunk)) throw new Error('internal: the Arrow writer wrote something other than bytes');
    if (chunk.byteLength > 0) {
      this.parts.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this._position += chunk.byteLength;
    }
    return this;
  }

  /** The parts of one record batch's message, the schema having been written before. */
  batchParts(batch: ApacheArrow.RecordBatch): Uint8Array[] {
    this.parts = [];
    this._recordBatchBlocks = []; // a file writer's footer would list them; a stream has none
    const schema = this._schema;
    this.write(batch);
    // Another schema would have ended the stream and started a new one: a batch is one message.
    if (this._schema !== schema || this._recordBatchBlocks.length !== 1) throw new Error('internal: the Arrow writer wrote more than one record batch message');
    return this.parts;
  }
}

/**
 * Encodes record batches as IPC stream messages with apache-arrow's own writer: the file gets
 * one schema message, the batches, and one end marker.
 */
class StreamEncoder {
  readonly schemaMessage: Uint8Array;
  private readonly writer = new PartsWriter();

  constructor(schema: ApacheArrow.Schema) {
    // The writer writes the schema message when it is given the schema; its batches follow it.
    this.writer.reset(undefined, schema);
    this.schemaMessage = Buffer.concat(this.writer.parts);
    if (this.schemaMessage.byteLength === 0) throw new Error('internal: the Arrow writer wrote no schema message');
  }

  /** A batch's message as parts to write in order; they view the batch's buffers, valid until those change. */
  batchMessage(batch: ApacheArrow.RecordBatch): Uint8Array[] {
    return this.writer.batchParts(batch);
  }
}

export class ArrowShardWriter {
  readonly dir: string;
  readonly seqLen: number;
  readonly rowsPerShard: number;
  readonly batchRows: number;
  readonly startShard: number;
  readonly schema = shardSchema();
  private readonly encoder = new StreamEncoder(this.schema);
  private readonly batch: BatchBuffers;
  private readonly shards: ShardInfo[] = [];
  /** Rows fed so far, skipped ones included: the global row index of the next bin. */
  private rowsFed = 0;
  private current: { file: AtomicFile; index: number; rows: number } | undefined;
  private closed = false;

  constructor(options: ArrowShardWriterOptions) {
    this.dir = options.dir;
    this.seqLen = positive('seqLen', options.seqLen);
    this.rowsPerShard = positive('rowsPerShard', options.rowsPerShard ?? 256);
    this.batchRows = Math.min(positive('batchRows', options.batchRows ?? 8), this.rowsPerShard);
    // Arrow list offsets are int32: a batch's tokens must fit in them.
    if (this.batchRows * this.seqLen > 0x7fffffff) throw new Error(`batchRows × seqLen = ${this.batchRows * this.seqLen} tokens is over the 2^31 an Arrow list batch can hold`);
    this.startShard = options.startShard ?? 0;
    if (!Number.isInteger(this.startShard) || this.startShard < 0) throw new Error(`startShard must be a non-negative integer, got ${options.startShard}`);
    this.batch = new BatchBuffers(this.batchRows, this.seqLen);
    mkdirSync(this.dir, { recursive: true });
    removeTemporaries(this.dir);
  }

  /** Rows that a resumed run skips because their shards are complete on disk. */
  get skipRows(): number {
    return this.startShard * this.rowsPerShard;
  }

  /** Adds one bin (copied: the caller may reuse its arrays once this resolves). */
  async writeBin(bin: PackedBin): Promise<void> {
    if (this.closed) throw new Error('ArrowShardWriter: writeBin after close');
    const row = this.rowsFed++;
    checkBin(bin, this.seqLen, row);
    if (row < this.skipRows) return;
    const shardIndex = Math.floor(row / this.rowsPerShard);
    if (this.current && this.current.index !== shardIndex) await this.finishShard();
    this.current ??= { file: new AtomicFile(join(this.dir, shardFilename(shardIndex))), index: shardIndex, rows: 0 };
    this.batch.add(bin);
    this.current.rows++;
    if (this.batch.rows === this.batchRows) await this.flushBatch();
  }

  /**
   * Finishes the last shard, checks and lists the reused ones, removes stale shards of
   * earlier longer runs, and writes state.json and dataset_info.json.
   */
  async close(): Promise<ShardsResult> {
    if (this.closed) throw new Error('ArrowShardWriter: closed twice');
    this.closed = true;
    if (this.current) await this.finishShard();
    if (this.shards.length === 0 && this.startShard === 0) {
      // No bins at all: one empty shard, as datasets itself writes, so the folder still loads.
      this.current = { file: new AtomicFile(join(this.dir, shardFilename(0))), index: 0, rows: 0 };
      await this.finishShard();
    }
    const reused = await this.reusedShards();
    const shards = [...reused, ...this.shards];
    removeStaleShards(this.dir, shards.length);
    const fingerprint = shardsFingerprint(this.schema, shards);
    writeFileAtomic(join(this.dir, 'dataset_info.json'), JSON.stringify(datasetInfo(), null, 2) + '\n');
    writeFileAtomic(join(this.dir, 'state.json'), JSON.stringify(datasetState(shards, fingerprint), null, 2) + '\n');
    return { dir: this.dir, shards, rows: shards.reduce((s, x) => s + x.rows, 0), fingerprint };
  }

  /** Gives up: the shard in progress is removed; completed shards stay for a later resume. */
  async abort(): Promise<void> {
    this.closed = true;
    const file = this.current?.file;
    this.current = undefined;
    await file?.abort();
  }

  private async flushBatch(): Promise<void> {
    const file = this.current!.file;
    if (file.bytes === 0) await file.write(this.encoder.schemaMessage);
    if (this.batch.rows === 0) return;
    // The parts view the batch's buffers: written (copied) before the next bin fills them.
    for (const part of this.encoder.batchMessage(this.batch.toRecordBatch(this.schema))) await file.write(part);
    this.batch.clear();
  }

  private async finishShard(): Promise<void> {
    const shard = this.current!;
    await this.flushBatch();
    await shard.file.write(END_OF_STREAM);
    const sha256 = await shard.file.commit();
    this.shards.push({ filename: shardFilename(shard.index), rows: shard.rows, bytes: shard.file.bytes, sha256, reused: false });
    this.current = undefined;
  }

  /** The shards before startShard, which this run did not write: they must exist whole. */
  private async reusedShards(): Promise<ShardInfo[]> {
    const out: ShardInfo[] = [];
    for (let i = 0; i < this.startShard; i++) {
      const filename = shardFilename(i);
      const path = join(this.dir, filename);
      if (!existsSync(path)) throw new Error(`${path}: cannot resume at shard ${this.startShard}: this shard is missing`);
      const rows = Math.min(this.rowsPerShard, this.rowsFed - i * this.rowsPerShard);
      if (rows <= 0) {
        throw new Error(`${path}: cannot resume at shard ${this.startShard}: this run has only ${this.rowsFed} bins, so the shard comes from a different run`);
      }
      out.push({ filename, rows, ...(await sha256File(path)), reused: true });
    }
    return out;
  }
}

function positive(name: string, v: number): number {
  if (!Number.isInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer, got ${v}`);
  return v;
}

/** A fingerprint from the content only (schema and shard checksums): reruns give the same one. */
export function shardsFingerprint(schema: ApacheArrow.Schema, shards: readonly ShardInfo[]): string {
  const h = createHash('sha256');
  h.update(JSON.stringify(shardFeatures()));
  h.update(String(schema.fields.length));
  for (const s of shards) h.update(`${s.filename}\0${s.rows}\0${s.sha256}\n`);
  return h.digest('hex').slice(0, 16);
}

/** state.json exactly as datasets' save_to_disk writes it (keys sorted). */
export function datasetState(shards: readonly ShardInfo[], fingerprint: string): Record<string, unknown> {
  return {
    _data_files: shards.map((s) => ({ filename: s.filename })),
    _fingerprint: fingerprint,
    _format_columns: null,
    _format_kwargs: {},
    _format_type: null,
    _output_all_columns: false,
    _split: null,
  };
}

export function datasetInfo(): Record<string, unknown> {
  return { citation: '', description: '', features: shardFeatures(), homepage: '', license: '' };
}

function removeTemporaries(dir: string): void {
  for (const name of readdirSync(dir)) if (/^part-\d+\.arrow\.tmp-\d+$/.test(name)) rmSync(join(dir, name), { force: true });
}

/** Shards numbered past this run's last one come from an earlier, longer run: remove them. */
export function removeStaleShards(dir: string, count: number): void {
  for (const name of readdirSync(dir)) {
    const m = SHARD_NAME.exec(name);
    if (m && Number(m[1]) >= count) rmSync(join(dir, name), { force: true });
  }
}
