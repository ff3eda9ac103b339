import { TOKENIZER_BACKENDS, type TokenizerBackend } from '../tokenize/tokenizer.js';
import { resolveTable, type OptionTable } from '../core/options.js';
import { DEFAULT_MAX_OPEN_BINS, OVERLONG_POLICIES, type OverlongPolicy } from '../pack/packer.js';
import { DEFAULT_PASS_UNITS, DEFAULT_PLAN_WINDOW_UNITS } from '../pack/planner.js';
import { PACK_DEFAULTS } from './pack-job.js';

/**
 * Packing's options (`midpack pack` flags, a config's `pack:`; `compare` takes the packer's
 * five). The manifest's `config` records them in snake_case (seqLen → seq_len).
 */
export const PACK_OPTIONS = {
  seqLen: { type: 'int', min: 1, default: PACK_DEFAULTS.seqLen, arg: '<L>', help: 'tokens per bin (L)' },
  overlong: {
    type: 'string',
    choices: OVERLONG_POLICIES,
    default: PACK_DEFAULTS.overlong,
    arg: '<policy>',
    help: 'documents longer than L: split (chunks of L), slide (overlapping windows), drop, boundary (cut at file boundaries, header repeated), truncate (keep the first L)',
  },
  slideStride: { type: 'int', min: 1, help: 'stride of the slide policy (default: L/2)' },
  windowUnits: { type: 'int', min: 0, default: DEFAULT_PLAN_WINDOW_UNITS, help: '0 (default): each planning pass is placed best-fit decreasing as a whole; N: placed N units at a time, open bins bounded by --max-open-bins (the older, windowed planner)' },
  maxOpenBins: { type: 'int', min: 1, default: DEFAULT_MAX_OPEN_BINS, help: 'partly filled bins (those with the most room) carried from one planning pass to the next; with windows, bins open at any time (their units: 20 bytes each, at most 2^21)' },
  passUnits: { type: 'int', min: 1, default: DEFAULT_PASS_UNITS, help: 'units one planning pass holds, about 60 bytes each (4,194,304: about 250 MB); a corpus with more is planned in several passes over the work store' },
  shuffleSeed: { type: 'int', min: 0, default: 0, help: 'seed of the order bins are written in, and of the planning hash' },
  shuffle: { type: 'boolean', default: true, help: 'write bins in a seeded pseudo-random order (--no-shuffle: plan order)' },
  rowsPerShard: { type: 'int', min: 1, default: PACK_DEFAULTS.rowsPerShard, help: 'bins per Arrow shard file' },
  name: { type: 'string', arg: '<name>', default: PACK_DEFAULTS.name, help: 'Megatron dataset name (megatron/NAME_text_document.bin/.idx)' },
  chunkTokens: { type: 'int', min: 1, default: PACK_DEFAULTS.chunkTokens, help: 'tokens per work chunk: how much a killed run may redo' },
  tokenizerBackend: {
    type: 'string',
    choices: TOKENIZER_BACKENDS,
    default: PACK_DEFAULTS.tokenizerBackend,
    arg: '<name>',
    help: 'auto: native (the C++ core) where it has a splitter for the pre-tokenizer pattern (Qwen2/2.5/3, Llama-3, DeepSeek-V3, GPT-4o o200k) and reproduces the BPE model, else fast (tiktoken core) when it reproduces the tokenizer.json exactly, else hf; native, fast: that backend where it is exact, else the next; hf: @huggingface/tokenizers. Ids are identical either way',
  },
  tokenizerCache: {
    type: 'int',
    min: 0,
    default: PACK_DEFAULTS.tokenizerCache,
    arg: '<pieces>',
    help: "pieces of up to 256 bytes each tokenizer worker keeps in its table of pieces already encoded (native backend): each piece takes two 24-byte slots of the table, its bytes and its ids (at most 1.3 KB). Fewer is slower, never different; 0 keeps none",
  },
} satisfies OptionTable;

/** The packer's own options, shared with `compare`. */
export const PACKER_KEYS = ['seqLen', 'overlong', 'slideStride', 'windowUnits', 'maxOpenBins', 'passUnits'] as const;

export interface PackOptions {
  seqLen: number;
  overlong: OverlongPolicy;
  slideStride?: number;
  windowUnits: number;
  maxOpenBins: number;
  passUnits: number;
  shuffleSeed: number;
  shuffle: boolean;
  rowsPerShard: number;
  name: string;
  chunkTokens: number;
  tokenizerBackend: TokenizerBackend;
  tokenizerCache: number;
}

export function resolvePackOptions(raw: Record<string, unknown>): PackOptions {
  return resolveTable(PACK_OPTIONS, raw) as unknown as PackOptions;
}
