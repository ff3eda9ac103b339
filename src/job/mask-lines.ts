import type { Doc, Span } from '../doc/document.js';
import { Ledger } from '../core/ledger.js';
import { nativeBinding } from '../pack/packer.js';
import { openBytes, readLineBatches } from '../io/lines.js';
import { readDocumentFile, rowToDoc } from '../io/documents.js';
import { Masking, type ApplyOptions, type FrequentSegments, type MaskedDocHead } from '../stages/mask/apply.js';
import { paramsOf } from '../stages/mask/counts-file.js';
import { mergeSpans } from '../stages/mask/spans.js';
import { LineText, loadSegmenter } from '../stages/mask/segments.js';
import { untokenizable } from '../tokenize/encode.js';

/** A document of the masking pass: its id, whether it is tokenized, and its final loss-mask spans (its own and masking's). */
export interface MaskedLine {
  id: string;
  tokenizable: boolean;
  spans: Span[];
}

/**
 * maskApply over a run's own docs.jsonl (mask-worker.ts), read line by line without making the
 * text a JS string: the native core finds the text's literal in the line (jsonAsciiText's
 * bounds), the rest of the line (id, kind, source, meta, spans: a few hundred bytes) is parsed
 * with an empty text, and the text is unescaped and segmented in one native call
 * (jsonTextSegments). Decoding each line's UTF-8 and parsing its JSON were over half of the pass.
 * The same spans, figures and ledger (an input and an output a document) as maskApply over
 * readDocumentFile; a line the core does not read is parsed as before.
 */
export async function* maskLines(file: string, frequent: FrequentSegments, options: ApplyOptions, ledger: Ledger, stats: Record<string, unknown>): AsyncIterable<MaskedLine> {
  const native = nativeBinding();
  if (!native.jsonTextSegments) {
    yield* maskParsed(file, frequent, options, ledger, stats);
    return;
  }
  const masking = new Masking(frequent, options);
  const segment = loadSegmenter(paramsOf(frequent.header));
  const minChars = paramsOf(frequent.header).min_chars;
  const bounds = new Float64Array(2);
  const text = new Float64Array(2);
  const spare: Uint8Array[] = [];
  for await (const b of readLineBatches(openBytes(file), 1, undefined, spare)) {
    // A line over the reader's limit, blank, or not a document: readDocumentFile drops it in a ledger of its own (mask-worker's before).
    if (b.tooLong !== undefined) continue;
    const line = Buffer.from(b.bytes.buffer, b.bytes.byteOffset, b.bytes.length - 1); // without the newline the batch adds
    if (isBlank(line)) continue;
    bounds.fill(-1);
    native.jsonAsciiText(line, 'text', bounds);
    const head = bounds[0]! >= 0 ? headOf(line, bounds[0]!, bounds[1]!) : undefined;
    const found = head && native.jsonTextSegments(line, bounds[0]!, bounds[1]!, head.special_spans?.length ? Uint32Array.from(head.special_spans.flat()) : undefined, minChars, text);
    let out: MaskedLine;
    if (head && found) {
      ledger.input();
      // One reader a line: its cursor walks the line once for the samples, in the order of their lines.
      let lineText: LineText | undefined;
      const spans = masking.mask(head, text[0]!, found, (start, end) => (lineText ??= new LineText(line, () => parsedLine(line, file, b.firstLineNo) as Doc)).slice(start, end));
      out = { id: head.id, tokenizable: text[0]! > 0 && text[1] === 1, spans: withOwn(head.loss_mask_spans, spans) };
    } else {
      const doc = parsedLine(line, file, b.firstLineNo);
      if (!('text' in doc)) continue;
      ledger.input();
      const spans = masking.mask(doc, doc.text.length, segment(doc), (start, end) => doc.text.slice(start, end));
      out = { id: doc.id, tokenizable: !untokenizable(doc), spans: withOwn(doc.loss_mask_spans, spans) };
    }
    if (b.bytes.buffer.byteLength <= 1 << 20) spare.push(new Uint8Array(b.bytes.buffer));
    ledger.output();
    yield out;
  }
  stats.mask = masking.stats();
}

type LineHead = MaskedDocHead & { id: string; loss_mask_spans?: Span[] };

/** The line's record but its text (the literal line[from, to) read as ""): docToJson's fields, as the run wrote them. */
function headOf(line: Buffer, from: number, to: number): LineHead | undefined {
  const r = JSON.parse(line.toString('utf8', 0, from) + '""' + line.toString('utf8', to)) as Record<string, unknown>;
  if (typeof r.id !== 'string' || typeof r.kind !== 'string' || typeof r.source !== 'string') return undefined;
  return { id: r.id, kind: r.kind as LineHead['kind'], source: r.source, loss_mask_spans: r.loss_mask_spans as Span[] | undefined, special_spans: r.special_spans as Span[] | undefined };
}

/** The line's document as readDocumentFile reads it, or why it drops it. */
function parsedLine(line: Buffer, file: string, lineNo: number): Doc | { drop: string } {
  const where = `${file}:${lineNo}`;
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    return { drop: 'bad_json' };
  }
  return rowToDoc(value, where, file);
}

/** A document's final spans: its own as they are when masking adds none (maskApply yields it unchanged then), else both merged. */
function withOwn(own: Span[] | undefined, masked: Span[]): Span[] {
  return masked.length ? mergeSpans(own ?? [], masked) : (own ?? []);
}

/** A line readDocumentFile skips (blank or only whitespace). */
function isBlank(line: Buffer): boolean {
  if (line.length > 64) return false;
  return line.toString('utf8').trim() === '';
}

/** Without the native core's readers: maskApply's own loop over the parsed documents. */
async function* maskParsed(file: string, frequent: FrequentSegments, options: ApplyOptions, ledger: Ledger, stats: Record<string, unknown>): AsyncIterable<MaskedLine> {
  const masking = new Masking(frequent, options);
  const segment = loadSegmenter(paramsOf(frequent.header));
  for await (const doc of readDocumentFile(file, new Ledger())) {
    ledger.input();
    const spans = masking.mask(doc, doc.text.length, segment(doc), (start, end) => doc.text.slice(start, end));
    ledger.output();
    yield { id: doc.id, tokenizable: !untokenizable(doc), spans: withOwn(doc.loss_mask_spans, spans) };
  }
  stats.mask = masking.stats();
}
