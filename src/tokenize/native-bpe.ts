import { nativeBinding } from '../pack/packer.js';
import type { FastTables, TokenizerJson } from './fast-bpe.js';
import { REFERENCE_CLASSES } from './unicode-classes-table.js';
import type { TokenBuffer } from './token-buffer.js';
import { TokenizeLimitError } from './limits.js';

/**
 * The native tokenizer backend: the C++ core in native/src/bpe_tokenizer.cpp, for byte-level
 * BPE tokenizer.json files whose Split pattern is one it splits by hand (PATTERN_FAMILIES),
 * with the Unicode classes of the Rust reference (unicode-classes-table.ts) and the merges the
 * fast backend's check accepted (its tables). One call per text; typed arrays back.
 */
export const PATTERN_FAMILIES: Record<string, { maxDigits: number }> = {
  // Qwen2, Qwen2.5, Qwen3
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": { maxDigits: 1 },
  // Llama-3
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": { maxDigits: 3 },
};

/** Pieces kept in the native core's table of pieces already encoded (beside the vocabulary). */
export const NATIVE_CACHE_ENTRIES = 1 << 16;

/** The Split regex of a Sequence(Split, ByteLevel) pre-tokenizer, or undefined. */
function splitPattern(json: TokenizerJson): string | undefined {
  const pre = json.pre_tokenizer as { type?: string; pretokenizers?: { type?: string; pattern?: { Regex?: unknown } }[] } | null | undefined;
  const split = pre?.type === 'Sequence' ? pre.pretokenizers?.[0] : undefined;
  return split?.type === 'Split' && typeof split.pattern?.Regex === 'string' ? split.pattern.Regex : undefined;
}

/** Why the native core cannot run this tokenizer.json (which passed the fast check), or undefined. */
export function checkNativePipeline(json: TokenizerJson): string | undefined {
  const pattern = splitPattern(json);
  if (pattern === undefined || !PATTERN_FAMILIES[pattern]) return `pre-tokenizer pattern ${JSON.stringify((pattern ?? 'none').slice(0, 60))} has no native splitter`;
  return undefined;
}

let classTable: Uint8Array | undefined;
/** Per code point: 1 letter, 2 number, 4 white space, as the reference's regex engine has them. */
function classes(): Uint8Array {
  if (classTable) return classTable;
  const t = new Uint8Array(0x110000);
  const mark = (name: string, bit: number) => {
    const r = REFERENCE_CLASSES[name]!;
    for (let i = 0; i < r.length; i += 2) for (let c = r[i]!; c <= r[i + 1]!; c++) t[c]! |= bit;
  };
  mark('L', 1);
  mark('N', 2);
  mark('s', 4);
  return (classTable = t);
}

export class NativeBpe {
  private readonly core: ReturnType<typeof makeCore>;

  constructor(parts: TokenizerJson, tables: FastTables, cacheEntries = NATIVE_CACHE_ENTRIES) {
    const family = PATTERN_FAMILIES[splitPattern(parts) ?? ''];
    if (!family) throw new Error(`native tokenizer backend: ${checkNativePipeline(parts)}`);
    const model = parts.model as { ignore_merges?: boolean } | undefined;
    this.core = makeCore(tables, family.maxDigits, model?.ignore_merges === true, cacheEntries);
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
    let n: number;
    try {
      n = this.core.encodeInto(text, out.ids, out.starts, out.ends, k, shift);
    } catch (e) {
      const message = (e as Error).message;
      if (message.startsWith('piece_too_long: ')) throw new TokenizeLimitError('piece_too_long', message.slice(16));
      throw e;
    }
    if (n < 0) {
      out.reserve(-n);
      n = this.core.copyLast(out.ids, out.starts, out.ends, k, shift);
    }
    if (map) {
      for (let i = k; i < k + n; i++) {
        out.starts[i] = base + map(out.starts[i]!, false);
        out.ends[i] = base + map(out.ends[i]!, true);
      }
    }
    out.length = k + n;
  }

  cacheSize(): number {
    return this.core.cacheSize();
  }
}

function makeCore(tables: FastTables, maxDigits: number, ignoreMerges: boolean, cacheEntries: number) {
  const { NativeTokenizer } = nativeBinding();
  return new NativeTokenizer(tables.byteIds, tables.pairs, classes(), maxDigits, ignoreMerges, cacheEntries);
}
