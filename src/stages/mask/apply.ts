import type { Doc, Span } from '../../doc/document.js';
import type { Stage } from '../../core/stage.js';
import { addSpan } from '../../doc/text-builder.js';
import { byFrequency, paramsOf, readCountsHeader, readSamples, RecordCursor, type CountsHeader } from './counts-file.js';
import { HashTable } from './hash-table.js';
import { hashHex, loadSegmenter, sampleText, SEGMENT_WORDS } from './segments.js';
import { mergeSpans, spanChars } from './spans.js';

export interface ThresholdOptions {
  /** A segment is masked when at least this many documents contain it. */
  minDocs?: number;
  /** ... and at least this fraction of the counted documents. */
  minFrac?: number;
}

export const DEFAULT_MIN_DOCS = 5;
export const DEFAULT_MIN_FRAC = 0.005;

/** The frequent segments of a counts file: only those are loaded, with their document counts. */
export interface FrequentSegments {
  header: CountsHeader;
  threshold: number;
  table: HashTable;
  samples: Map<string, string>;
}

/**
 * The document-count threshold: max(minDocs, ceil(minFrac × documents)), and never below
 * 2, since a segment that only one document has is not repeated across the corpus.
 */
export function thresholdFor(documents: number, options: ThresholdOptions = {}): number {
  const minDocs = options.minDocs ?? DEFAULT_MIN_DOCS;
  const minFrac = options.minFrac ?? DEFAULT_MIN_FRAC;
  return Math.max(2, minDocs, Math.ceil(minFrac * documents));
}

/**
 * Loads the segments whose count reaches the threshold with one streaming pass over the
 * sorted records. Memory: 16 bytes × 2 per frequent segment (a half-full table); their
 * number is at most segment_occurrences / threshold, whatever the corpus size.
 */
export function loadFrequent(countsPath: string, options: ThresholdOptions = {}): FrequentSegments {
  const header = readCountsHeader(countsPath);
  const threshold = thresholdFor(header.documents, options);
  const table = new HashTable(1024, true);
  for (const c = new RecordCursor(countsPath, header); !c.done; c.next()) {
    if (c.docs >= threshold) table.setValue(table.add(c.hi, c.lo, 0), c.docs);
  }
  const samples = new Map<string, string>();
  for (const s of readSamples(countsPath, header)) samples.set(s.hash, s.text);
  return { header, threshold, table, samples };
}

export interface ApplyOptions {
  /** Keep the first occurrence of each frequent segment in a document unmasked. */
  keepFirst?: boolean;
  /**
   * Also mask the lines too short to count (blank lines, a bare `//` or ` *`) that lie
   * between two masked lines, so a license header is one span. Never across a line with
   * a special token.
   */
  bridge?: boolean;
  /** How many masked segments the stats list. */
  top?: number;
  /** Sources listed one by one in the stats; the rest are summed under "(other)". */
  maxSources?: number;
}

interface Tally {
  documents: number;
  documents_with_masks: number;
  chars: number;
  masked_chars: number;
}

const newTally = (): Tally => ({ documents: 0, documents_with_masks: 0, chars: 0, masked_chars: 0 });
const withFraction = (t: Tally) => ({ ...t, masked_chars_fraction: t.chars ? t.masked_chars / t.chars : 0 });

/**
 * Pass 2, a transform: adds loss-mask spans over the frequent segments of each document,
 * merged with the spans it already has; the text is unchanged. Stats (`ctx.stats.mask`):
 * the method and threshold, masked characters overall, by kind and by source, and the
 * most frequent masked segments with their document counts and a sample.
 */
export function maskApply(frequent: FrequentSegments, options: ApplyOptions = {}): Stage {
  return async function* (docs, ctx) {
    const masking = new Masking(frequent, options);
    const segment = loadSegmenter(paramsOf(frequent.header));
    for await (const doc of docs) {
      const spans = masking.mask(doc, doc.text.length, segment(doc), (a, b) => doc.text.slice(a, b));
      ctx.ledger.output();
      yield spans.length ? { ...doc, loss_mask_spans: mergeSpans(doc.loss_mask_spans ?? [], spans) } : doc;
    }
    ctx.stats.mask = masking.stats();
  };
}

/** What masking reads of a document besides its text's segments and length. */
export type MaskedDocHead = Pick<Doc, 'kind' | 'source' | 'special_spans'>;

/**
 * Masking's state over the documents of a pass: which frequent segments it masked, how often,
 * their samples, and the tallies by kind and source (maskApply; the masking thread of a run
 * gives it documents read from their lines: mask-lines.ts).
 */
export class Masking {
  private readonly masked: Uint32Array; // occurrences masked, by table slot
  private readonly capturedSamples = new Map<number, string>();
  private readonly seen = new HashTable(1024, true);
  private readonly total = newTally();
  private readonly byKind = new Map<string, Tally>();
  private readonly bySource = new Map<string, Tally>();
  private readonly maxSources: number;

  constructor(
    private readonly frequent: FrequentSegments,
    private readonly options: ApplyOptions,
  ) {
    this.masked = new Uint32Array(frequent.table.capacity);
    this.maxSources = options.maxSources ?? 1000;
  }

  /**
   * The spans masking adds to a document of `textLength` units whose segments (every
   * occurrence, lineSegments) are `found`; `slice` gives its text's units for a sample. Tallied.
   */
  mask(doc: MaskedDocHead, textLength: number, found: Uint32Array, slice: (start: number, end: number) => string): Span[] {
    const { table, samples } = this.frequent;
    const { seen, masked, options } = this;
    seen.clear();
    const spans: Span[] = [];
    const specialBetween = specialFinder(doc.special_spans ?? []);
    let previousMasked = false;
    for (let i = 0; i < found.length; i += SEGMENT_WORDS) {
      const hi = found[i]!, lo = found[i + 1]!, start = found[i + 2]!, lineEnd = found[i + 3]!;
      const slot = table.find(hi, lo);
      const masking = slot >= 0 && !(options.keepFirst && seen.value(seen.add(hi, lo, 1)) === 1);
      const last = spans[spans.length - 1];
      const bridged = masking && options.bridge && previousMasked && last && !specialBetween(last[1], start);
      previousMasked = masking;
      if (!masking) continue;
      addSpan(spans, bridged ? last![1] : start, lineEnd < textLength ? lineEnd + 1 : lineEnd);
      masked[slot]!++;
      if (masked[slot] === 1 && this.capturedSamples.size < 10000 && !samples.has(hashHex(hi, lo))) {
        this.capturedSamples.set(slot, sampleText(slice(start, lineEnd).trim()));
      }
    }
    this.tally(doc, textLength, spanChars(spans));
    return spans;
  }

  private tally(doc: MaskedDocHead, chars: number, maskedChars: number): void {
    const { byKind, bySource } = this;
    const sourceKey = bySource.has(doc.source) || bySource.size < this.maxSources ? doc.source : '(other)';
    for (const [m, key] of [
      [byKind, doc.kind],
      [bySource, sourceKey],
    ] as const) {
      const t = m.get(key) ?? newTally();
      m.set(key, t);
      tallyInto(t, chars, maskedChars);
    }
    tallyInto(this.total, chars, maskedChars);
  }

  /** The figures of the documents masked so far (`ctx.stats.mask`). */
  stats(): Record<string, unknown> {
    const { frequent, options, masked } = this;
    const { table, header } = frequent;
    const top: { slot: number; hi: number; lo: number; docs: number }[] = [];
    for (let slot = 0; slot < table.capacity; slot++) {
      if (masked[slot]) top.push({ slot, hi: table.keyHi(slot), lo: table.keyLo(slot), docs: table.value(slot) });
    }
    top.sort(byFrequency);
    return {
      method: 'exact document frequency of normalized lines (two passes: count, apply)',
      ...paramsOf(header),
      threshold_docs: frequent.threshold,
      keep_first: !!options.keepFirst,
      bridge: !!options.bridge,
      documents_counted: header.documents,
      segments_distinct: header.segments_distinct,
      segments_frequent: table.size,
      segments_masked: top.length,
      ...withFraction(this.total),
      by_kind: Object.fromEntries([...this.byKind].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, t]) => [k, withFraction(t)])),
      by_source: Object.fromEntries([...this.bySource].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, t]) => [k, withFraction(t)])),
      top_segments: top.slice(0, options.top ?? 50).map((t) => {
        const hash = hashHex(t.hi, t.lo);
        return { hash, docs: t.docs, masked_occurrences: masked[t.slot], text: frequent.samples.get(hash) ?? this.capturedSamples.get(t.slot) ?? null };
      }),
    };
  }
}

function tallyInto(t: Tally, chars: number, maskedChars: number): void {
  t.documents++;
  t.chars += chars;
  t.masked_chars += maskedChars;
  if (maskedChars) t.documents_with_masks++;
}

/**
 * Whether a special span overlaps [a, b), for queries whose `a` never decreases
 * (a pointer walks the sorted spans once per document).
 */
function specialFinder(specials: readonly Span[]): (a: number, b: number) => boolean {
  let k = 0;
  return (a, b) => {
    while (k < specials.length && specials[k]![1] <= a) k++;
    return k < specials.length && specials[k]![0] < b;
  };
}
