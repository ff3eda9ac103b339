import type { Doc, Span } from '../../doc/document.js';
import { SPECIAL } from '../../doc/specials.js';
import { addSpan } from '../../doc/text-builder.js';
import { mergeSpans } from '../mask/spans.js';

/**
 * The unit of hygiene: an item. A repository document (Qwen2.5-Coder format, trusted only
 * through its `special_spans`) has one item per file; any other document is one item.
 * Dedup and decontamination decide per item, so a match removes or masks a file, never the
 * repository around it.
 */
export interface Item {
  /** The file path inside a repository document; undefined for a whole document. */
  path?: string;
  /** Where the item's content is in `doc.text`, [start, end). */
  start: number;
  end: number;
  /** For a repository file: where its `<|file_sep|>` starts. */
  sep?: number;
}

/** The items of a document: its files when it is a repository document, else the whole text. */
export function itemsOf(doc: Pick<Doc, 'kind' | 'text' | 'special_spans'>): Item[] {
  const { text } = doc;
  const spans = doc.special_spans ?? [];
  const isRepo = spans.length > 0 && spans[0]![0] === 0 && text.slice(spans[0]![0], spans[0]![1]) === SPECIAL.repoName;
  if (!isRepo) return [{ start: 0, end: text.length }];
  const seps = spans.filter(([a, z]) => text.slice(a, z) === SPECIAL.fileSep);
  return seps.map(([a, z], i) => {
    const next = seps[i + 1];
    // Every file but the last is followed by the '\n' that precedes the next <|file_sep|>.
    const end = next ? next[0] - 1 : text.length;
    const nl = text.indexOf('\n', z);
    const pathEnd = nl < 0 || nl > end ? end : nl;
    const start = Math.min(end, pathEnd + 1);
    return { path: text.slice(z, pathEnd), start, end, sep: a };
  });
}

/** How an item is named in ledgers and reports: `id` or `id:path`. */
export function itemName(doc: Pick<Doc, 'id'>, item: Item): string {
  return item.path === undefined ? doc.id : `${doc.id}:${item.path}`;
}

export interface TextEdit {
  start: number;
  end: number;
  replacement: string;
}

/**
 * Applies sorted, non-overlapping edits to a document's text and carries every offset along:
 * `special_spans` and `loss_mask_spans` inside a removed range disappear, the others shift
 * (a mask span that an edit cuts into is clipped to what remains), and `meta.boundaries`
 * (the repository format's file starts) are remapped the same way.
 */
export function editDocument(doc: Doc, edits: readonly TextEdit[]): Doc {
  if (!edits.length) return doc;
  const parts: string[] = [];
  let at = 0;
  for (const e of edits) {
    parts.push(doc.text.slice(at, e.start), e.replacement);
    at = e.end;
  }
  parts.push(doc.text.slice(at));
  const map = offsetMap(edits);
  const remap = (spans: readonly Span[] | undefined): Span[] | undefined => {
    if (!spans) return undefined;
    const out: Span[] = [];
    for (const [a, b] of spans) addSpan(out, map(a, 'start'), map(b, 'end'));
    return out;
  };
  const out: Doc = { ...doc, text: parts.join(''), meta: { ...doc.meta } };
  const special = remap(doc.special_spans);
  const mask = remap(doc.loss_mask_spans);
  if (special) out.special_spans = special;
  if (mask) out.loss_mask_spans = mask;
  if (Array.isArray(doc.meta.boundaries)) {
    out.meta.boundaries = (doc.meta.boundaries as number[]).filter((p) => !edits.some((e) => e.start <= p && p < e.end)).map((p) => map(p, 'start'));
  }
  return out;
}

/**
 * Old offset to new offset. A position inside an edited range goes to the start of its
 * replacement (a span start) or to its end (a span end), so spans never grow into a
 * replacement they did not cover.
 */
function offsetMap(edits: readonly TextEdit[]): (p: number, side: 'start' | 'end') => number {
  return (p, side) => {
    let delta = 0;
    for (const e of edits) {
      if (p < e.start || (p === e.start && side === 'end')) break;
      if (p < e.end || (p === e.end && side === 'start' && e.start === e.end)) {
        return e.start + delta + (side === 'end' ? e.replacement.length : 0);
      }
      delta += e.replacement.length - (e.end - e.start);
    }
    return p + delta;
  };
}

/**
 * Removes repository files (by item index) from a repository document, keeping its format
 * valid: the header stays, each removed file takes its `<|file_sep|>` and separator with it.
 * Returns undefined when no file would remain. `meta.files` follows.
 */
export function removeItems(doc: Doc, items: readonly Item[], remove: ReadonlySet<number>): Doc | undefined {
  if (remove.size === 0) return doc;
  if (remove.size >= items.length || items.some((it, i) => remove.has(i) && it.sep === undefined)) return undefined;
  // A removed file cuts [its <|file_sep|>, the next one's); a removed run at the end instead
  // cuts from the '\n' before its first <|file_sep|> to the end, so the file kept before it
  // ends as it did. The first kept file after removed leading files keeps its own marker.
  const n = items.length;
  let tail = n;
  while (tail > 0 && remove.has(tail - 1)) tail--;
  const edits: TextEdit[] = [];
  for (let i = 0; i < tail; i++) {
    if (!remove.has(i)) continue;
    const last = edits[edits.length - 1];
    if (last && last.end === items[i]!.sep) last.end = items[i + 1]!.sep!;
    else edits.push({ start: items[i]!.sep!, end: items[i + 1]!.sep!, replacement: '' });
  }
  if (tail < n) edits.push({ start: items[tail]!.sep! - 1, end: doc.text.length, replacement: '' });
  const out = editDocument(doc, edits);
  if (typeof doc.meta.files === 'number') out.meta.files = doc.meta.files - remove.size;
  return out;
}

/** Masks whole items out of the loss (the text is unchanged). */
export function maskItems(doc: Doc, items: readonly Item[], mask: ReadonlySet<number>): Doc {
  if (mask.size === 0) return doc;
  const spans: Span[] = [];
  items.forEach((it, i) => {
    if (mask.has(i)) addSpan(spans, it.start, it.end);
  });
  return { ...doc, loss_mask_spans: mergeSpans(doc.loss_mask_spans ?? [], spans) };
}
