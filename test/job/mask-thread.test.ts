import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Doc } from '../../src/doc/document.js';
import { docToJson } from '../../src/doc/document.js';
import { Ledger } from '../../src/core/ledger.js';
import { countedIn, defaultContext, fromArray } from '../../src/core/stage.js';
import { readDocumentFile } from '../../src/io/documents.js';
import { countSegments, loadFrequent, maskApply } from '../../src/stages/mask/index.js';
import { resolveMaskOptions } from '../../src/stages/mask/options.js';
import { untokenizable } from '../../src/tokenize/encode.js';
import { MaskThread, type DocSpans } from '../../src/job/mask-thread.js';

/**
 * The masking pass of a run that tokenized while it prepared runs on a thread of its own
 * (MaskThread): it must give what maskApply gives on this thread (the spans of every tokenizable
 * document, in order; the same ledger and figures), over several batches, and fail loudly.
 */
const tmp = mkdtempSync(join(tmpdir(), 'midpack-mask-thread-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

/** The sources of the repositories in data-samples, 40 lines a document: their license headers and imports repeat. */
function sampleDocs(): Doc[] {
  const docs: Doc[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(js|ts|mjs|cjs|md)$/.test(name)) {
        const lines = readFileSync(p, 'utf8').split(/(?<=\n)/);
        for (let i = 0; i < lines.length; i += 40) docs.push({ id: `doc-${docs.length}`, kind: 'text', source: name, text: lines.slice(i, i + 40).join(''), meta: {} });
      }
    }
  };
  walk(join('data-samples', 'repos'));
  // Own spans, an empty text and an unpaired surrogate (left out: they are never tokenized).
  docs.push({ id: 'own', kind: 'text', source: 'odd', text: 'keep this part\nmask this part\n', meta: {}, loss_mask_spans: [[15, 29]] });
  docs.push({ id: 'empty', kind: 'text', source: 'odd', text: '', meta: {} });
  docs.push({ id: 'lone', kind: 'text', source: 'odd', text: 'lone \ud800 surrogate', meta: {} });
  // Texts read from their lines natively (mask-lines.ts): escapes, characters of two to four bytes, special spans (bridge stops at them), repeated so they are masked.
  const odd = 'a "quoted"\tline with \\ and \u0001 ctl\n\u00e9t\u00e9 \u20ac 😀 repeated line\n\n<|sep|>path/of/a/file.ts\nimport { x } from "y";\n';
  for (let i = 0; i < 8; i++) docs.push({ id: `odd-${i}`, kind: 'repo', source: 'odd', text: odd.repeat(1 + (i % 3)), meta: { i }, special_spans: Array.from({ length: 1 + (i % 3) }, (_, k) => [k * odd.length + odd.indexOf('<|sep|>'), k * odd.length + odd.indexOf('<|sep|>') + 7]) });
  return docs;
}

test('mask thread: the spans, ledger and figures of maskApply on this thread, in order, over several batches', async () => {
  const docs = sampleDocs();
  assert.ok(docs.length > 2 * 512, `${docs.length} documents: more than two batches`);
  const docsPath = join(tmp, 'docs.jsonl');
  writeFileSync(docsPath, docs.map((d) => docToJson(d) + '\n').join(''));
  const options = resolveMaskOptions({ bridge: true });
  const countsPath = join(tmp, 'mask-counts.bin');
  await countSegments(fromArray(docs), countsPath, { workDir: tmp });

  const ctx = defaultContext({ seed: 3 });
  const expected: DocSpans[] = [];
  for await (const d of maskApply(loadFrequent(countsPath, options), options)(countedIn(readDocumentFile(docsPath, new Ledger()), ctx.ledger), ctx)) {
    if (!untokenizable(d)) expected.push({ id: d.id, spans: d.loss_mask_spans ?? [] });
  }
  assert.ok(expected.filter((d) => d.spans.length).length > 100, 'masking found repeated lines');

  const thread = new MaskThread({ docsPath, countsPath, options, seed: 3 });
  try {
    const got: DocSpans[] = [];
    for await (const d of thread) got.push(d);
    assert.deepEqual(got, expected);
    assert.deepEqual(thread.result(), { ledger: ctx.ledger.toJSON(), stats: ctx.stats });
  } finally {
    await thread.close();
  }
});

test('mask thread: a counts file that cannot be read fails the pass', async () => {
  const docsPath = join(tmp, 'one.jsonl');
  writeFileSync(docsPath, docToJson({ id: 'a', kind: 'text', source: 's', text: 'some text here\n', meta: {} }) + '\n');
  const thread = new MaskThread({ docsPath, countsPath: join(tmp, 'missing.bin'), options: resolveMaskOptions({}), seed: 0 });
  try {
    await assert.rejects(async () => {
      for await (const _ of thread) void _;
    }, /missing\.bin/);
    assert.throws(() => thread.result(), /not done/);
  } finally {
    await thread.close();
  }
});
