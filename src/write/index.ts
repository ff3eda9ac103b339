/** Writers (`midpack/write`): packed bins as Arrow shards and Megatron-LM indexed datasets. */
export { checkBin, binTokens, type PackedBin } from './bin.js';
export { AtomicFile, sha256File, writeFileAtomic } from './files.js';
export { ArrowShardWriter, shardSchema, shardFeatures, shardFilename, completedShards, shardsFingerprint, type ArrowShardWriterOptions, type ShardInfo, type ShardsResult } from './arrow-shards.js';
export {
  MegatronIndexedWriter,
  MegatronIndexedReader,
  MegatronBinsWriter,
  encodeIndex,
  binPath,
  idxPath,
  megatronPrefixes,
  INDEX_HEADER,
  DTYPE_CODES,
  type MegatronDtype,
  type MegatronFileInfo,
  type MegatronBinsWriterOptions,
} from './megatron.js';
