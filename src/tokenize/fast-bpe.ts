import { createRequire } from 'node:module';
import type { Tiktoken } from 'tiktoken';
import { hfTokenizerClass } from './hf-tokenizers.js';
import { BYTE_TO_CHAR, tiktokenRanks, tokenBytes, tokenCharRanges } from './byte-level.js';
import { LongPieceBpe } from './long-bpe.js';
import type { TokenBuffer } from './token-buffer.js';
import { MAX_PIECE_BYTES, TokenizeLimitError } from './limits.js';
import { hashRange, PieceMemo } from './piece-memo.js';
import { normalizerIsNfc, normalizerIsNone } from './nfc.js';
import { referenceRegex } from './unicode-classes.js';

/**
 * tiktoken, loaded when a fast backend is built: its import compiles its WebAssembly (about
 * 90 ms here), which the native backend's workers and the main thread of a pack on it never use.
 */
function loadTiktoken(): typeof Tiktoken {
  return (createRequire(import.meta.url)('tiktoken') as { Tiktoken: typeof Tiktoken }).Tiktoken;
}

// ignoreBOM: a token that starts with U+FEFF keeps it (the default would drop it and key the token by the rest).
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The fast tokenizer backend: the same ids as @huggingface/tokenizers for a tokenizer.json
 * whose pipeline it can reproduce exactly (checkFastPipeline), at several times the speed.
 *
 * - Pre-tokenization is the reference's own: the Split regex as @huggingface/tokenizers
 *   compiles it, run with its splitting rule (matches and the gaps between them are pieces).
 * - Each piece's ids are memoized; a new piece goes to tiktoken (OpenAI's BPE in WASM) with
 *   ranks built from the same vocabulary. tiktoken merges the pair whose merged token has the
 *   lowest rank, the reference the pair with the lowest merge index: the check on load proves
 *   they merge the same pairs in the same order.
 * - A piece longer than LONG_PIECE_BYTES goes to LongPieceBpe (tiktoken is quadratic in the
 *   piece length). Pieces never depend on each other, so a document of any length is
 *   tokenized piece by piece in one pass, in time proportional to its length.
 */
/** A parsed tokenizer.json (the fields midpack reads). */
export interface TokenizerJson {
  added_tokens?: { id: number; content: string; special?: boolean }[];
  normalizer?: unknown;
  pre_tokenizer?: unknown;
  model?: unknown;
  [k: string]: unknown;
}

/**
 * What FastBpe is built from, derived from the tokenizer.json once (prepared.ts keeps it on
 * disk): building it from the JSON took each worker about half a second.
 */
export interface FastTables {
  /** tiktoken's ranks file: "base64(bytes) id" a line. */
  ranks: string;
  /** Each token id's length in bytes (its byte-level string's length). */
  byteLens: Int32Array;
  /** LongPieceBpe's: the id of each single byte, and (left, right, merged) ids per merge, in merge order. */
  byteIds: Int32Array;
  pairs: Int32Array;
  /** Each token's bytes, in id order (byteLens gives their lengths): the native core's vocabulary. */
  tokenBytes: Uint8Array;
  /**
   * The ids (ascending) the native core's build leaves out of its vocabulary because their bytes
   * do not merge into them: a build's own check, about half its time, kept with the prepared
   * tables (prepared.ts) so later builds skip it. Absent: the core checks.
   */
  unmerged?: Int32Array;
}

interface BpeModelJson {
  type?: string;
  vocab: Record<string, number>;
  merges: (string | [string, string])[];
  byte_fallback?: boolean;
  ignore_merges?: boolean;
  dropout?: number | null;
  continuing_subword_prefix?: string | null;
  end_of_word_suffix?: string | null;
}

/** Pieces up to this many bytes go to tiktoken, longer ones to LongPieceBpe. */
export const LONG_PIECE_BYTES = 512;
/** A piece is memoized when it is shorter than this (in UTF-16 units). */
const MEMO_MAX_PIECE = 256;
const MEMO_ENTRIES = 1 << 18;

/** Why the fast backend cannot reproduce this tokenizer.json exactly, or undefined when it can. */
export function checkFastPipeline(json: TokenizerJson): string | undefined {
  const normalizer = checkNormalizer(json);
  if (normalizer) return normalizer;
  const pre = json.pre_tokenizer as { type?: string; pretokenizers?: Record<string, unknown>[] } | null | undefined;
  const steps = pre?.type === 'Sequence' ? pre.pretokenizers ?? [] : [];
  const [split, byteLevel] = steps;
  if (steps.length !== 2 || split?.type !== 'Split' || byteLevel?.type !== 'ByteLevel') return `pre-tokenizer ${pre?.type ?? 'none'} (only a Sequence of a Split regex and ByteLevel)`;
  const pattern = split.pattern as { Regex?: unknown } | undefined;
  if (typeof pattern?.Regex !== 'string' || split.behavior !== 'Isolated' || split.invert !== false) return 'Split pre-tokenizer is not an isolated, non-inverted regex';
  if (!plainByteLevel(byteLevel)) return 'ByteLevel pre-tokenizer adds a prefix space or splits with its own regex';
  const model = json.model as BpeModelJson | undefined;
  const flags = checkModelFlags(model);
  if (flags) return flags;
  if (model!.ignore_merges) return 'BPE with ignore_merges';
  return checkByteLevelVocabulary(model!, true) ?? checkMergesAgreeWithRanks(model!);
}

/**
 * Why the native core (native-bpe.ts) cannot reproduce this tokenizer.json's normalizer and
 * model, or undefined; its pre-tokenizer is checkNativePipeline's. The core runs the reference's
 * own merge algorithm and, without ignore_merges, looks a piece up whole only where the merges of
 * that token's bytes end in it (checked by the core itself), so the merges need not agree with
 * tiktoken's ranks as the fast backend's must.
 */
export function checkNativeModel(json: TokenizerJson): string | undefined {
  const model = json.model as BpeModelJson | undefined;
  return checkNormalizer(json) ?? checkModelFlags(model) ?? checkNativeSizes(model!) ?? checkByteLevelVocabulary(model!, false);
}

/** The native core's merge table keys a pair by two 20-bit ids and holds its rank in 24 bits (bpe_tokenizer.hpp). */
const NATIVE_MAX_IDS = 1 << 20;
const NATIVE_MAX_MERGES = (1 << 24) - 2;

function checkNativeSizes(model: BpeModelJson): string | undefined {
  let maxId = -1;
  for (const id of Object.values(model.vocab)) if (id > maxId) maxId = id;
  if (maxId >= NATIVE_MAX_IDS) return `token id ${maxId} (the native core holds ids below 2^20)`;
  if (model.merges.length > NATIVE_MAX_MERGES) return `${model.merges.length} merges (the native core holds fewer than 2^24)`;
  return undefined;
}

function checkNormalizer(json: TokenizerJson): string | undefined {
  if (!normalizerIsNfc(json.normalizer) && !normalizerIsNone(json.normalizer)) return `normalizer ${(json.normalizer as { type?: string }).type} (only NFC or none)`;
  return undefined;
}

/** A ByteLevel pre-tokenizer step that only maps bytes (no prefix space, no regex of its own). */
export function plainByteLevel(step: Record<string, unknown> | undefined): boolean {
  return step?.type === 'ByteLevel' && step.add_prefix_space === false && step.use_regex === false;
}

/** BPE without the options neither backend reproduces (ignore_merges is left to the caller). */
function checkModelFlags(model: BpeModelJson | undefined): string | undefined {
  if (model?.type !== 'BPE') return `model ${model?.type ?? 'none'} (only BPE)`;
  if (model.byte_fallback) return 'BPE with byte_fallback';
  if (model.dropout) return 'BPE with dropout';
  if (model.continuing_subword_prefix || model.end_of_word_suffix) return 'BPE with subword prefix or suffix';
  return undefined;
}

/**
 * All 256 single bytes are tokens, and each merge (a, b) makes the byte-level token a+b. `strict`:
 * every token is bytes in the byte-level alphabet; else a token that is not (DeepSeek-V3's
 * "<｜begin▁of▁sentence｜>" in its vocabulary) is allowed, since no piece and no merge reaches it.
 */
function checkByteLevelVocabulary(model: BpeModelJson, strict: boolean): string | undefined {
  const vocab = model.vocab;
  if (strict) for (const token in vocab) if (tokenBytes(token) === undefined) return `vocabulary token ${JSON.stringify(token)} is not byte-level`;
  for (const c of BYTE_TO_CHAR) if (!Object.hasOwn(vocab, c)) return 'a single-byte token is missing';
  for (const [a, b] of parseMerges(model.merges)) {
    if (!Object.hasOwn(vocab, a) || !Object.hasOwn(vocab, b) || !Object.hasOwn(vocab, a + b)) return `merge "${a} ${b}" makes no vocabulary token`;
    if (tokenBytes(a + b) === undefined) return `merge "${a} ${b}" makes a token that is not byte-level`;
  }
  return undefined;
}

/**
 * tiktoken and the reference give the same ids when (1) every token is bytes in the byte-level
 * alphabet, with all 256 single bytes present (checkByteLevelVocabulary); (2) each merge (a, b)
 * makes the token a+b, each
 * multi-byte token is made by exactly one merge, and the made token's id grows with the merge
 * index, so "lowest merge index" and "lowest rank" order pairs alike; (3) the merge recorded
 * for each token is the split tiktoken reaches on that token's own bytes with the lower ranks,
 * so every pair tiktoken merges is a listed merge (both break ties leftmost).
 */
function checkMergesAgreeWithRanks(model: BpeModelJson): string | undefined {
  const vocab = new Map(Object.entries(model.vocab));
  const merges = parseMerges(model.merges);
  let lastId = -1;
  const made = new Set<number>();
  for (const [a, b] of merges) {
    const id = vocab.get(a + b)!;
    if (id <= lastId) return `merge "${a} ${b}" is out of rank order (id ${id} after ${lastId})`;
    lastId = id;
    made.add(id);
  }
  for (const [token, id] of vocab) if (token.length > 1 && !made.has(id)) return `token ${JSON.stringify(token)} is made by no merge`;
  for (const [a, b] of merges) {
    const split = rankSplit(a + b, vocab);
    if (split[0] !== a || split[1] !== b) return `merge "${a} ${b}" is not what rank order reaches ("${split.join(' ')}")`;
  }
  return undefined;
}

/** tiktoken's merging of one token's bytes with only the ranks below its own: the last two parts. */
function rankSplit(token: string, vocab: Map<string, number>): string[] {
  const limit = vocab.get(token)!;
  const parts = Array.from(token);
  const rankOf = (i: number) => {
    const r = vocab.get(parts[i]! + parts[i + 1]!);
    return r !== undefined && r < limit ? r : Infinity;
  };
  // ranks[i] is the rank of parts[i] + parts[i + 1]; only a merge's neighbours change.
  const ranks: number[] = [];
  for (let i = 0; i + 1 < parts.length; i++) ranks.push(rankOf(i));
  for (;;) {
    let best = -1;
    let bestRank = Infinity;
    for (let i = 0; i < ranks.length; i++) {
      if (ranks[i]! < bestRank) {
        bestRank = ranks[i]!;
        best = i;
      }
    }
    if (best < 0) return parts;
    parts.splice(best, 2, parts[best]! + parts[best + 1]!);
    ranks.splice(best, 1);
    if (best < ranks.length) ranks[best] = rankOf(best);
    if (best > 0) ranks[best - 1] = rankOf(best - 1);
  }
}

/**
 * The tables FastBpe and the native core are built from (the JSON must have passed
 * checkFastPipeline or checkNativeModel). A token that is not byte-level has length 0 and no
 * bytes; tiktoken's ranks are left empty then (only the native core runs such a tokenizer).
 */
export function fastTables(json: TokenizerJson): FastTables {
  const model = json.model as BpeModelJson;
  const vocab = new Map(Object.entries(model.vocab));
  let maxId = 0;
  for (const id of vocab.values()) maxId = Math.max(maxId, id);
  const byteLens = new Int32Array(maxId + 1);
  const byId: (Uint8Array | undefined)[] = [];
  let byteLevel = true;
  for (const [token, id] of vocab) {
    byId[id] = tokenBytes(token);
    byteLevel &&= byId[id] !== undefined;
    byteLens[id] = byId[id]?.length ?? 0;
  }
  const allBytes = new Uint8Array(byteLens.reduce((a, b) => a + b, 0));
  let at = 0;
  for (const bytes of byId) {
    if (!bytes) continue;
    allBytes.set(bytes, at);
    at += bytes.length;
  }
  const byteIds = Int32Array.from(BYTE_TO_CHAR, (c) => vocab.get(c)!);
  const merges = parseMerges(model.merges);
  const pairs = new Int32Array(3 * merges.length);
  merges.forEach(([a, b], i) => {
    pairs[3 * i] = vocab.get(a)!;
    pairs[3 * i + 1] = vocab.get(b)!;
    pairs[3 * i + 2] = vocab.get(a + b)!;
  });
  return { ranks: byteLevel ? tiktokenRanks(model.vocab) : '', byteLens, byteIds, pairs, tokenBytes: allBytes };
}

function parseMerges(merges: BpeModelJson['merges']): [string, string][] {
  return merges.map((m) => (Array.isArray(m) ? m : (m.split(' ', 2) as [string, string])));
}

export class FastBpe {
  private readonly core: Tiktoken;
  private readonly byteLens: Int32Array;
  /** The reference's Split regex (global), and the same regex sticky: see encodeInto. */
  private readonly pattern: RegExp;
  private readonly sticky: RegExp;
  private readonly encoder = new TextEncoder();
  private readonly memo = new PieceMemo(MEMO_ENTRIES);
  /** The vocabulary's tokens as pieces (vocabularyMemo), looked up before `memo`: often another thread's, read-only. */
  private readonly vocabulary: PieceMemo;
  private long: LongPieceBpe | undefined;
  private readonly makeLong: () => LongPieceBpe;

  /**
   * From the tables of a tokenizer.json that passed checkFastPipeline; `parts` is that JSON (its
   * vocabulary is not read). `vocabulary`: vocabularyMemo(tables), when the caller shares one
   * between threads; else it is built here.
   */
  constructor(parts: TokenizerJson, tables: FastTables, vocabulary?: PieceMemo) {
    this.byteLens = tables.byteLens;
    this.vocabulary = vocabulary ?? vocabularyMemo(tables);
    // A pattern that matches the whole input: the pieces are already split.
    this.core = new (loadTiktoken())(tables.ranks, {}, '[\\s\\S]+');
    this.pattern = referencePattern(parts);
    this.sticky = new RegExp(this.pattern.source, this.pattern.flags.replace('g', '') + 'y');
    this.makeLong = () => new LongPieceBpe(tables.byteIds, tables.pairs);
  }

  /**
   * Tokenizes `text` (already normalized) into `out`, each token's range offset by `base`,
   * mapped through `map` when normalization changed the text.
   *
   * The pieces are the reference's: its matches, and the gaps between them. Where the sticky
   * regex matches at the search position, the global one finds that same match (it tries that
   * position first, with the same backtracking), so the sticky `test`, which builds no match
   * array, gives the piece; only elsewhere (a gap, an empty match) is the global `exec` run.
   */
  encodeInto(text: string, out: TokenBuffer, base: number, map: ((n: number, roundUp: boolean) => number) | null): void {
    const sticky = this.sticky;
    let prev = 0;
    let pos = 0;
    for (;;) {
      let start = pos;
      let end: number;
      sticky.lastIndex = pos;
      if (sticky.test(text)) end = sticky.lastIndex;
      else {
        this.pattern.lastIndex = pos;
        const m = this.pattern.exec(text);
        if (!m) break;
        start = m.index;
        end = start + m[0].length;
      }
      if (start > prev) this.piece(text, prev, start, out, base, map);
      if (end > start) {
        this.piece(text, start, end, out, base, map);
        pos = end;
      } else pos = end + codeUnitsAt(text, end); // an empty match: step over one character, as matchAll does
      prev = end;
    }
    if (prev < text.length) this.piece(text, prev, text.length, out, base, map);
  }

  /** The tokens of piece text[a, b) appended to `out`, from the memo when it has them. */
  private piece(text: string, a: number, b: number, out: TokenBuffer, base: number, map: ((n: number, roundUp: boolean) => number) | null): void {
    const memoized = b - a < MEMO_MAX_PIECE;
    const h = memoized ? hashRange(text, a, b) : 0;
    let memo = this.vocabulary;
    let r = memoized ? memo.find(text, a, b, h) : -1;
    if (r < 0 && memoized) r = (memo = this.memo).find(text, a, b, h);
    if (r >= 0) {
      const pool = memo.pool;
      const n = memo.count(r);
      const at = memo.idsAt(r);
      out.reserve(n);
      const { ids, starts, ends } = out;
      let k = out.length;
      for (let i = 0; i < n; i++, k++) {
        const range = pool[at + n + i]!;
        const s = a + (range & 0xffff);
        const t = a + (range >>> 16);
        ids[k] = pool[at + i]!;
        starts[k] = base + (map ? map(s, false) : s);
        ends[k] = base + (map ? map(t, true) : t);
      }
      out.length = k;
      return;
    }
    const enc = this.pieceTokens(text.slice(a, b));
    const n = enc.length / 3;
    if (memoized) this.memo.add(text, a, b, h, n, enc, enc.subarray(n, 2 * n), enc.subarray(2 * n));
    out.reserve(n);
    const { ids, starts, ends } = out;
    let k = out.length;
    for (let i = 0; i < n; i++, k++) {
      const s = a + enc[n + i]!;
      const t = a + enc[2 * n + i]!;
      ids[k] = enc[i]!;
      starts[k] = base + (map ? map(s, false) : s);
      ends[k] = base + (map ? map(t, true) : t);
    }
    out.length = k;
  }

  /** [ids..., starts..., ends...] of one piece, starts and ends in UTF-16 units of the piece. */
  private pieceTokens(p: string): Int32Array {
    // Most pieces are short: their UTF-8 length is counted, not encoded (tiktoken encodes them
    // itself). Buffer.byteLength counts an unpaired surrogate as TextEncoder writes it: U+FFFD.
    const byteLength = Buffer.byteLength(p, 'utf8');
    if (byteLength > MAX_PIECE_BYTES) throw new TokenizeLimitError('piece_too_long', `one pre-tokenized piece of ${byteLength} bytes (limit ${MAX_PIECE_BYTES})`);
    const ids = byteLength > LONG_PIECE_BYTES ? (this.long ??= this.makeLong()).encode(this.encoder.encode(p)) : this.core.encode_ordinary(p);
    const n = ids.length;
    const enc = new Int32Array(3 * n);
    const lens = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      enc[i] = ids[i]!;
      lens[i] = this.byteLens[ids[i]!]!;
    }
    tokenCharRanges(p, lens, enc.subarray(n, 2 * n), enc.subarray(2 * n), 0);
    return enc;
  }
}

/**
 * Every vocabulary token whose bytes are UTF-8 text, as a memo entry keyed by that text: a piece
 * equal to a token's text is that one token. tiktoken returns such a piece from its vocabulary as
 * it is, and checkFastPipeline proves the reference merges it to the same token (each token's own
 * bytes merge back to it with the lower ranks). Most pieces of real text are single tokens, so a
 * worker finds them here from its first document on, and when the pool shares this memo between
 * its workers (`shared`), they read one copy of it, not one each.
 */
export function vocabularyMemo(tables: FastTables, shared = false): PieceMemo {
  const entries: { text: string; id: number }[] = [];
  let ints = 0;
  for (const line of tables.ranks.split('\n')) {
    const space = line.indexOf(' ');
    if (space < 0) continue;
    let text: string;
    try {
      text = fatalUtf8.decode(Buffer.from(line.slice(0, space), 'base64'));
    } catch {
      continue; // part of a character: no piece of valid text is this token alone
    }
    if (text.length === 0 || text.length >= MEMO_MAX_PIECE) continue;
    entries.push({ text, id: Number(line.slice(space + 1)) });
    ints += 4 + ((text.length + 1) >> 1);
  }
  const memo = new PieceMemo(Math.max(1, entries.length), { poolInts: Math.max(4, ints), shared });
  for (const { text, id } of entries) memo.add(text, 0, text.length, hashRange(text, 0, text.length), 1, [id], [0], [text.length]);
  return memo;
}

/**
 * The Split regex as @huggingface/tokenizers compiles it (it rewrites \s, (?i:...) ...), with
 * its Unicode classes as the Rust reference's (referenceRegex).
 */
function referencePattern(json: TokenizerJson): RegExp {
  const tiny = new (hfTokenizerClass())({ ...json, added_tokens: [], model: { type: 'BPE', vocab: {}, merges: [] } } as never, {} as never);
  const pre = (tiny as unknown as { pre_tokenizer?: { tokenizers?: { pattern?: unknown }[] } }).pre_tokenizer;
  const pattern = pre?.tokenizers?.[0]?.pattern;
  if (!(pattern instanceof RegExp) || !pattern.global) throw new Error('fast tokenizer backend: the reference did not compile the Split regex');
  const { regex, reason } = referenceRegex(pattern);
  if (reason) throw new Error(`fast tokenizer backend: the Split regex's classes cannot be written as the reference's (${reason})`);
  return regex;
}

function codeUnitsAt(text: string, i: number): number {
  const c = text.codePointAt(i);
  return c !== undefined && c >= 0x10000 ? 2 : 1;
}
