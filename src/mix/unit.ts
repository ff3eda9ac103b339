import type { Doc } from '../doc/document.js';

/**
 * A prepared document's place in the mixture, carried in its meta from the prepare step:
 * `mixture_source` (the config source's name) and `mixture_unit` (the id of the document the
 * source's reader gave, before its `then` stages; the sampling decides on it, so a document and
 * the samples made from it share one fate). A stage that rebuilds meta keeps the id (the web
 * rewriter does), which is then the unit.
 */
export const MIXTURE_SOURCE_KEY = 'mixture_source';
export const MIXTURE_UNIT_KEY = 'mixture_unit';
export const MIXTURE_REPEAT_KEY = 'mixture_repeat';

export function mixtureSourceOf(doc: Doc): string | undefined {
  const s = doc.meta[MIXTURE_SOURCE_KEY];
  return typeof s === 'string' ? s : undefined;
}

export function mixtureUnitOf(doc: Doc): string {
  const u = doc.meta[MIXTURE_UNIT_KEY];
  return typeof u === 'string' ? u : doc.id;
}

/** The id of repeat N of a document: a new unit (`ID#rN`). */
export function repeatId(id: string, n: number): string {
  return `${id}#r${n}`;
}

/** A source document entering its `then` stages: the unit it starts. */
export function asUnit(doc: Doc): Doc {
  return { ...doc, meta: { ...doc.meta, [MIXTURE_UNIT_KEY]: doc.id } };
}

/** A document leaving its source's stages: tagged with the source (and its unit, when a stage dropped the tag). */
export function tagged(doc: Doc, source: string, unit?: string, repeat?: number): Doc {
  const meta: Record<string, unknown> = { ...doc.meta, [MIXTURE_SOURCE_KEY]: source, [MIXTURE_UNIT_KEY]: unit ?? mixtureUnitOf(doc) };
  if (repeat !== undefined) meta[MIXTURE_REPEAT_KEY] = repeat;
  return { ...doc, meta };
}
