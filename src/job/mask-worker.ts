import { parentPort, workerData } from 'node:worker_threads';
import { defaultContext } from '../core/stage.js';
import { loadFrequent } from '../stages/mask/apply.js';
import { maskLines } from './mask-lines.js';
import type { MaskThreadMessage, MaskThreadSetup } from './mask-thread.js';

/**
 * The masking pass of a run that tokenized while it prepared (mask-thread.ts): docs.jsonl read
 * and masked with the final counts (maskLines: maskApply's spans, ledger and figures as
 * packPrepared's masker has them, from the lines without parsing their texts), and each tokenizable document's id and final loss-mask spans sent to the
 * main thread in batches, which places them in the chunks meanwhile. At most `WINDOW` batches are
 * unanswered at a time, so a main thread behind it never holds more than those (a few MB). The
 * window is wide because the thread starts when preparing ends, and the main thread takes its
 * first batch only once the tokenizer has caught up: the thread works ahead meanwhile.
 */
const BATCH_DOCS = 512;
/** A batch is also cut at this many spans (8 bytes each), so documents with very many do not make it large. */
const BATCH_SPANS = 1 << 16;
const WINDOW = 64;

const setup = workerData as MaskThreadSetup;
let credit = WINDOW;
let wakeWriter: (() => void) | undefined;
parentPort!.on('message', () => {
  credit++;
  wakeWriter?.();
});

const post = (m: MaskThreadMessage, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(m, transfer);

async function send(ids: string[], counts: number[], spans: number[]): Promise<void> {
  while (credit === 0) await new Promise<void>((resolve) => (wakeWriter = resolve));
  credit--;
  const c = Uint32Array.from(counts);
  const s = Uint32Array.from(spans);
  post({ type: 'batch', ids, counts: c, spans: s }, [c.buffer, s.buffer]);
}

async function main(): Promise<void> {
  const frequent = loadFrequent(setup.countsPath, setup.options);
  const ctx = defaultContext({ seed: setup.seed });
  let [ids, counts, spans]: [string[], number[], number[]] = [[], [], []];
  for await (const doc of maskLines(setup.docsPath, frequent, setup.options, ctx.ledger, ctx.stats)) {
    if (!doc.tokenizable) continue;
    ids.push(doc.id);
    counts.push(doc.spans.length);
    for (const [a, b] of doc.spans) spans.push(a, b);
    if (ids.length < BATCH_DOCS && spans.length < 2 * BATCH_SPANS) continue;
    await send(ids, counts, spans);
    [ids, counts, spans] = [[], [], []];
  }
  if (ids.length) await send(ids, counts, spans);
  post({ type: 'done', ledger: ctx.ledger.toJSON(), stats: ctx.stats });
}

await main();
