import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecordBatchReader } from 'apache-arrow';
import type { MidTokenizer } from '../tokenize/tokenizer.js';

export interface BinRow {
  inputIds: Int32Array;
  lossMask: Uint8Array;
  docLens: Int32Array;
  docIds: string[];
  docKinds: string[];
  docOffsets: Int32Array;
}

/** Reads row `n` of a pack output's Arrow shards (streaming: one record batch at a time). */
export async function readBin(outDir: string, n: number): Promise<BinRow> {
  const manifestPath = join(outDir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new Error(`${outDir}: no manifest.json (is it a midpack pack output?)`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { shards: { filename: string; rows: number }[] };
  let row = n;
  for (const shard of manifest.shards) {
    if (row >= shard.rows) {
      row -= shard.rows;
      continue;
    }
    const reader = await RecordBatchReader.from(createReadStream(join(outDir, 'shards', shard.filename)));
    for await (const batch of reader) {
      if (row >= batch.numRows) {
        row -= batch.numRows;
        continue;
      }
      const get = (name: string) => batch.getChild(name)?.get(row);
      const arr = <T>(v: unknown, f: (x: ArrayLike<number>) => T): T => f((v as { toArray(): ArrayLike<number> }).toArray());
      return {
        inputIds: arr(get('input_ids'), (x) => Int32Array.from(x)),
        lossMask: arr(get('loss_mask'), (x) => Uint8Array.from(x)),
        docLens: arr(get('doc_lens'), (x) => Int32Array.from(x)),
        docIds: Array.from((get('doc_ids') as { toArray(): string[] }).toArray()),
        docKinds: get('doc_kinds') ? Array.from((get('doc_kinds') as { toArray(): string[] }).toArray()) : [],
        docOffsets: get('doc_offsets') ? arr(get('doc_offsets'), (x) => Int32Array.from(x)) : new Int32Array(0),
      };
    }
  }
  const total = manifest.shards.reduce((s, x) => s + x.rows, 0);
  throw new Error(`bin ${n} does not exist: ${outDir} has ${total} bins (0..${total - 1})`);
}

/** What `inspect` shows of a bin: which units (1-based, all by default), and at most how many tokens of each (0: all). */
export interface InspectOptions {
  units?: ReadonlySet<number>;
  maxTokens?: number;
  color?: boolean;
}

export interface InspectedUnit {
  unit: number;
  id: string;
  kind: string;
  tokens: number;
  /** Where the unit starts in its document (0: at its start). */
  offset: number;
  masked_tokens: number;
  /** The decoded text of the first `shown_tokens` tokens, masked runs marked. */
  shown_tokens: number;
  text: string;
}

export interface InspectedBin {
  bin: number;
  seq_len: number;
  units: number;
  tokens: number;
  padding_tokens: number;
  pad_id: number | null;
  masked_tokens: number;
  shown: InspectedUnit[];
}

/** The bin as data: per unit its figures and the text of its first `maxTokens` tokens. */
export function inspectBin(bin: BinRow, tokenizer: MidTokenizer, n: number, o: InspectOptions = {}): InspectedBin {
  const seqLen = bin.inputIds.length;
  const used = bin.docLens.reduce((s, x) => s + x, 0);
  const [open, close] = o.color ? ['\x1b[2;33m', '\x1b[0m'] : ['⟦', '⟧'];
  const shown: InspectedUnit[] = [];
  let at = 0;
  let masked = 0;
  bin.docLens.forEach((len, u) => {
    let unitMasked = 0;
    for (let i = at; i < at + len; i++) unitMasked += 1 - bin.lossMask[i]!;
    masked += unitMasked;
    if (!o.units || o.units.has(u + 1)) {
      const show = o.maxTokens ? Math.min(len, o.maxTokens) : len;
      shown.push({ unit: u + 1, id: bin.docIds[u] ?? '', kind: bin.docKinds[u] ?? '', tokens: len, offset: bin.docOffsets[u] ?? 0, masked_tokens: unitMasked, shown_tokens: show, text: decodeMarked(bin, tokenizer, at, at + show, open, close) });
    }
    at += len;
  });
  return { bin: n, seq_len: seqLen, units: bin.docLens.length, tokens: used, padding_tokens: seqLen - used, pad_id: used < seqLen ? bin.inputIds[seqLen - 1]! : null, masked_tokens: masked, shown };
}

/** Tokens [from, to) decoded, each masked run between `open` and `close`. */
function decodeMarked(bin: BinRow, tokenizer: MidTokenizer, from: number, to: number, open: string, close: string): string {
  let text = '';
  let runStart = from;
  for (let i = from; i <= to; i++) {
    if (i === to || bin.lossMask[i] !== bin.lossMask[runStart]) {
      if (i > runStart) {
        const piece = escapeControls(tokenizer.decode(bin.inputIds.subarray(runStart, i)));
        text += bin.lossMask[runStart] === 0 ? `${open}${piece}${close}` : piece;
      }
      runStart = i;
    }
  }
  return text;
}

/**
 * Control characters of the data shown as escapes (`\x1b`, `\r`, `\u202e`), so a bin can
 * never drive the terminal: no ANSI colours, OSC titles or links, carriage-return overwrites,
 * or bidirectional overrides. Newlines and tabs stay as they are.
 */
export function escapeControls(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    if (c === '\r') return '\\r';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * One bin as a person should check it: each unit under a header line, the text the model
 * sees, masked runs between ⟦ ⟧ (or dimmed on a terminal), and the padding counted.
 */
export function renderBin(bin: BinRow, tokenizer: MidTokenizer, n: number, o: InspectOptions = {}): string {
  const b = inspectBin(bin, tokenizer, n, o);
  const out = [`bin ${n}: ${b.units} units, ${b.tokens} tokens + ${b.padding_tokens} padding = ${b.seq_len}; ${b.masked_tokens} tokens masked`];
  for (const u of b.shown) {
    out.push(`──── unit ${u.unit}/${b.units}  id=${escapeControls(u.id)}  kind=${escapeControls(u.kind)}  tokens=${u.tokens}${u.offset ? `  (continues its document from token ${u.offset})` : ''}`);
    out.push(u.text + (u.shown_tokens < u.tokens ? `\n… ${u.tokens - u.shown_tokens} more tokens (--max-tokens 0 shows all)` : ''));
  }
  if (b.shown.length < b.units) out.push(`──── ${b.units - b.shown.length} more units not shown (--docs)`);
  out.push(`──── padding: ${b.padding_tokens} tokens (id ${b.pad_id ?? ''})`);
  return out.join('\n');
}
