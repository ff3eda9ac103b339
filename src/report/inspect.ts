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
export function renderBin(bin: BinRow, tokenizer: MidTokenizer, n: number, color: boolean): string {
  const out: string[] = [];
  const seqLen = bin.inputIds.length;
  const used = bin.docLens.reduce((s, x) => s + x, 0);
  let masked = 0;
  for (let i = 0; i < used; i++) masked += 1 - bin.lossMask[i]!;
  out.push(`bin ${n}: ${bin.docLens.length} units, ${used} tokens + ${seqLen - used} padding = ${seqLen}; ${masked} tokens masked`);
  const [open, close] = color ? ['\x1b[2;33m', '\x1b[0m'] : ['⟦', '⟧'];
  let at = 0;
  bin.docLens.forEach((len, u) => {
    const offset = bin.docOffsets[u] ?? 0;
    out.push(`──── unit ${u + 1}/${bin.docLens.length}  id=${escapeControls(bin.docIds[u] ?? '')}  kind=${escapeControls(bin.docKinds[u] ?? '')}  tokens=${len}${offset ? `  (continues its document from token ${offset})` : ''}`);
    let text = '';
    let runStart = at;
    for (let i = at; i <= at + len; i++) {
      if (i === at + len || bin.lossMask[i] !== bin.lossMask[runStart]) {
        const piece = escapeControls(tokenizer.decode(bin.inputIds.subarray(runStart, i)));
        text += bin.lossMask[runStart] === 0 ? `${open}${piece}${close}` : piece;
        runStart = i;
      }
    }
    out.push(text);
    at += len;
  });
  out.push(`──── padding: ${seqLen - used} tokens (id ${bin.inputIds[seqLen - 1] ?? ''})`);
  return out.join('\n');
}
