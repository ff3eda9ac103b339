import type { Doc } from '../doc/document.js';
import { decodeLine, type LineBatch, type Line } from '../io/lines.js';
import { jsonlLine } from '../io/jsonl.js';
import { rowToDoc } from '../io/documents.js';
import { inputOwns, ownedBy, type RankInfo } from '../core/ranks.js';
import { untokenizable } from './encode.js';

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
export function docsOfLines(job: LineBatchJob): { records: number; outcomes: LineOutcome[]; docs: Doc[] } {
  const owns = job.rank ? inputOwns(ownedBy(job.rank), job.name) : undefined;
  const outcomes: LineOutcome[] = [];
  const docs: Doc[] = [];
  let records = 0;
  let at = 0;
  for (let i = 0; i < job.lines; i++) {
    const lineNo = job.firstLineNo + i;
    let line: Line;
    if (job.tooLong !== undefined) line = { lineNo, text: null, error: 'line_too_long', bytes: job.tooLong };
    else {
      const nl = job.bytes.indexOf(0x0a, at);
      const raw = job.bytes.subarray(at, nl);
      at = nl + 1;
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
  return { records, outcomes, docs };
}
