import type { Doc } from '../doc/document.js';
import { decodeLine, type LineBatch, type Line } from '../io/lines.js';
import { jsonlLine } from '../io/jsonl.js';
import { rowToDoc } from '../io/documents.js';
import { inputOwns, ownedBy, type RankInfo } from '../core/ranks.js';
import { untokenizable, type AsciiLiteral } from './encode.js';
import { nativeBinding } from '../pack/packer.js';

/** A batch of JSONL lines for a worker to read, decode, parse and tokenize (TokenizePool.mapLines). */
export interface LineBatchJob extends LineBatch {
  file: string;
  /** The file's name in the rank partition's keys (ReadDocumentsOptions.nameOf). */
  name: string;
  /** The row field holding the text, when it is not `text`. */
  textField?: string;
  /** Lines of other ranks are not this rank's records. */
  rank?: RankInfo;
}

/** One record of a batch, in input order: dropped (counted under its reason), or a document to tokenize. */
export type LineOutcome = { drop: string; message: string } | { doc: Doc };

/**
 * The records of a batch of JSONL lines, read exactly as readDocuments and the pack job's checks
 * read them on the main thread (the same functions: jsonlLine, rowToDoc, untokenizable), so the
 * ledger counts the same records under the same reasons with the same messages. `records` counts
 * the lines that are records (not blank, this rank's).
 */
export function docsOfLines(job: LineBatchJob, readLiterals = false): { records: number; outcomes: LineOutcome[]; docs: Doc[]; literals: (AsciiLiteral | undefined)[] } {
  const owns = job.rank ? inputOwns(ownedBy(job.rank), job.name) : undefined;
  const outcomes: LineOutcome[] = [];
  const docs: Doc[] = [];
  const literals: (AsciiLiteral | undefined)[] = [];
  let records = 0;
  let at = 0;
  // Buffer's indexOf is memchr; a Uint8Array's walks byte by byte in V8's builtin: 41-44 ms
  // against 11-18 over the e2e corpus's 105 MB of lines, on a worker's critical path.
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  for (let i = 0; i < job.lines; i++) {
    const lineNo = job.firstLineNo + i;
    let line: Line;
    if (job.tooLong !== undefined) line = { lineNo, text: null, error: 'line_too_long', bytes: job.tooLong };
    else {
      const nl = bytes.indexOf(0x0a, at);
      const raw = job.bytes.subarray(at, nl);
      at = nl + 1;
      const read = readLiterals ? literalRecord(job, lineNo, raw, owns) : undefined;
      if (read === null) continue; // another rank's line
      if (read) {
        records++;
        outcomes.push({ doc: read.doc });
        docs.push(read.doc);
        if (read.literal) literals[docs.length - 1] = read.literal;
        continue;
      }
      const text = decodeLine(raw);
      line = text === null ? { lineNo, text, error: 'invalid_utf8', bytes: raw.length } : { lineNo, text, bytes: raw.length };
    }
    const r = jsonlLine(job.file, line, owns);
    if (r === undefined) continue;
    records++;
    if ('drop' in r) {
      outcomes.push(r);
      continue;
    }
    const doc = rowToDoc(r.value, `${job.file}:${lineNo}`, job.file, job.textField);
    const dropped = 'drop' in doc ? doc : untokenizable(doc);
    if (dropped) outcomes.push(dropped);
    else {
      outcomes.push({ doc: doc as Doc });
      docs.push(doc as Doc);
    }
  }
  return { records, outcomes, docs, literals };
}

const bounds = new Float64Array(2);

/**
 * A line read around its text field's JSON string literal: the rest of the line is parsed with
 * the literal replaced by "x", and the text is read from the literal's bytes by the native core.
 * A text of ASCII characters without spans stays those bytes (the document keeps the literal, its
 * text empty); any other text is made a string natively (jsonTextString: what JSON.parse of the
 * decoded line gives, without decoding and parsing the whole line), and the document is read
 * from the record as docsOfLines reads it. Its record is the one docsOfLines reads the usual way,
 * since JSON.parse checks the rest of the line and the native reader the literal (valid JSON,
 * valid UTF-8). undefined when the line is to be read the usual way: no such field, an empty
 * text, any drop (its message is the usual one), a literal the native reader refuses; null for
 * another rank's line.
 */
function literalRecord(job: LineBatchJob, lineNo: number, raw: Uint8Array, owns: ((key: string) => boolean) | undefined): { doc: Doc; literal?: AsciiLiteral } | null | undefined {
  const native = nativeBinding();
  const field = job.textField ?? 'text';
  bounds.fill(-1);
  const length = native.jsonAsciiText(raw, field, bounds);
  if (length === 0 || bounds[0]! < 0) return undefined;
  const [from, to] = bounds as unknown as [number, number];
  const head = decodeLine(raw.subarray(0, from));
  const tail = decodeLine(raw.subarray(to));
  if (head === null || tail === null) return undefined;
  const r = jsonlLine(job.file, { lineNo, text: `${head}"x"${tail}`, bytes: raw.length }, owns);
  if (r === undefined) return null;
  if ('drop' in r) return undefined;
  // An object: the native reader found the field at its top level.
  const value = r.value as Record<string, unknown>;
  if (length > 0 && value.special_spans === undefined && value.loss_mask_spans === undefined) {
    const doc = rowToDoc(value, `${job.file}:${lineNo}`, job.file, job.textField);
    if ('drop' in doc) return undefined;
    doc.text = '';
    return { doc, literal: { bytes: raw.subarray(from, to), length } };
  }
  const text = native.jsonTextString?.(raw, from, to);
  if (text === undefined) return undefined;
  value[field] = text;
  const doc = rowToDoc(value, `${job.file}:${lineNo}`, job.file, job.textField);
  if ('drop' in doc || untokenizable(doc)) return undefined;
  return { doc };
}
