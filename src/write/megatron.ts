import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkBin, type PackedBin } from './bin.js';
import { AtomicFile, GrowInt32, bytesOf, tempPath } from './files.js';

/**
 * Megatron-LM indexed dataset (megatron/core/datasets/indexed_dataset.py: IndexedDatasetBuilder,
 * _IndexWriter, _IndexReader), all little-endian:
 *
 *   PREFIX.bin  the sequences' elements back to back, in the dataset's dtype, nothing else
 *   PREFIX.idx  writer (_IndexWriter)                           reader (_IndexReader)
 *     9 bytes   b"MMIDIDX\x00\x00"                                assert header == _INDEX_HEADER
 *     <Q        version 1                                       assert version == 1
 *     <B        dtype code (DType: uint8 1, int8 2, int16 3,      DType.dtype_from_code(code)
 *               int32 4, int64 5, float64 6, float32 7, uint16 8)
 *     <Q        sequence_count                                  sequence_count
 *     <Q        document_count = len(document_indices)           document_count
 *               (documents + 1: the list starts with 0)
 *     int32[sequence_count]   sequence_lengths (elements)       frombuffer(int32, offset 34)
 *     int64[sequence_count]   sequence_pointers (byte offsets   frombuffer(int64, after lengths)
 *                             into .bin, cumulative length × itemsize)
 *     int64[document_count]   document_indices: 0, then the    frombuffer(int64, after pointers)
 *                             sequence count at each document end
 *     (int8[sequence_count] sequence modes: multimodal only; midpack never writes them)
 *
 * midpack writes one sequence and one document per packed bin, so document_indices is
 * 0, 1, ..., bins and Megatron's GPTDataset sample k is bin k (see docs/outputs.md).
 */
export const INDEX_HEADER = new Uint8Array([0x4d, 0x4d, 0x49, 0x44, 0x49, 0x44, 0x58, 0x00, 0x00]);
const HEADER_BYTES = 9 + 8 + 1 + 8 + 8;

export const DTYPE_CODES = { uint8: 1, int8: 2, int16: 3, int32: 4, int64: 5, float64: 6, float32: 7, uint16: 8 } as const;
export type MegatronDtype = 'int32' | 'uint8';
const ITEM_SIZE: Record<MegatronDtype, number> = { int32: 4, uint8: 1 };

export function binPath(prefix: string): string {
  return `${prefix}.bin`;
}

export function idxPath(prefix: string): string {
  return `${prefix}.idx`;
}

/** Encodes a whole .idx file from the sequence lengths and document ends. */
export function encodeIndex(dtype: MegatronDtype, sequenceLengths: Int32Array, documentEnds: Int32Array): Buffer {
  const n = sequenceLengths.length;
  const docs = documentEnds.length + 1;
  const out = Buffer.alloc(HEADER_BYTES + n * 4 + n * 8 + docs * 8);
  out.set(INDEX_HEADER, 0);
  out.writeBigUInt64LE(1n, 9);
  out.writeUInt8(DTYPE_CODES[dtype], 17);
  out.writeBigUInt64LE(BigInt(n), 18);
  out.writeBigUInt64LE(BigInt(docs), 26);
  let at = HEADER_BYTES;
  out.set(new Uint8Array(sequenceLengths.buffer, sequenceLengths.byteOffset, n * 4), at);
  at += n * 4;
  let pointer = 0;
  for (let i = 0; i < n; i++) {
    out.writeBigInt64LE(BigInt(pointer), at + i * 8);
    pointer += sequenceLengths[i]! * ITEM_SIZE[dtype];
  }
  at += n * 8;
  out.writeBigInt64LE(0n, at);
  for (let d = 0; d < documentEnds.length; d++) out.writeBigInt64LE(BigInt(documentEnds[d]!), at + (d + 1) * 8);
  return out;
}

/**
 * Writes one indexed dataset (PREFIX.bin/.idx) as a stream: the .bin grows as sequences
 * arrive; only the lengths and document ends (8 bytes a bin) stay in memory for the .idx,
 * written at close. Both files appear under their final names only when complete.
 */
export class MegatronIndexedWriter {
  private readonly data: AtomicFile;
  private readonly lengths = new GrowInt32();
  private readonly documentEnds = new GrowInt32();

  constructor(
    readonly prefix: string,
    readonly dtype: MegatronDtype,
  ) {
    this.data = new AtomicFile(binPath(prefix));
  }

  get sequences(): number {
    return this.lengths.length;
  }

  /** Appends one sequence (copied), by default also closing a document after it. */
  async add(values: Int32Array | Uint8Array, endDocument = true): Promise<void> {
    if (ITEM_SIZE[this.dtype] !== values.BYTES_PER_ELEMENT) throw new Error(`${this.prefix}: a ${values.constructor.name} in a ${this.dtype} dataset`);
    await this.data.write(bytesOf(values));
    this.lengths.pushOne(values.length);
    if (endDocument) this.documentEnds.pushOne(this.lengths.length);
  }

  /** Closes a document after the last sequence (for datasets whose documents span sequences). */
  endDocument(): void {
    this.documentEnds.pushOne(this.lengths.length);
  }

  /** Finishes both files; returns their checksums. */
  async close(): Promise<MegatronFileInfo[]> {
    const index = encodeIndex(this.dtype, this.lengths.view(), this.documentEnds.view());
    const idx = idxPath(this.prefix);
    // The .idx is staged before the .bin is renamed, so the two appear as close together as possible.
    writeFileSync(tempPath(idx), index);
    const binSha = await this.data.commit();
    renameSync(tempPath(idx), idx);
    return [
      { path: binPath(this.prefix), bytes: this.data.bytes, sha256: binSha },
      { path: idx, bytes: index.byteLength, sha256: sha256Of(index) },
    ];
  }

  abort(): Promise<void> {
    return this.data.abort();
  }
}

export interface MegatronFileInfo {
  path: string;
  bytes: number;
  sha256: string;
}

export interface MegatronBinsWriterOptions {
  /** Output folder (OUT/megatron). */
  dir: string;
  /** Dataset name: files are NAME_text_document, NAME_loss_mask_document, NAME_doc_lens_document. */
  name: string;
  /** Tokens per bin (L). */
  seqLen: number;
}

/** Prefixes (without .bin/.idx) of the three aligned datasets midpack writes. */
export function megatronPrefixes(dir: string, name: string): { text: string; lossMask: string; docLens: string } {
  return {
    text: join(dir, `${name}_text_document`),
    lossMask: join(dir, `${name}_loss_mask_document`),
    docLens: join(dir, `${name}_doc_lens_document`),
  };
}

/**
 * The Megatron outputs of a pack run, three aligned indexed datasets with one sequence
 * (and one document) per bin:
 *   NAME_text_document       int32, exactly L tokens per bin: what GPTDataset reads
 *   NAME_loss_mask_document  uint8, exactly L per bin: midpack's loss mask
 *   NAME_doc_lens_document   int32, the bin's unit lengths: document boundaries for
 *                            position ids and cu_seqlens (examples/megatron/midpack_dataset.py)
 * A resumed run feeds every bin again and rewrites these files whole (same bytes).
 */
export class MegatronBinsWriter {
  readonly text: MegatronIndexedWriter;
  readonly lossMask: MegatronIndexedWriter;
  readonly docLens: MegatronIndexedWriter;
  private rows = 0;

  constructor(readonly options: MegatronBinsWriterOptions) {
    if (!/^[\w.-]+$/.test(options.name)) throw new Error(`Megatron dataset name must be letters, digits, '.', '_' or '-', got '${options.name}'`);
    const p = megatronPrefixes(options.dir, options.name);
    this.text = new MegatronIndexedWriter(p.text, 'int32');
    this.lossMask = new MegatronIndexedWriter(p.lossMask, 'uint8');
    this.docLens = new MegatronIndexedWriter(p.docLens, 'int32');
  }

  async writeBin(bin: PackedBin): Promise<void> {
    checkBin(bin, this.options.seqLen, this.rows++);
    await this.text.add(bin.inputIds);
    await this.lossMask.add(bin.lossMask);
    await this.docLens.add(bin.docLens);
  }

  async close(): Promise<MegatronFileInfo[]> {
    return [...(await this.text.close()), ...(await this.lossMask.close()), ...(await this.docLens.close())];
  }

  async abort(): Promise<void> {
    await Promise.all([this.text.abort(), this.lossMask.abort(), this.docLens.abort()]);
  }
}

/** Reads an indexed dataset back from the layout above (tests, inspection). */
export class MegatronIndexedReader {
  readonly dtype: MegatronDtype;
  readonly sequenceLengths: Int32Array;
  readonly sequencePointers: BigInt64Array;
  readonly documentIndices: BigInt64Array;

  constructor(readonly prefix: string) {
    const idx = readFileSync(idxPath(prefix));
    const fail = (what: string): never => {
      throw new Error(`${idxPath(prefix)}: ${what}`);
    };
    if (idx.byteLength < HEADER_BYTES || Buffer.compare(idx.subarray(0, 9), INDEX_HEADER) !== 0) fail('not a Megatron index (bad header)');
    const version = idx.readBigUInt64LE(9);
    if (version !== 1n) fail(`index version ${version}, expected 1`);
    const code = idx.readUInt8(17);
    const dtype = (Object.keys(ITEM_SIZE) as MegatronDtype[]).find((d) => DTYPE_CODES[d] === code);
    this.dtype = dtype ?? fail(`dtype code ${code} is not int32 (4) or uint8 (1)`);
    const n = Number(idx.readBigUInt64LE(18));
    const docs = Number(idx.readBigUInt64LE(26));
    if (idx.byteLength !== HEADER_BYTES + n * 12 + docs * 8) fail(`size ${idx.byteLength} does not match ${n} sequences and ${docs} document indices`);
    // Copies: the slices of a file Buffer need not be aligned for typed-array views.
    const at = (offset: number, bytes: number) => idx.buffer.slice(idx.byteOffset + offset, idx.byteOffset + offset + bytes);
    this.sequenceLengths = new Int32Array(at(HEADER_BYTES, n * 4));
    this.sequencePointers = new BigInt64Array(at(HEADER_BYTES + n * 4, n * 8));
    this.documentIndices = new BigInt64Array(at(HEADER_BYTES + n * 12, docs * 8));
    const expectedBin = n === 0 ? 0 : Number(this.sequencePointers[n - 1]!) + this.sequenceLengths[n - 1]! * ITEM_SIZE[this.dtype];
    const actualBin = statSync(binPath(prefix)).size;
    if (actualBin !== expectedBin) throw new Error(`${binPath(prefix)}: ${actualBin} bytes, the index expects ${expectedBin}`);
  }

  get length(): number {
    return this.sequenceLengths.length;
  }

  /** Sequence i, read from the .bin. */
  get(i: number): Int32Array | Uint8Array {
    if (!(i >= 0 && i < this.length)) throw new RangeError(`${this.prefix}: sequence ${i} of ${this.length}`);
    const size = ITEM_SIZE[this.dtype];
    const buf = new ArrayBuffer(this.sequenceLengths[i]! * size);
    const fd = openSync(binPath(this.prefix), 'r');
    try {
      readSync(fd, new Uint8Array(buf), 0, buf.byteLength, Number(this.sequencePointers[i]!));
    } finally {
      closeSync(fd);
    }
    return this.dtype === 'int32' ? new Int32Array(buf) : new Uint8Array(buf);
  }
}

function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
