/**
 * The document model: what every stage reads and writes, one JSON object per JSONL line.
 *
 * Offsets (`loss_mask_spans`, `special_spans`) are [start, end) in UTF-16 code units,
 * the way JavaScript strings index them.
 */
export const DOC_KINDS = ['repo', 'web', 'fim', 'sr', 'edit', 'text', 'trajectory', 'qa'] as const;
export type DocKind = (typeof DOC_KINDS)[number];

export type Span = [number, number];

export interface Doc {
  /** Stable id: derived from the seed and the document's identity, never from arrival order. */
  id: string;
  kind: DocKind;
  /** Where it came from: a file path, a repository name, a URL. */
  source: string;
  text: string;
  meta: Record<string, unknown>;
  /** Character ranges kept in the context but excluded from the loss. Sorted, non-overlapping. */
  loss_mask_spans?: Span[];
  /**
   * Character ranges that a stage wrote on purpose as special tokens (`<|file_sep|>` ...).
   * Only these become single special ids; the same strings anywhere else in `text` are
   * tokenized as ordinary text, so source code that mentions a marker cannot inject one.
   */
  special_spans?: Span[];
}

/** A malformed record: the reader names the file and line, the ledger counts the reason. */
export class RecordError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'RecordError';
  }
}

function isSpanList(v: unknown, textLength: number): v is Span[] {
  if (!Array.isArray(v)) return false;
  let prevEnd = 0;
  for (const s of v) {
    if (!Array.isArray(s) || s.length !== 2) return false;
    const [a, b] = s;
    if (!Number.isInteger(a) || !Number.isInteger(b) || a < prevEnd || b < a || b > textLength) return false;
    prevEnd = b;
  }
  return true;
}

/**
 * Turns a parsed JSON value into a Doc, filling defaults for the optional fields.
 * `fallbackId` is used when the record has no id (callers derive it from source + position).
 */
export function toDoc(value: unknown, fallbackId: string, fallbackSource: string): Doc {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new RecordError('not_an_object', 'record is not a JSON object');
  }
  const r = value as Record<string, unknown>;
  if (typeof r.text !== 'string') {
    throw new RecordError('missing_text', r.text === undefined ? 'record has no "text" field' : '"text" is not a string');
  }
  const kind = r.kind === undefined ? 'text' : r.kind;
  if (typeof kind !== 'string' || !(DOC_KINDS as readonly string[]).includes(kind)) {
    throw new RecordError('bad_kind', `"kind" must be one of ${DOC_KINDS.join(', ')}`);
  }
  const meta = r.meta === undefined ? {} : r.meta;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
    throw new RecordError('bad_meta', '"meta" must be an object');
  }
  const doc: Doc = {
    id: r.id === undefined ? fallbackId : String(r.id),
    kind: kind as DocKind,
    source: typeof r.source === 'string' ? r.source : fallbackSource,
    text: r.text,
    meta: meta as Record<string, unknown>,
  };
  for (const key of ['loss_mask_spans', 'special_spans'] as const) {
    if (r[key] === undefined) continue;
    if (!isSpanList(r[key], r.text.length)) {
      throw new RecordError('bad_spans', `"${key}" must be sorted, non-overlapping [start, end) pairs inside the text`);
    }
    doc[key] = r[key] as Span[];
  }
  return doc;
}

/** The JSONL form of a document, with a fixed key order so reruns write identical bytes. */
export function docToJson(doc: Doc): string {
  const o: Record<string, unknown> = { id: doc.id, kind: doc.kind, source: doc.source, text: doc.text, meta: doc.meta };
  if (doc.loss_mask_spans && doc.loss_mask_spans.length) o.loss_mask_spans = doc.loss_mask_spans;
  if (doc.special_spans && doc.special_spans.length) o.special_spans = doc.special_spans;
  return JSON.stringify(o);
}
