import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import type { Doc, Span } from '../../../src/doc/document.js';
import { loadSegmenter, segmentParams } from '../../../src/stages/mask/index.js';
import { LineText } from '../../../src/stages/mask/segments.js';
import { appendDocLine } from '../../../src/doc/json-line.js';
import { formatRepoDocument } from '../../../src/stages/repos/format.js';
import { referenceSegmenter } from '../../helpers/reference-segments.js';
import { repoRoot } from '../../helpers/paths.js';
import { samplePages, webSetPages } from '../../helpers/web-pages.js';

/**
 * The native segmenter (native/src/segments.cpp) against the segments' definition written out in
 * JavaScript with xxhash-wasm (test/helpers/reference-segments.ts): the same words for every
 * document, every segment and distinct, at two minimum lengths.
 */
type Text = Pick<Doc, 'text' | 'special_spans'> & { name: string };

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? filesUnder(p) : [p];
    });
}

/** Real texts: the shipped sample repositories' files and web pages as raw HTML, a repository as one document with its special spans, and a seeded sample of both web sets' pages. */
function realTexts(): Text[] {
  const samples = ['repos', 'web'].flatMap((d) => filesUnder(join(repoRoot, 'data-samples', d)));
  const texts: Text[] = samples.map((p) => ({ name: p, text: readFileSync(p, 'utf8') }));
  const repoFiles = filesUnder(join(repoRoot, 'data-samples', 'repos', 'cli-progress')).map((p) => ({ path: p.slice(repoRoot.length + 1), content: readFileSync(p, 'utf8') }));
  const repo = formatRepoDocument('cli-progress', repoFiles);
  assert.ok(repo.special_spans.length > 10, 'the repository document has special spans');
  texts.push({ name: 'cli-progress (formatted)', text: repo.text, special_spans: repo.special_spans });
  const sets = webSetPages();
  if (sets) for (const [i, pages] of sets.entries()) for (const p of samplePages(pages, 40, 7 + i)) texts.push({ name: p, text: new TextDecoder().decode(p.endsWith('.gz') ? gunzipSync(readFileSync(p)) : readFileSync(p)) });
  return texts;
}

/** Every UTF-16 unit but '\n' around a line, twice before and once after: the trim set, lone surrogates and pairs split by the trim, unit by unit. */
function everyUnit(): Text {
  const lines: string[] = [];
  for (let c = 0; c < 0x10000; c++) if (c !== 10) lines.push(`${String.fromCharCode(c, c)}line ${c} text${String.fromCharCode(c)}`);
  return { name: 'every unit', text: lines.join('\n') };
}

/** Lines of every length from 0 to 80 units, ASCII and with two-, three- and four-byte characters: XXH64's 32-, 8- and 4-byte steps. */
function everyLength(): Text {
  const lines: string[] = [];
  for (const unit of ['a', 'é', '€', '😀', '\ud800', '\udc00x']) for (let n = 0; n <= 80; n++) lines.push(unit.repeat(n).slice(0, n) + `\u00a0`.repeat(n % 3));
  return { name: 'every length', text: lines.join('\r\n') + '\n' };
}

/** Special spans at and across line boundaries (a span ending where a line starts does not touch it). */
function specials(): Text {
  const text = Array.from({ length: 40 }, (_, i) => `shared special line ${i % 7}`).join('\n');
  const spans: Span[] = [];
  for (let at = 5, i = 0; at < text.length - 30; at += 97, i++) spans.push([at, at + (i % 4 === 0 ? 0 : (i % 3) * 20)]);
  const starts = [...text.matchAll(/\n/g)].map((m) => m.index! + 1);
  spans.push([starts[30]! - 1, starts[30]!]); // the newline alone: ends where line 30 starts
  spans.sort((a, b) => a[0] - b[0]);
  return { name: 'specials', text, special_spans: spans.filter((s, i) => i === 0 || s[0] >= spans[i - 1]![1]) };
}

test('the native segmenter gives the words of the definition (xxhash-wasm over trimmed lines) on real documents and every unit and length', async () => {
  const texts = [...realTexts(), everyUnit(), everyLength(), specials()];
  let segments = 0;
  for (const minChars of [10, 1]) {
    const native = loadSegmenter(segmentParams(minChars));
    const reference = await referenceSegmenter(minChars);
    for (const t of texts) {
      for (const distinct of [false, true]) {
        const want = reference(t, distinct);
        const got = native(t, distinct);
        assert.deepEqual([...got], want, `${t.name}: minChars ${minChars}, distinct ${distinct}`);
        segments += want.length / 4;
      }
    }
  }
  assert.ok(segments > 200_000, `${segments} segments compared`);
});

test('a line of a document read from its JSONL line (LineText) is the parsed text\'s slice, for every segment in order and out of order', () => {
  for (const t of [...realTexts(), everyUnit(), everyLength(), specials()]) {
    const doc = { id: t.name, kind: 'repo' as const, source: 's', text: t.text, meta: { n: 1 }, ...(t.special_spans ? { special_spans: t.special_spans } : {}) };
    const sink = { buf: Buffer.alloc(16), used: 0, room(bytes: number) { if (this.buf.length - this.used < bytes) this.buf = Buffer.concat([this.buf.subarray(0, this.used), Buffer.alloc(bytes + this.used)]); return this.buf; } };
    appendDocLine(doc, sink);
    const line = sink.buf.subarray(0, sink.used);
    const segments = loadSegmenter(segmentParams(1))(doc);
    let parsed = 0;
    const text = new LineText(line, () => (parsed++, doc));
    for (let i = 0; i < segments.length; i += 4) assert.equal(text.slice(segments[i + 2]!, segments[i + 3]!), t.text.slice(segments[i + 2]!, segments[i + 3]!), t.name);
    for (let i = segments.length - 4; i >= 0; i -= 4 * 7) assert.equal(text.slice(segments[i + 2]!, segments[i + 3]!), t.text.slice(segments[i + 2]!, segments[i + 3]!), t.name);
    assert.equal(text.slice(t.text.length, t.text.length + 1), '', `${t.name}: past the end, from the parsed text`);
    assert.equal(parsed, 1, `${t.name}: parsed only for the slice past the text`);
  }
});
