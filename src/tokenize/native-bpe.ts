import { nativeBinding } from '../pack/packer.js';
import { plainByteLevel, type FastTables, type TokenizerJson } from './fast-bpe.js';
import { REFERENCE_CLASSES } from './unicode-classes-table.js';
import type { TokenBuffer } from './token-buffer.js';
import { TokenizeLimitError } from './limits.js';

/**
 * The native tokenizer backend: the C++ core in native/src/bpe_tokenizer.cpp, for byte-level
 * BPE tokenizer.json files whose normalizer and model it reproduces (checkNativeModel, with
 * ignore_merges) and whose pre-tokenizer is one it splits by hand (native/src/splitters.cpp),
 * with the Unicode classes of the Rust reference (unicode-classes-table.ts). One call per text;
 * typed arrays back.
 */
/** The native core's splitters (native/include/splitters.hpp's SplitPattern). */
const enum SplitPattern {
  Qwen = 0,
  DeepSeekV3 = 1,
  O200k = 2,
}

interface NativeSplitter {
  pattern: SplitPattern;
  maxDigits: number;
}

const QWEN_FAMILY = (digits: string) => `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}${digits}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+`;

/** A Sequence of one isolated Split: its regex, by the splitter written for it. */
export const PATTERN_FAMILIES: Record<string, NativeSplitter> = {
  // Qwen2, Qwen2.5, Qwen3
  [QWEN_FAMILY('')]: { pattern: SplitPattern.Qwen, maxDigits: 1 },
  // Llama-3
  [QWEN_FAMILY('{1,3}')]: { pattern: SplitPattern.Qwen, maxDigits: 3 },
};

/** DeepSeek-V3's three isolated Splits, in order. */
const DEEPSEEK_V3 = ['\\p{N}{1,3}', '[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+', '[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+'];

/** GPT-4o's (o200k) Split: its matches kept, what lies between them removed. */
const O200K = "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** Pieces kept in the native core's table of pieces already encoded (beside the vocabulary). */
export const NATIVE_CACHE_ENTRIES = 1 << 16;

type Step = { type?: string; pattern?: { Regex?: unknown }; behavior?: unknown; invert?: unknown } & Record<string, unknown>;

const regexOf = (step: Step | undefined) => (step?.type === 'Split' && typeof step.pattern?.Regex === 'string' ? step.pattern.Regex : undefined);
const isolated = (step: Step) => step.behavior === 'Isolated' && step.invert === false;

/** The native splitter for a tokenizer.json's pre-tokenizer: a Sequence of Splits it knows, then a plain ByteLevel. */
function nativeSplitter(json: TokenizerJson): NativeSplitter | string {
  const pre = json.pre_tokenizer as { type?: string; pretokenizers?: Step[] } | null | undefined;
  const steps = pre?.type === 'Sequence' ? (pre.pretokenizers ?? []) : [];
  const splits = steps.slice(0, -1);
  const patterns = splits.map(regexOf);
  const shown = JSON.stringify((patterns.find((p) => p !== undefined) ?? pre?.type ?? 'none').slice(0, 60));
  if (steps.length < 2 || !plainByteLevel(steps[steps.length - 1]) || patterns.includes(undefined)) return `pre-tokenizer ${shown} is not Splits then a plain ByteLevel`;
  if (splits.length === 1 && isolated(splits[0]!) && PATTERN_FAMILIES[patterns[0]!]) return PATTERN_FAMILIES[patterns[0]!]!;
  if (splits.length === 1 && patterns[0] === O200K && splits[0]!.behavior === 'Removed' && splits[0]!.invert === true) return { pattern: SplitPattern.O200k, maxDigits: 3 };
  if (splits.length === 3 && splits.every(isolated) && patterns.every((p, i) => p === DEEPSEEK_V3[i])) return { pattern: SplitPattern.DeepSeekV3, maxDigits: 3 };
  return `pre-tokenizer pattern ${shown} has no native splitter`;
}

/** Why the native core cannot split this tokenizer.json's text (its model is checkNativeModel's), or undefined. */
export function checkNativePipeline(json: TokenizerJson): string | undefined {
  const splitter = nativeSplitter(json);
  return typeof splitter === 'string' ? splitter : undefined;
}

let classTable: Uint8Array | undefined;
/** The native splitters' class bits per code point (splitters.hpp's CharClass), as the reference's regex engine has the classes. */
export function nativeClasses(): Uint8Array {
  if (classTable) return classTable;
  const t = new Uint8Array(0x110000);
  const mark = (name: string, bit: number) => {
    const r = REFERENCE_CLASSES[name]!;
    for (let i = 0; i < r.length; i += 2) for (let c = r[i]!; c <= r[i + 1]!; c++) t[c]! |= bit;
  };
  mark('L', 1);
  mark('N', 2);
  mark('s', 4);
  mark('M', 8);
  mark('P', 16);
  mark('S', 32);
  for (const name of ['Lu', 'Lt', 'Lm', 'Lo']) mark(name, 64);
  for (const name of ['Ll', 'Lm', 'Lo']) mark(name, 128);
  return (classTable = t);
}

export class NativeBpe {
  private readonly core: ReturnType<typeof makeCore>;

  constructor(parts: TokenizerJson, tables: FastTables, cacheEntries = NATIVE_CACHE_ENTRIES) {
    if (!Number.isInteger(cacheEntries) || cacheEntries < 0) throw new RangeError(`native tokenizer backend: ${cacheEntries} pieces in its table of encoded pieces: a whole number at least 0 expected`);
    const splitter = nativeSplitter(parts);
    if (typeof splitter === 'string') throw new Error(`native tokenizer backend: ${splitter}`);
    const model = parts.model as { ignore_merges?: boolean } | undefined;
    this.core = makeCore(tables, splitter, model?.ignore_merges === true, cacheEntries);
  }

  /**
   * Tokenizes `text` (normalized, well-formed) into `out`, each range offset by `base` and mapped
   * through `map`. The core writes straight into `out`'s arrays (one call; a second only when
   * they must grow first).
   */
  encodeInto(text: string, out: TokenBuffer, base: number, map: ((n: number, roundUp: boolean) => number) | null): void {
    if (text.length === 0) return;
    const k = out.length;
    const shift = map ? 0 : base;
    const n = this.written(limited(() => this.core.encodeInto(text, out.ids, out.starts, out.ends, k, shift)), out, shift);
    if (map) {
      for (let i = k; i < k + n; i++) {
        out.starts[i] = base + map(out.starts[i]!, false);
        out.ends[i] = base + map(out.ends[i]!, true);
      }
    }
    out.length = k + n;
  }

  /**
   * encodeInto for a text that is all ASCII, as it stands (no well-formedness or NFC pass: neither
   * changes ASCII): false, with nothing written, for any other text. The core finds out as it
   * reads the text, so most code costs the caller no scan of its own.
   */
  encodeAsciiInto(text: string, out: TokenBuffer, base: number): boolean {
    if (text.length === 0) return true;
    const k = out.length;
    const n = limited(() => this.core.encodeAsciiInto(text, out.ids, out.starts, out.ends, k, base));
    if (n === null) return false;
    out.length = k + this.written(n, out, base);
    return true;
  }

  /**
   * encodeAsciiInto for the text of a JSON string literal of ASCII characters (jsonAsciiText
   * found it in a JSONL line): the core unescapes the literal's bytes itself, so the text is never
   * a JS string.
   */
  encodeJsonAsciiInto(literal: Uint8Array, out: TokenBuffer, base: number): void {
    if (literal.length <= 2) return;
    const k = out.length;
    const n = limited(() => this.core.encodeJsonAsciiInto(literal.subarray(1, literal.length - 1), out.ids, out.starts, out.ends, k, base));
    out.length = k + this.written(n, out, base);
  }

  /** The tokens the core wrote past out.length (their count), after growing `out` when they did not fit. */
  private written(n: number, out: TokenBuffer, shift: number): number {
    if (n >= 0) return n;
    const k = out.length;
    out.reserve(-n);
    return this.core.copyLast(out.ids, out.starts, out.ends, k, shift);
  }

  cacheSize(): number {
    return this.core.cacheSize();
  }
}

/** The core's refusal of a piece over its limit, as the TokenizeLimitError the pack path counts. */
function limited<T>(encode: () => T): T {
  try {
    return encode();
  } catch (e) {
    const message = (e as Error).message;
    if (message.startsWith('piece_too_long: ')) throw new TokenizeLimitError('piece_too_long', message.slice(16));
    throw e;
  }
}

/** The native core's constructor arguments (the same for NativeCoreSeed: they are what the process-wide built core is found by). */
function coreArgs(tables: FastTables, splitter: NativeSplitter, ignoreMerges: boolean, cacheEntries: number) {
  return [tables.byteIds, tables.pairs, nativeClasses(), splitter.maxDigits, ignoreMerges, cacheEntries, tables.byteLens, tables.tokenBytes, splitter.pattern, tables.unmerged] as const;
}

/**
 * The ids a native core built from these tables leaves out of its vocabulary (FastTables.unmerged),
 * found by building one: for the prepared tables, once per tokenizer and machine. The splitter
 * plays no part in it, so any will do.
 */
export function unmergedVocabulary(tables: FastTables, ignoreMerges: boolean): Int32Array {
  const core = makeCore({ ...tables, unmerged: undefined }, { pattern: SplitPattern.Qwen, maxDigits: 1 }, ignoreMerges, 0);
  return core.unmergedTokens();
}

function makeCore(tables: FastTables, splitter: NativeSplitter, ignoreMerges: boolean, cacheEntries: number) {
  const { NativeTokenizer } = nativeBinding();
  return new NativeTokenizer(...coreArgs(tables, splitter, ignoreMerges, cacheEntries));
}

/**
 * Starts building, off this thread, the native core that NativeBpe(parts, tables, cacheEntries)
 * makes, so that the tokenizer workers about to start each copy it (native/binding/shared_core.hpp)
 * instead of building their own: undefined when there is none to build (no native splitter).
 * Released once the workers hold their copies.
 */
export function seedNativeCore(parts: TokenizerJson, tables: FastTables, cacheEntries = NATIVE_CACHE_ENTRIES): { release(): void } | undefined {
  const splitter = nativeSplitter(parts);
  if (typeof splitter === 'string' || !Number.isInteger(cacheEntries) || cacheEntries < 0) return undefined;
  const model = parts.model as { ignore_merges?: boolean } | undefined;
  const { NativeCoreSeed } = nativeBinding() as unknown as { NativeCoreSeed?: new (...args: ReturnType<typeof coreArgs>) => { release(): void } };
  return NativeCoreSeed && new NativeCoreSeed(...coreArgs(tables, splitter, model?.ignore_merges === true, cacheEntries));
}
