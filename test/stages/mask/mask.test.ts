import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Doc, Span } from '../../../src/doc/document.js';
import { collect, defaultContext, fromArray } from '../../../src/core/stage.js';
import { formatRepoDocument } from '../../../src/stages/repos/format.js';
import { readDocuments } from '../../../src/io/documents.js';
import {
  countSegments,
  documentSegments,
  loadSegmenter,
  segmentParams,
  HashTable,
  loadFrequent,
  maskApply,
  mergeCountsFiles,
  checkCountsCover,
  mergeSpans,
  readCountsHeader,
  readSamples,
  HEADER_BYTES,
  RECORD_BYTES,
  type ApplyOptions,
  type ThresholdOptions,
} from '../../../src/stages/mask/index.js';
import { nativeBinding } from '../../../src/pack/packer.js';
import { slow } from '../../helpers/tiers.js';
import { referenceSegmenter } from '../../helpers/reference-segments.js';

const tmp = mkdtempSync(join(tmpdir(), 'midpack-mask-test-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

/** Real source files from installed packages (sorted, so the corpus is the same on every run). */
function realFiles(dir: string, accept: RegExp, max: number): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (out.length >= max) return;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (accept.test(name)) out.push({ path: p, text: readFileSync(p, 'utf8') });
    }
  };
  walk(dir);
  return out;
}

const realDocs: Doc[] = [
  ...realFiles('node_modules/apache-arrow', /\.mjs$/, 60),
  ...realFiles('node_modules/yaml/dist', /\.js$/, 40),
  ...realFiles('node_modules/commander', /\.js$/, 10),
].map((f, i) => ({ id: `real-${i}`, kind: 'text', source: f.path.split('/')[1]!, text: f.text, meta: {} }));

// Non-ASCII lines (astral characters take two UTF-16 units) repeated across documents,
// so an offset computed in bytes or code points would be visibly wrong.
const unicodeDocs: Doc[] = Array.from({ length: 6 }, (_, i) => ({
  id: `uni-${i}`,
  kind: 'web',
  source: 'unicode',
  text: `# Überschrift ${i}\n😀 Gemeinsame Zeile — für alle 🎉\n  \n}\n}\nunique line number ${i} ✓\r\n   Shared café line, indented   \nend ${i}`,
  meta: {},
}));

const corpus = [...realDocs, ...unicodeDocs];

/** An independent reference: plain string maps, no hashing, no spilling. */
function referenceSpans(docs: Doc[], minChars: number, threshold: number, opts: { keepFirst?: boolean; bridge?: boolean } = {}): Span[][] {
  const linesOf = (d: Doc) => {
    const lines: { start: number; end: number; norm: string; special: boolean; counts: boolean }[] = [];
    let start = 0;
    for (const raw of d.text.split('\n')) {
      const end = Math.min(d.text.length, start + raw.length + 1);
      const special = (d.special_spans ?? []).some(([a, b]) => a < start + raw.length && b > start);
      const norm = raw.trim();
      lines.push({ start, end, norm, special, counts: !special && norm.length >= minChars });
      start = end;
    }
    return lines;
  };
  const df = new Map<string, number>();
  for (const d of docs) {
    for (const n of new Set(linesOf(d).filter((l) => l.counts).map((l) => l.norm))) df.set(n, (df.get(n) ?? 0) + 1);
  }
  return docs.map((d) => {
    const seen = new Set<string>();
    const spans: Span[] = [];
    let gapSinceMasked: boolean | undefined; // undefined: no masked line yet; true: a special line since
    let lastEnd = 0;
    for (const l of linesOf(d)) {
      if (!l.counts) {
        if (l.special) gapSinceMasked = true;
        continue;
      }
      let masked = (df.get(l.norm) ?? 0) >= threshold;
      if (masked && opts.keepFirst && !seen.has(l.norm)) {
        seen.add(l.norm);
        masked = false;
      }
      if (!masked) {
        gapSinceMasked = undefined;
        continue;
      }
      const from = opts.bridge && gapSinceMasked === false ? lastEnd : l.start;
      const last = spans[spans.length - 1];
      if (last && last[1] >= from) last[1] = l.end;
      else spans.push([from, l.end]);
      gapSinceMasked = false;
      lastEnd = l.end;
    }
    return spans;
  });
}

async function countTo(docs: Doc[], name: string, options: Parameters<typeof countSegments>[2] = {}): Promise<string> {
  const out = join(tmp, name);
  await countSegments(fromArray(docs), out, { workDir: tmp, ...options });
  return out;
}

async function applyWith(docs: Doc[], counts: string, threshold: ThresholdOptions, options: ApplyOptions = {}) {
  const ctx = defaultContext({ log: () => {} });
  const out = await collect(maskApply(loadFrequent(counts, threshold), options)(fromArray(docs), ctx));
  return { out, ctx };
}

test('spans cover exactly the lines whose document frequency reaches the threshold (UTF-16 offsets, text unchanged)', async () => {
  const counts = await countTo(corpus, 'exact.counts');
  const { out } = await applyWith(corpus, counts, { minDocs: 5, minFrac: 0 });
  const expected = referenceSpans(corpus, 10, 5);
  assert.equal(out.length, corpus.length);
  out.forEach((d, i) => {
    assert.equal(d.text, corpus[i]!.text, `text of ${d.id} unchanged`);
    assert.deepEqual(d.loss_mask_spans ?? [], expected[i], `spans of ${d.id}`);
  });
  // The fixture really exercises masking: license headers in the Arrow files, the shared unicode lines.
  const masked = out.filter((d) => d.loss_mask_spans?.length).length;
  assert.ok(masked > 50, `${masked} documents masked`);
  const uni = out.find((d) => d.id === 'uni-0')!;
  const maskedText = uni.loss_mask_spans!.map(([a, b]) => uni.text.slice(a, b));
  assert.deepEqual(maskedText, ['😀 Gemeinsame Zeile — für alle 🎉\n', '   Shared café line, indented   \n']);
  const arrow = out.find((d) => d.source === 'apache-arrow' && d.text.includes('Licensed to the Apache Software Foundation'))!;
  const first = arrow.loss_mask_spans![0]!;
  // The header's bare `//` lines are too short to count, so the header masks as runs between them.
  assert.match(arrow.text.slice(first[0], first[1]), /^\/\/ Licensed to the Apache Software Foundation[\s\S]*License at\n$/);
});

test('--bridge masks the short lines between masked lines, never across a special token', async () => {
  const counts = await countTo(corpus, 'bridge.counts');
  const { out } = await applyWith(corpus, counts, { minDocs: 5, minFrac: 0 }, { bridge: true });
  const expected = referenceSpans(corpus, 10, 5, { bridge: true });
  out.forEach((d, i) => assert.deepEqual(d.loss_mask_spans ?? [], expected[i], `spans of ${d.id}`));
  const arrow = out.find((d) => d.source === 'apache-arrow' && d.text.startsWith('// Licensed to the Apache Software Foundation'))!;
  const first = arrow.loss_mask_spans![0]!;
  assert.equal(first[0], 0);
  assert.match(arrow.text.slice(first[0], first[1]), /^\/\/ Licensed to the Apache Software Foundation[^]*\n\/\/\n[^]*under the License\.\n$/);

  // Two files whose boundary lines are frequent: the <|file_sep|> line between them stays in the loss.
  const shared = "module.exports = require('./shared-helpers');";
  const repos: Doc[] = Array.from({ length: 5 }, (_, i) => {
    const r = formatRepoDocument(`o/r${i}`, [
      { path: 'a.js', content: `const a${i} = ${i};\n${shared}\n` },
      { path: 'b.js', content: `${shared}\n\n${shared}\nconst b${i} = ${i};` },
    ]);
    return { id: `br${i}`, kind: 'repo', source: `o/r${i}`, text: r.text, special_spans: r.special_spans, meta: {} };
  });
  const repoCounts = await countTo(repos, 'bridge-repos.counts');
  const r = await applyWith(repos, repoCounts, { minDocs: 5, minFrac: 0 }, { bridge: true });
  assert.deepEqual(r.out.map((d) => d.loss_mask_spans), referenceSpans(repos, 10, 5, { bridge: true }));
  const d = r.out[0]!;
  assert.deepEqual(
    d.loss_mask_spans!.map(([a, b]) => d.text.slice(a, b)),
    [`${shared}\n`, `${shared}\n\n${shared}\n`],
  );
});

test('the threshold follows --min-frac of the counted documents', async () => {
  const counts = await countTo(corpus, 'frac.counts');
  const { ctx } = await applyWith(corpus, counts, { minDocs: 2, minFrac: 0.5 });
  const stats = ctx.stats.mask as { threshold_docs: number; documents_counted: number };
  assert.equal(stats.documents_counted, corpus.length);
  assert.equal(stats.threshold_docs, Math.ceil(corpus.length * 0.5));
});

test('blank lines, a lone brace and short lines never count, however often they occur', async () => {
  const docs: Doc[] = Array.from({ length: 20 }, (_, i) => ({
    id: `b${i}`,
    kind: 'text',
    source: 's',
    text: `function f${i}() {\n  return ${i};\n}\n\n}\n   \n});\nreturn x;\nconst shared = require('shared-module');\n`,
    meta: {},
  }));
  const counts = await countTo(docs, 'short.counts');
  const { out } = await applyWith(docs, counts, { minDocs: 2, minFrac: 0 });
  for (const d of out) {
    const maskedText = d.loss_mask_spans!.map(([a, b]) => d.text.slice(a, b));
    assert.deepEqual(maskedText, ["const shared = require('shared-module');\n"]);
  }
});

test('--keep-first leaves the first occurrence of each frequent line in a document unmasked', async () => {
  const line = 'import { something } from "a-common-module";\n';
  const docs: Doc[] = Array.from({ length: 5 }, (_, i) => ({ id: `k${i}`, kind: 'text', source: 's', text: `${line}body ${i} is unique here\n${line}${line}`, meta: {} }));
  const counts = await countTo(docs, 'keep.counts');
  const plain = await applyWith(docs, counts, { minDocs: 5, minFrac: 0 });
  const kept = await applyWith(docs, counts, { minDocs: 5, minFrac: 0 }, { keepFirst: true });
  const firstEnd = line.length;
  const bodyEnd = docs[0]!.text.indexOf(line, 1);
  assert.deepEqual(plain.out[0]!.loss_mask_spans, [
    [0, firstEnd],
    [bodyEnd, docs[0]!.text.length],
  ]);
  assert.deepEqual(kept.out[0]!.loss_mask_spans, [[bodyEnd, docs[0]!.text.length]]);
  assert.deepEqual(kept.out.map((d) => d.loss_mask_spans), referenceSpans(docs, 10, 5, { keepFirst: true }));
});

test('existing loss-mask spans are kept and merged with the redundancy spans', async () => {
  const counts = await countTo(corpus, 'merge-spans.counts');
  const doc = corpus.find((d) => d.id === 'uni-1')!;
  const frequentLine = doc.text.indexOf('😀');
  const withSpans: Doc = { ...doc, loss_mask_spans: [[0, 3], [frequentLine + 4, frequentLine + 6], [doc.text.length - 2, doc.text.length]] };
  const { out } = await applyWith([withSpans], counts, { minDocs: 5, minFrac: 0 });
  const ours = referenceSpans(corpus, 10, 5)[corpus.indexOf(doc)]!;
  assert.deepEqual(out[0]!.loss_mask_spans, mergeSpans(withSpans.loss_mask_spans!, ours));
  assert.deepEqual(out[0]!.loss_mask_spans, [[0, 3], ours[0]!, ours[1]!, [doc.text.length - 2, doc.text.length]]);
  assert.deepEqual(mergeSpans([[0, 2], [5, 7]], [[2, 4], [6, 9], [12, 13]]), [[0, 4], [5, 9], [12, 13]]);
});

test('lines holding stage-placed special tokens are structure, never masked', async () => {
  const docs: Doc[] = Array.from({ length: 6 }, (_, i) => {
    const r = formatRepoDocument(`owner/repo-${i}`, [
      { path: 'src/index.js', content: `'use strict';\nmodule.exports = require('./lib/common-helpers');\nconst v${i} = ${i};` },
    ]);
    return { id: `r${i}`, kind: 'repo', source: `owner/repo-${i}`, text: r.text, special_spans: r.special_spans, meta: {} };
  });
  const counts = await countTo(docs, 'special.counts');
  const { out } = await applyWith(docs, counts, { minDocs: 5, minFrac: 0 });
  for (const d of out) {
    assert.deepEqual(
      d.loss_mask_spans!.map(([a, b]) => d.text.slice(a, b)),
      ["'use strict';\nmodule.exports = require('./lib/common-helpers');\n"],
    );
  }
});

test('1 rank, 1 rank spilling tiny runs, and 4 ranks merged give byte-identical counts and the same masks', slow, async () => {
  const single = await countTo(corpus, 'one.counts', { samples: 50 });
  const spilled = join(tmp, 'spilled.counts');
  const spill = await countSegments(fromArray(corpus), spilled, { workDir: tmp, samples: 50, memoryMb: 0.01, fanIn: 3 });
  assert.ok(spill.runs > 3, `${spill.runs} runs spilled (merged in rounds of 3)`);
  const ranks: string[] = [];
  for (let r = 0; r < 4; r++) ranks.push(await countTo(corpus.filter((_, i) => i % 4 === r), `rank-${r}.counts`, { samples: 50 }));
  const merged = join(tmp, 'merged.counts');
  mergeCountsFiles(ranks, merged, 50);

  const header = readCountsHeader(single);
  assert.equal(header.documents, corpus.length);
  assert.ok(header.segments_distinct > 5000, `${header.segments_distinct} distinct segments`);
  assert.ok(readSamples(single, header).some((s) => s.text.includes('Licensed to the Apache Software Foundation')));
  assert.ok(readFileSync(single).equals(readFileSync(spilled)), 'spilled runs merge to the same file');
  // Ranks: the counts (header figures and every record) are byte-identical; samples are a
  // best-effort subset (a rank keeps samples for its own most frequent segments only).
  const records = (p: string) => readFileSync(p).subarray(HEADER_BYTES, HEADER_BYTES + header.segments_distinct * RECORD_BYTES);
  const { samples: _s, samples_bytes: _b, ...figures } = readCountsHeader(merged);
  const { samples: _s1, samples_bytes: _b1, ...figures1 } = header;
  assert.deepEqual(figures, figures1);
  assert.ok(records(merged).equals(records(single)), '4 ranks merged give the same records');
  const singleSamples = new Map(readSamples(single, header).map((s) => [s.hash, s]));
  const mergedSamples = readSamples(merged, readCountsHeader(merged));
  assert.ok(mergedSamples.length >= 40, `${mergedSamples.length} samples after the merge`);
  for (const s of mergedSamples) assert.deepEqual(s, singleSamples.get(s.hash));
  for (const s of singleSamples.values()) if (s.docs >= 10) assert.ok(mergedSamples.some((m) => m.hash === s.hash), `sample of "${s.text}" kept`);

  const a = await applyWith(corpus, single, { minDocs: 3 });
  const b = await applyWith(corpus, merged, { minDocs: 3 });
  assert.deepEqual(b.out, a.out);
  assert.deepEqual(b.ctx.stats, a.ctx.stats);
});

test('mask merge refuses counts made with different segment parameters, naming the file', async () => {
  const a = await countTo(unicodeDocs, 'p10.counts', { minChars: 10 });
  const b = await countTo(unicodeDocs, 'p20.counts', { minChars: 20 });
  assert.throws(() => mergeCountsFiles([a, b], join(tmp, 'bad.counts'), 10), (e: Error) => e.message.includes('p20.counts') && e.message.includes('min_chars'));
  writeFileSync(join(tmp, 'garbage.counts'), 'not counts at all');
  assert.throws(() => loadFrequent(join(tmp, 'garbage.counts')), /garbage\.counts: not a midpack mask counts file/);
});

test('bad records are counted by reason and the ledger balances', async () => {
  const input = join(tmp, 'bad.jsonl');
  const good = corpus.slice(0, 3).map((d) => JSON.stringify(d));
  writeFileSync(input, [good[0], '{"id": "x", "text": ', good[1], '{"id": "y"}', good[2], ''].join('\n'));
  const ctx = defaultContext({ log: () => {} });
  const { header } = await countSegments(readDocuments([input], ctx.ledger), join(tmp, 'bad.counts'), { workDir: tmp }, ctx);
  assert.equal(header.documents, 3);
  assert.deepEqual(ctx.ledger.toJSON().dropped, { malformed_json: 1, missing_text: 1 });
  assert.ok(ctx.ledger.balanced());
});

test('stats report masked characters by kind and source and the top segments with samples', async () => {
  const counts = await countTo(corpus, 'stats.counts');
  const { out, ctx } = await applyWith(corpus, counts, { minDocs: 5, minFrac: 0 }, { top: 5 });
  const s = ctx.stats.mask as {
    masked_chars: number;
    chars: number;
    documents_with_masks: number;
    by_kind: Record<string, { masked_chars: number }>;
    by_source: Record<string, { masked_chars: number }>;
    top_segments: { docs: number; text: string }[];
  };
  const maskedChars = out.reduce((n, d) => n + (d.loss_mask_spans ?? []).reduce((m, [a, b]) => m + b - a, 0), 0);
  assert.equal(s.masked_chars, maskedChars);
  assert.equal(s.chars, corpus.reduce((n, d) => n + d.text.length, 0));
  assert.equal(s.documents_with_masks, out.filter((d) => d.loss_mask_spans?.length).length);
  assert.equal(s.by_kind.text!.masked_chars + s.by_kind.web!.masked_chars, maskedChars);
  assert.ok(s.by_source['apache-arrow']!.masked_chars > 0);
  assert.equal(s.top_segments.length, 5);
  assert.ok(s.top_segments.every((t, i) => typeof t.text === 'string' && (i === 0 || s.top_segments[i - 1]!.docs >= t.docs)));
  assert.ok(ctx.ledger.recordsOut === corpus.length);
});

test('HashTable sorts its keys as unsigned 64-bit numbers and grows without losing counts', () => {
  const t = new HashTable(16, true);
  const keys: [number, number][] = [];
  for (let i = 0; i < 5000; i++) keys.push([(i * 2654435761) >>> 0, (i * 40503 + 0x80000000) >>> 0]);
  for (const [hi, lo] of keys) t.add(hi, lo, 2);
  for (const [hi, lo] of keys.slice(0, 100)) t.add(hi, lo, 1);
  assert.equal(t.size, 5000);
  const sorted = [...t.sortedSlots()].map((s) => (BigInt(t.keyHi(s)) << 32n) | BigInt(t.keyLo(s)));
  const expected = keys.map(([hi, lo]) => (BigInt(hi) << 32n) | BigInt(lo)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  assert.deepEqual(sorted, expected);
  assert.equal(t.value(t.find(keys[0]![0], keys[0]![1])), 3);
  assert.equal(t.value(t.find(keys[4999]![0], keys[4999]![1])), 2);
  t.clear();
  assert.equal(t.find(keys[0]![0], keys[0]![1]), -1);
});

/** `body` run with the native core's count-table loops taken from the addon: HashTable's JavaScript loops. */
async function withoutNativeCountTable<T>(body: () => Promise<T> | T): Promise<T> {
  const binding = nativeBinding() as unknown as Record<string, unknown>;
  const names = ['countTableKeys', 'countTableMove', 'countTableSorted', 'countTableRecords', 'countTableWords'];
  const saved = names.map((n) => binding[n]);
  assert.ok(saved.every((f) => typeof f === 'function'), 'the addon has the count-table loops');
  for (const n of names) delete binding[n];
  try {
    return await body();
  } finally {
    names.forEach((n, i) => (binding[n] = saved[i]));
  }
}

test('the native count table gives the JavaScript loops\' counts files byte for byte: in memory, spilling, and growing', async () => {
  // memoryMb 64: a table of 2^20 slots, in memory of its own (countTableWords).
  const options = [{ samples: 50 }, { samples: 50, memoryMb: 0.01, fanIn: 3 }, { samples: 3, memoryMb: 2 }, { samples: 50, memoryMb: 64 }];
  for (const [k, o] of options.entries()) {
    const native = await countTo(corpus, `native-${k}.counts`, o);
    const js = await withoutNativeCountTable(() => countTo(corpus, `js-${k}.counts`, o));
    assert.ok(readFileSync(native).equals(readFileSync(js)), `options ${JSON.stringify(o)}: the same bytes`);
  }
});

test('a large HashTable in memory of its own (countTableWords): zeroed, 2 MB pages, its counts kept across a child process and the same as in plain memory', async () => {
  const words = (nativeBinding() as unknown as { countTableWords(slots: number): Uint32Array | undefined }).countTableWords;
  assert.equal(words(2 ** 16), undefined, 'a table under 2 MB: plain memory');
  if (process.platform === 'linux') assert.equal(words(2 ** 17)?.length, 2 ** 19);
  const found = corpus.flatMap((d) => [...documentSegments(d, loadSegmenter(segmentParams()))]);
  const run = () => {
    const t = new HashTable(2 ** 17);
    for (let pass = 0; pass < 3; pass++) {
      t.countKeys(Uint32Array.from(found), 0, found.length, 4, t.capacity / 2, 1);
      // A child forked between counts (as a prepare worker's git is): it runs, and the table keeps its counts.
      assert.equal(spawnSync('true').status, 0);
    }
    t.resize(2 ** 18);
    return [...t.records()];
  };
  const own = run();
  const plain = await withoutNativeCountTable(run);
  assert.ok(own.length > 3 * 5000, 'thousands of keys');
  assert.deepEqual(own, plain);
});

test('HashTable.countKeys stops where the table must grow, with the same candidates, slots and order natively as in JavaScript', async () => {
  const longest = corpus.reduce((a, b) => (b.text.length > a.text.length ? b : a));
  const found = documentSegments(longest, loadSegmenter(segmentParams()));
  const run = () => {
    const t = new HashTable(64);
    const steps: unknown[] = [];
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < found.length; ) {
        const r = t.countKeys(found, i, found.length, 4, t.capacity / 2, pass + 1);
        steps.push([r.stoppedAt, [...r.candidates], t.size]);
        i = r.stoppedAt;
        if (i < found.length) t.resize(t.capacity * 2);
      }
    }
    return { steps, sorted: [...t.sortedSlots()].map((s) => [t.keyHi(s), t.keyLo(s), t.value(s)]) };
  };
  const native = run();
  const js = await withoutNativeCountTable(run);
  assert.ok(native.steps.length > 3, 'the table grew on the way');
  assert.deepEqual(native, js);
  assert.ok(native.sorted.every(([, , v]) => v === 2));
});

test('counts of ranks carry rank and world size: mask merge refuses a missing rank naming it, --allow-missing-ranks records it, and the missing rank refuses those counts', async () => {
  const part = (r: number) => countTo(corpus.filter((_, i) => i % 3 === r), `ranked-${r}.counts`, { rank: { rank: r, worldSize: 3 } });
  const [c0, c1, c2] = [await part(0), await part(1), await part(2)];
  assert.deepEqual([readCountsHeader(c1).ranks, readCountsHeader(c1).world_size], [[1], 3]);
  assert.throws(() => mergeCountsFiles([c0, c2], join(tmp, 'no1.counts'), 10), /mask merge: missing rank 1 of 0\.\.2/);
  assert.throws(() => mergeCountsFiles([c0, c1, c1, c2], join(tmp, 'twice.counts'), 10), /rank 1 is given twice/);
  const unranked = await countTo(corpus.slice(0, 5), 'unranked.counts');
  assert.throws(() => mergeCountsFiles([c0, c1, c2, unranked], join(tmp, 'mixed.counts'), 10), /unranked\.counts is counts of no rank/);
  const all = join(tmp, 'all-ranks.counts');
  assert.deepEqual(mergeCountsFiles([c2, c0, c1], all, 10).ranks, [0, 1, 2]);
  for (const r of [0, 1, 2]) checkCountsCover(all, readCountsHeader(all), { rank: r, worldSize: 3 });
  const partial = join(tmp, 'partial.counts');
  const h = mergeCountsFiles([c0, c2], partial, 10, { allowMissingRanks: true });
  assert.deepEqual([h.ranks, h.missing_ranks], [[0, 2], [1]]);
  assert.deepEqual(readCountsHeader(partial).missing_ranks, [1], 'recorded in the file');
  checkCountsCover(partial, h, { rank: 2, worldSize: 3 });
  assert.throws(() => checkCountsCover(partial, h, { rank: 1, worldSize: 3 }), /do not include this rank \(1\)/);
  assert.throws(() => checkCountsCover(all, readCountsHeader(all), { rank: 1, worldSize: 4 }), /a run over 3 ranks; this is rank 1 of 4/);
});

test('segments found elsewhere by the definition (xxhash-wasm, as a prepare worker hands them over) give the same counts file as the native segmenter, in memory and spilling', async () => {
  const reference = await referenceSegmenter(segmentParams().min_chars);
  const found = new Map(corpus.map((d) => [d, Uint32Array.from(reference(d, true))]));
  assert.deepEqual(found.get(corpus[0]!), documentSegments(corpus[0]!, loadSegmenter(segmentParams())));
  // Some documents counted from segments found elsewhere, the others by the counter itself, as when a worker finds some.
  const segmentsOf = (d: Doc) => (Number(d.id.split('-')[1]) % 3 !== 0 ? found.get(d) : undefined);
  for (const [name, options] of [
    ['memory', { samples: 50 }],
    ['spilling', { samples: 50, memoryMb: 0.01, fanIn: 3 }],
  ] as const) {
    const here = await countTo(corpus, `here-${name}.counts`, options);
    const elsewhere = await countTo(corpus, `elsewhere-${name}.counts`, { ...options, segmentsOf });
    assert.ok(readFileSync(here).equals(readFileSync(elsewhere)), `${name}: the same counts file`);
  }
  assert.ok([...found.values()].reduce((n, f) => n + f.length / 4, 0) > 5000);
});
