import { readFileSync } from 'node:fs';
import type { Doc } from '../doc/document.js';
import { docToJson } from '../doc/document.js';
import { Ledger } from '../core/ledger.js';
import { readDocumentFile } from '../io/documents.js';
import { AtomicLineWriter } from '../io/jsonl.js';
import { usesOf, type MixturePlan, type SourcePlan } from './plan.js';
import { MixtureTally } from './report.js';
import { NOT_TOKENIZED } from './count-pass.js';
import { MIXTURE_REPEAT_KEY, mixtureSourceOf, mixtureUnitOf, repeatId, tagged } from './unit.js';

/**
 * Applies a mixture plan to this rank's prepared documents, into the file the pack job reads:
 * each document kept, dropped (a seeded choice: `dropped_by_sampling`) or kept and repeated. A
 * repeat is a new document `ID#rN`; for a source with `then` stages it is the source's own
 * document renamed and sent through the stages again, so stages that draw from the id (FIM spans
 * and formats) draw afresh for each repeat; a source whose reader draws (trajectory templates) is
 * read again with the repeat index.
 */
export interface ApplyOptions {
  plan: MixturePlan;
  docsFile: string;
  /** Token count of each document of docsFile (count-pass.ts). */
  tokensFile: string;
  out: string;
  /** Sources whose repeats are made from their documents before the stages: the file holding those. */
  baseFiles: Map<string, string>;
  /** A source's `then` stages, fresh, over the given documents. */
  restage: (source: string, docs: AsyncIterable<Doc>) => AsyncIterable<Doc>;
  /**
   * Sources without stages whose reader draws seeded choices (trajectory templates): the reader
   * run again for repeat N (`ctx.repeat`), its documents under their first-use ids.
   */
  reread?: Map<string, (repeat: number) => AsyncIterable<Doc>>;
}

export interface ApplyResult {
  ledger: Ledger;
  tally: MixtureTally;
  documents: number;
}

export async function applyMixture(o: ApplyOptions): Promise<ApplyResult> {
  const byName = new Map(o.plan.sources.map((s) => [s.name, s] as const));
  const tokens = readTokens(o.tokensFile);
  const ledger = new Ledger();
  const tally = new MixtureTally();
  const writer = new AtomicLineWriter(o.out);
  let documents = 0;
  const write = async (d: Doc) => {
    await writer.write(docToJson(d));
    documents++;
  };
  // Units with a repeat, for sources whose repeats go through the stages again.
  const repeatedUnits = new Map<string, Set<string>>();
  let maxUses = 1;
  try {
    let i = 0;
    for await (const doc of readDocumentFile(o.docsFile, new Ledger())) {
      const len = tokens[i++]!;
      ledger.input();
      const source = mixtureSourceOf(doc);
      const uses = source === undefined || len === NOT_TOKENIZED ? 1 : usesOf(o.plan, byName, source, mixtureUnitOf(doc));
      if (uses === 0) {
        ledger.drop('dropped_by_sampling', `${source} (${doc.id}): ${len} tokens`);
        tally.dropped(source!, len);
        continue;
      }
      ledger.output();
      await write(doc);
      if (uses > 1) {
        maxUses = Math.max(maxUses, uses);
        if (o.baseFiles.has(source!) || o.reread?.has(source!)) setOf(repeatedUnits, source!).add(mixtureUnitOf(doc));
      }
    }
    for (let n = 1; n < maxUses; n++) {
      for await (const d of repeatsOf(o, byName, tokens, n, repeatedUnits)) {
        tally.repeated(mixtureSourceOf(d)!);
        ledger.produce('repeat_documents');
        await write(d);
      }
    }
  } catch (e) {
    await writer.abort();
    throw e;
  }
  await writer.close();
  return { ledger, tally, documents };
}

/** Repeat `n` of every unit used more than n times: renamed prepared documents, or base documents restaged. */
async function* repeatsOf(o: ApplyOptions, byName: Map<string, SourcePlan>, tokens: Uint32Array, n: number, repeatedUnits: Map<string, Set<string>>): AsyncIterable<Doc> {
  let i = 0;
  for await (const doc of readDocumentFile(o.docsFile, new Ledger())) {
    const len = tokens[i++]!;
    const source = mixtureSourceOf(doc);
    if (source === undefined || len === NOT_TOKENIZED || o.baseFiles.has(source) || o.reread?.has(source)) continue;
    if (usesOf(o.plan, byName, source, mixtureUnitOf(doc)) <= n) continue;
    yield { ...doc, id: repeatId(doc.id, n), meta: { ...doc.meta, [MIXTURE_REPEAT_KEY]: n } };
  }
  for (const [source, file] of o.baseFiles) {
    const units = repeatedUnits.get(source);
    if (!units) continue;
    async function* chosen(): AsyncIterable<Doc> {
      for await (const base of readDocumentFile(file, new Ledger())) {
        // Only units whose documents made it through the stages (and tokenize) the first time.
        if (!units!.has(base.id) || usesOf(o.plan, byName, source, base.id) <= n) continue;
        yield { ...base, id: repeatId(base.id, n), meta: { ...base.meta, [MIXTURE_REPEAT_KEY]: n } };
      }
    }
    for await (const d of o.restage(source, chosen())) yield tagged(d, source, unitOfRepeat(d), n);
  }
  for (const [source, reread] of o.reread ?? []) {
    const units = repeatedUnits.get(source);
    if (!units) continue;
    for await (const d of reread(n)) {
      if (!units.has(d.id) || usesOf(o.plan, byName, source, d.id) <= n) continue;
      yield tagged({ ...d, id: repeatId(d.id, n) }, source, d.id, n);
    }
  }
}

/** The unit of a restaged repeat: the tag the stages kept, else its id without the repeat suffix. */
function unitOfRepeat(d: Doc): string {
  const u = d.meta.mixture_unit;
  return (typeof u === 'string' ? u : d.id).replace(/#r\d+$/, '');
}

function setOf(m: Map<string, Set<string>>, k: string): Set<string> {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  return s;
}

function readTokens(path: string): Uint32Array {
  const b = readFileSync(path);
  // A copy: the Buffer may sit at an offset that is no multiple of 4.
  return new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}
