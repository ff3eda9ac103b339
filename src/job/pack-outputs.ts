import { join } from 'node:path';
import { ArrowShardWriter, completedShards, type ShardsResult } from '../write/arrow-shards.js';
import { MegatronBinsWriter, type MegatronFileInfo } from '../write/megatron.js';
import { AtomicFile, bytesOf } from '../write/files.js';
import type { PackedBin } from '../write/bin.js';
import { HashThread } from '../write/hash-thread.js';

export interface PackOutputsOptions {
  out: string;
  seqLen: number;
  rowsPerShard: number;
  name: string;
  /** A resumed run keeps the complete shards of the killed one. */
  resume: boolean;
}

export interface PackOutputsResult {
  shards: ShardsResult;
  megatron: MegatronFileInfo[];
  lengthsSha256: string;
}

/**
 * The files a pack writes bin by bin: OUT/shards (Arrow), OUT/megatron (three indexed
 * datasets) and OUT/doc_lengths.u32 (every document's tokens, in input order). All are written
 * under temporary names; close() puts them in place, abort() leaves nothing half-written.
 */
export class PackOutputs {
  private readonly arrow: ArrowShardWriter;
  private readonly megatron: MegatronBinsWriter;
  private readonly lengths: AtomicFile;

  constructor(o: PackOutputsOptions) {
    const shardsDir = join(o.out, 'shards');
    this.arrow = new ArrowShardWriter({ dir: shardsDir, seqLen: o.seqLen, rowsPerShard: o.rowsPerShard, startShard: o.resume ? completedShards(shardsDir) : 0 });
    this.megatron = new MegatronBinsWriter({ dir: join(o.out, 'megatron'), name: o.name, seqLen: o.seqLen });
    this.lengths = new AtomicFile(join(o.out, 'doc_lengths.u32'));
  }

  /** Starts the hash threads where a core is free: as the bins are planned (the workers gone), or earlier when the workers leave a core idle. */
  prepareBins(): void {
    HashThread.startPool();
  }

  writeLengths(lengths: Uint32Array): Promise<void> {
    return this.lengths.write(bytesOf(lengths));
  }

  async writeBin(bin: PackedBin): Promise<void> {
    await this.arrow.writeBin(bin);
    await this.megatron.writeBin(bin);
  }

  async close(): Promise<PackOutputsResult> {
    const shards = await this.arrow.close();
    const megatron = await this.megatron.close();
    return { shards, megatron, lengthsSha256: await this.lengths.commit() };
  }

  async abort(): Promise<void> {
    await Promise.allSettled([this.arrow.abort(), this.megatron.abort(), this.lengths.abort()]);
  }
}
