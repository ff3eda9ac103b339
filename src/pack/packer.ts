import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What to do with a document longer than the capacity. `truncate` is what plain BFP does. */
export type OverlongPolicy = 'split' | 'slide' | 'drop' | 'boundary' | 'truncate';
export const OVERLONG_POLICIES: readonly OverlongPolicy[] = ['split', 'slide', 'drop', 'boundary', 'truncate'];

export interface PackerOptions {
  /** L: tokens per bin, default 262144. */
  capacity: number;
  /** Default 'split'. */
  overlong: OverlongPolicy;
  /** For 'slide': how far each window starts after the previous one; default capacity/2. */
  slideStride?: number;
  /** Units buffered before they are placed longest first (the memory knob); default 262144 (about 56 bytes each). */
  windowUnits?: number;
  /** More bins open than this and the fullest one is closed; default 8192. */
  maxOpenBins?: number;
  /** More units held in open bins than this and the fullest bins close; default 2^21. */
  maxHeldUnits?: number;
}

export const DEFAULT_CAPACITY = 262144;
export const DEFAULT_WINDOW_UNITS = 262144;
export const DEFAULT_MAX_OPEN_BINS = 8192;
export const DEFAULT_MAX_HELD_UNITS = 1 << 21;

/** Documents pushed in order get global indices 0,1,2,... */
export interface DocBatch {
  /** Tokens per document (its end-of-text included). */
  lengths: Uint32Array;
  /** For 'boundary' (optional per doc; docs without boundaries fall back to split): boundaries per doc. */
  boundaryCounts?: Uint32Array;
  /** Flat, ascending token offsets within each doc where a chunk may start. */
  boundaryOffsets?: Uint32Array;
  /** Per doc: tokens [0, headerLen) repeated at the start of each later chunk. */
  headerLens?: Uint32Array;
}

/** Bins closed by one call, in emission order (deterministic). */
export interface ClosedBins {
  binCount: number;
  /** CSR: bin b holds units binUnitStart[b] .. binUnitStart[b+1]-1, in order. */
  binUnitStart: Uint32Array;
  /** Global document index. */
  unitDoc: Uint32Array;
  /** Token range [unitStart, unitEnd) of that document. */
  unitStart: Uint32Array;
  unitEnd: Uint32Array;
  /** Tokens [0, unitHeader) of the doc repeated before the range ('boundary'), else 0. */
  unitHeader: Uint32Array;
  /** The unit's ordinal in cut order (documents in order, then its units): unit identity. */
  unitId: Uint32Array;
}

export interface PackerStats {
  docs: number;
  units: number;
  overlongDocs: number;
  droppedDocs: number;
  droppedTokens: number;
  duplicatedTokens: number;
  bins: number;
  paddingTokens: number;
  tokens: number;
}

/** What both implementations (native and TypeScript) offer. */
export interface Packer {
  push(batch: DocBatch): ClosedBins;
  finish(): ClosedBins;
  stats(): PackerStats;
}

export interface ResolvedPackerOptions extends Required<PackerOptions> {
  policyCode: number;
}

/** Fills in defaults and rejects impossible options with a message naming the option. */
export function resolvePackerOptions(opts: Partial<PackerOptions>): ResolvedPackerOptions {
  const capacity = opts.capacity ?? DEFAULT_CAPACITY;
  const overlong = opts.overlong ?? 'split';
  const r = {
    capacity,
    overlong,
    slideStride: opts.slideStride ?? Math.max(1, Math.floor(capacity / 2)),
    windowUnits: opts.windowUnits ?? DEFAULT_WINDOW_UNITS,
    maxOpenBins: opts.maxOpenBins ?? DEFAULT_MAX_OPEN_BINS,
    maxHeldUnits: opts.maxHeldUnits ?? DEFAULT_MAX_HELD_UNITS,
    policyCode: OVERLONG_POLICIES.indexOf(overlong),
  };
  const intIn = (name: string, v: number, lo: number, hi: number) => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`packer: ${name} must be an integer in [${lo}, ${hi}], got ${v}`);
  };
  // The room index costs about 4 bytes per possible room, so L is kept to 2^24 tokens.
  intIn('capacity', r.capacity, 1, 2 ** 24);
  if (r.policyCode < 0) throw new RangeError(`packer: unknown overlong policy "${overlong}" (one of ${OVERLONG_POLICIES.join(', ')})`);
  intIn('slideStride', r.slideStride, 1, r.capacity);
  intIn('windowUnits', r.windowUnits, 1, 1 << 20);
  intIn('maxOpenBins', r.maxOpenBins, 1, 2 ** 31);
  intIn('maxHeldUnits', r.maxHeldUnits, 1, 2 ** 31);
  return r;
}

/** The same shape checks for both implementations: boundary arrays must line up with the lengths. */
export function checkBatch(batch: DocBatch): void {
  const n = batch.lengths.length;
  if (!(batch.lengths instanceof Uint32Array)) throw new TypeError('packer: lengths must be a Uint32Array');
  if (batch.boundaryCounts && batch.boundaryCounts.length !== n) throw new RangeError('packer: boundaryCounts needs one entry per document');
  if (batch.headerLens && batch.headerLens.length !== n) throw new RangeError('packer: headerLens needs one entry per document');
  let total = 0;
  if (batch.boundaryCounts) for (let i = 0; i < n; i++) total += batch.boundaryCounts[i]!;
  if (total !== (batch.boundaryOffsets?.length ?? 0)) throw new RangeError('packer: boundaryOffsets must hold sum(boundaryCounts) offsets');
}

/** The native packer's constructor arguments; the planner takes the same, then its own. */
type NativePackerArgs = [capacity: number, policy: number, slideStride: number, windowUnits: number, maxOpenBins: number, maxHeldUnits: number];

export interface NativeBinding {
  version(): string;
  /** XXH64 (seed 0) of the bytes, 16 hex digits: a prepared tokenizer's check (src/tokenize/prepared.ts). */
  xxh64?(bytes: Uint8Array): string;
  cutUnits(capacity: number, policy: number, slideStride: number, lengths: Uint32Array): { unitLength: Uint32Array; unitDoc: Uint32Array; stats: PackerStats };
  /** The masking segments of a text (native/include/segments.hpp; src/stages/mask/segments.ts). */
  lineSegments(text: string, specials: Uint32Array | undefined, minChars: number, distinct: boolean): Uint32Array;
  /** `text` as a JSON string literal in UTF-8 at `out[at]`: the bytes written, or minus the bytes needed when they do not fit (native/include/json_string.hpp; src/doc/json-line.ts). */
  jsonStringInto(text: string, out: Uint8Array, at: number): number;
  /** The characters of a JSON line's top-level string field `key` when they are all ASCII, its literal's bounds in at[0], at[1]; else -1 (native/include/json_text.hpp; src/tokenize/line-docs.ts). */
  jsonAsciiText(line: Uint8Array, key: string, at: Float64Array): number;
  /** Linguist's `.h` heuristics' answer for a header's text: 0 Objective-C, 1 C++, 2 C (native/include/header_lines.hpp; src/stages/repos/heuristics.ts). */
  headerLanguage?(text: string): number;
  /** text.slice(start, end) of a JSON line's top-level string field `key`, without parsing the line, walked on from `cursor` (the line's own); undefined when it must be parsed (native/include/segments.hpp; src/stages/mask/segments.ts). */
  jsonTextSlice?(line: Uint8Array, key: string, start: number, end: number, cursor: Float64Array): string | undefined;
  /** The text of the JSON string literal line[from, to) as JSON.parse of the line (decoded by a fatal UTF-8 decoder) gives it; undefined when that would fail or the line is to be parsed (native/include/json_text.hpp; src/tokenize/line-docs.ts). */
  jsonTextString?(line: Uint8Array, from: number, to: number): string | undefined;
  /** lineSegments of the text of the JSON string literal line[from, to), its length and well-formedness in info[0], info[1]; undefined when the line must be parsed (src/job/mask-lines.ts). */
  jsonTextSegments?(line: Uint8Array, from: number, to: number, specials: Uint32Array | undefined, minChars: number, info: Float64Array): Uint32Array | undefined;
  /** Starts a program by posix_spawnp, without copying this process's memory (native/include/spawn_process.hpp; src/io/spawn-process.ts). */
  spawnProcess?(file: string, argv: string[], cwd: string, env: string[] | undefined, stdio: number[], onExit: (code: number | null, signal: number) => void): { error: number; pid: number; fds: number[] };
  /** The native tokenizer core (native/include/bpe_tokenizer.hpp; src/tokenize/native-bpe.ts). */
  NativeTokenizer: new (
    byteIds: Int32Array, merges: Int32Array, classes: Uint8Array, maxDigits: number, ignoreMerges: boolean, cacheEntries: number,
    tokenLengths: Int32Array, tokenBytes: Uint8Array, pattern: number,
    /** FastTables.unmerged: the vocabulary's check already done (an earlier build's unmergedTokens()). */
    unmerged?: Int32Array,
  ) => {
    /** The tokens of `text` written at `at` (ranges plus `base`): their count, or minus it when they do not fit (nothing written). */
    encodeInto(text: string, ids: Int32Array, starts: Int32Array, ends: Int32Array, at: number, base: number): number;
    /** encodeInto for an all-ASCII text; null (nothing done) for any other. */
    encodeAsciiInto(text: string, ids: Int32Array, starts: Int32Array, ends: Int32Array, at: number, base: number): number | null;
    /** encodeInto for the ASCII text a JSON string's content (the bytes between its quotes, accepted by jsonAsciiText) stands for. */
    encodeJsonAsciiInto(content: Uint8Array, ids: Int32Array, starts: Int32Array, ends: Int32Array, at: number, base: number): number;
    /** The last encodeInto's tokens, written at `at` of arrays grown since; their count (or minus it, again). */
    copyLast(ids: Int32Array, starts: Int32Array, ends: Int32Array, at: number, base: number): number;
    cacheSize(): number;
    /** The vocabulary's ids this build left out, its bytes not merging into them (FastTables.unmerged). */
    unmergedTokens(): Int32Array;
  };
  NativePacker: new (...args: NativePackerArgs) => {
    push(lengths: Uint32Array, counts?: Uint32Array, offsets?: Uint32Array, headers?: Uint32Array): ClosedBins;
    finish(): ClosedBins;
    stats(): PackerStats;
  };
  NativePlanner: new (...args: [...NativePackerArgs, passUnits: number, seedHigh: number, seedLow: number]) => {
    count(lengths: Uint32Array, counts?: Uint32Array, offsets?: Uint32Array, headers?: Uint32Array): void;
    passes(): number;
    beginPass(pass: number): void;
    feed(lengths: Uint32Array, counts?: Uint32Array, offsets?: Uint32Array, headers?: Uint32Array, keys?: Uint32Array): void;
    endPass(): ClosedBins;
    finish(): ClosedBins;
    stats(): PackerStats;
  };
}

let binding: NativeBinding | undefined;

/** The compiled addon (built by cmake-js during npm ci), loaded once. */
export function nativeBinding(): NativeBinding {
  if (binding) return binding;
  // dist/src/pack/packer.js and src/pack/packer.ts are both three levels below the package root.
  const path = fileURLToPath(new URL('../../../native/build/Release/midpack_native.node', import.meta.url));
  if (!existsSync(path)) throw new Error(`the native packer is not built (${path} is missing): run npm run build:native`);
  binding = createRequire(import.meta.url)(path) as NativeBinding;
  return binding;
}

/** Best-fit packing by the C++ core; the lengths and results cross as typed arrays, one call per batch. */
export class StreamingPacker implements Packer {
  readonly options: ResolvedPackerOptions;
  private readonly core: InstanceType<NativeBinding['NativePacker']>;

  constructor(opts: PackerOptions) {
    this.options = resolvePackerOptions(opts);
    const o = this.options;
    this.core = new (nativeBinding().NativePacker)(o.capacity, o.policyCode, o.slideStride, o.windowUnits, o.maxOpenBins, o.maxHeldUnits);
  }

  push(batch: DocBatch): ClosedBins {
    checkBatch(batch);
    return this.core.push(batch.lengths, batch.boundaryCounts, batch.boundaryOffsets, batch.headerLens);
  }

  finish(): ClosedBins {
    return this.core.finish();
  }

  stats(): PackerStats {
    return this.core.stats();
  }
}
