import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ledger } from '../../../src/core/ledger.js';
import { collect, defaultContext, fromArray } from '../../../src/core/stage.js';
import { docToJson, type Doc } from '../../../src/doc/document.js';
import { SPECIAL } from '../../../src/doc/specials.js';
import { formatRepoDocument, parseRepoDocument } from '../../../src/stages/repos/format.js';
import { buildChatFim, buildFim, reconstructFim } from '../../../src/stages/fim/fim-sample.js';
import { findUnits } from '../../../src/stages/fim/spans.js';
import { chatTurns } from '../../../src/stages/fim/text.js';
import { DEFAULT_FIM_OPTIONS, fimStage, transformDoc, type FimOptions, type FimStats } from '../../../src/stages/fim/stage.js';
import { EDGE_FILES, codeDoc, realCode, specialStrings } from './helpers.js';
import { slow } from '../../helpers/tiers.js';

const P = SPECIAL.fimPrefix;
const S = SPECIAL.fimSuffix;
const M = SPECIAL.fimMiddle;

const newStats = (): FimStats => ({ transformed: 0, untouched: 0, formats: {}, span_modes: {}, unit_fallback: {}, skipped: {}, verify_failed: {}, source_chars: 0 });

function only(format: 'fim' | 'chat_fim' | 'sr_fim', span: 'char' | 'line' | 'unit', extra: Partial<FimOptions> = {}): FimOptions {
  return {
    ...DEFAULT_FIM_OPTIONS,
    fimRate: 1,
    formats: { fim: 0, chat_fim: 0, sr_fim: 0, [format]: 1 },
    spans: { char: 0, line: 0, unit: 0, [span]: 1 },
    ...extra,
  };
}

/** The exact PSM/SPM text a sample must have, from its recorded span. */
function expectedFim(source: string, span: [number, number], order: string): string {
  const [a, b] = span;
  const [pre, mid, suf] = [source.slice(0, a), source.slice(a, b), source.slice(b)];
  return order === 'psm' ? P + pre + S + suf + M + mid : P + S + suf + M + pre + mid;
}

test('PSM and SPM samples are token-exact on real code and edge files, for every span mode', slow, () => {
  const files = [...realCode(), ...EDGE_FILES];
  const seen = new Set<string>();
  for (const f of files) {
    for (const span of ['char', 'line', 'unit'] as const) {
      for (let k = 0; k < 6; k++) {
        const stats = newStats();
        const doc = codeDoc(f, `${f.path}#${k}`);
        const s = transformDoc(doc, only('fim', span), 7, stats);
        if (f.text === '') {
          // An empty file is no sample (a bare frame): it passes through, counted by reason.
          assert.equal(s, undefined);
          assert.deepEqual(stats.skipped, { empty_text: 1 });
          continue;
        }
        assert.ok(s, `${f.path} ${span}: ${JSON.stringify(stats)}`);
        const order = s.meta.format as string;
        seen.add(order);
        assert.equal(s.kind, 'fim');
        assert.equal(s.meta.source_id, doc.id);
        assert.equal(s.text, expectedFim(f.text, s.meta.span as [number, number], order));
        // Exactly the three placed tokens are special, wherever the source mentions markers.
        assert.deepEqual(specialStrings(s), order === 'psm' ? [P, S, M] : [P, S, M]);
        assert.equal(s.special_spans![0]![0], 0);
        assert.equal(reconstructFim(s, order as 'psm' | 'spm', false), f.text);
      }
    }
  }
  assert.deepEqual([...seen].sort(), ['psm', 'spm']);
});

test('spans at file start and end, empty middles and files without a final newline', () => {
  const src = EDGE_FILES.find((f) => f.path === 'tabs.ts')!.text; // no final newline
  for (const [a, b] of [
    [0, 0],
    [0, 17],
    [17, 17],
    [40, src.length],
    [src.length, src.length],
    [0, src.length],
  ] as [number, number][]) {
    const parts = { prefix: src.slice(0, a), middle: src.slice(a, b), suffix: src.slice(b) };
    for (const order of ['psm', 'spm'] as const) {
      const built = buildFim(parts, order);
      assert.equal(built.text, expectedFim(src, [a, b], order));
      assert.equal(reconstructFim(built, order, false), src);
      const chat = buildChatFim(parts, order, true);
      assert.equal(reconstructFim(chat, order, true), src);
    }
  }
});

test('char spans never cut a surrogate pair; unit spans are whole functions, classes or blocks from the parser', () => {
  const emoji = { path: 'e.py', text: '😀😀😀😀😀😀😀😀\n'.repeat(4) };
  for (let k = 0; k < 40; k++) {
    const s = transformDoc(codeDoc(emoji, `e${k}`), only('fim', 'char'), 1, newStats())!;
    const [a, b] = s.meta.span as [number, number];
    for (const at of [a, b]) assert.ok(at === emoji.text.length || !/[\udc00-\udfff]/.test(emoji.text[at]!), `split at ${at}`);
  }
  const py = 'import os\n\n@cache\ndef f(x):\n    if x:\n        return 1\n    return 2\n\nclass C:\n    def m(self):\n        pass\n';
  const units = findUnits(py, 'python').map(([a, b]) => py.slice(a, b));
  assert.ok(units.includes('@cache\ndef f(x):\n    if x:\n        return 1\n    return 2'));
  assert.ok(units.includes('def f(x):\n    if x:\n        return 1\n    return 2'));
  assert.ok(units.includes('if x:\n        return 1'));
  assert.ok(units.includes('class C:\n    def m(self):\n        pass'));
  const ts = 'export class T {\n  m(x: number): number { return x; }\n}\nconst g = (y: string) => { return y; };\n';
  const tsUnits = findUnits(ts, 'typescript').map(([a, b]) => ts.slice(a, b));
  assert.ok(tsUnits.includes('class T {\n  m(x: number): number { return x; }\n}'));
  assert.ok(tsUnits.includes('m(x: number): number { return x; }'));
  assert.ok(tsUnits.includes('(y: string) => { return y; }'));
  // Real code: every unit middle is one of the parser's units.
  for (const f of realCode()) {
    const s = transformDoc(codeDoc(f), only('fim', 'unit'), 3, newStats())!;
    assert.equal(s.meta.span_mode, 'unit', f.path);
    const [a, b] = s.meta.span as [number, number];
    assert.ok(/^(def |class |interface |enum |@|if|for|while|try|with|function|async|\{|\(|[A-Za-z_$#]+\s*[(<])/.test(f.text.slice(a, b)), `${f.path}: ${f.text.slice(a, a + 40)}`);
  }
  // Other languages fall back to line spans, counted.
  const stats = newStats();
  const c = transformDoc(codeDoc(EDGE_FILES.find((f) => f.path === 'one-line.c')!), only('fim', 'unit'), 1, stats)!;
  assert.equal(c.meta.span_mode, 'line');
  assert.deepEqual(stats.unit_fallback, { unit_unsupported_language: 1 });
});

test('chat-FIM puts the FIM request in the user turn and can mask the prompt exactly', () => {
  const f = EDGE_FILES.find((x) => x.path === 'markers.py')!;
  for (const mask of [false, true]) {
    const s = transformDoc(codeDoc(f), only('chat_fim', 'line', { maskPrompt: mask, spmRate: 0 }), 2, newStats())!;
    const [a, b] = s.meta.span as [number, number];
    const sys = s.text.slice(0, s.text.indexOf(SPECIAL.imEnd));
    assert.equal(
      s.text,
      `${sys}${SPECIAL.imEnd}\n${SPECIAL.imStart}user\n${P}${f.text.slice(0, a)}${S}${f.text.slice(b)}${M}${SPECIAL.imEnd}\n` +
        `${SPECIAL.imStart}assistant\n${f.text.slice(a, b)}${SPECIAL.imEnd}`,
    );
    assert.deepEqual(specialStrings(s), [SPECIAL.imStart, SPECIAL.imEnd, SPECIAL.imStart, P, S, M, SPECIAL.imEnd, SPECIAL.imStart, SPECIAL.imEnd]);
    const answer = chatTurns(s).at(-1)!;
    assert.deepEqual(s.loss_mask_spans ?? [], mask ? [[0, answer.start]] : []);
  }
});

test('repository-level FIM: the transformed file is last in the repository document, tokens and boundaries consistent', () => {
  const files = realCode().slice(0, 3).map((f, i) => ({ path: `src/f${i}${f.path.slice(f.path.lastIndexOf('.'))}`, content: f.text }));
  const repo = formatRepoDocument('org/repo', files);
  const doc: Doc = { id: 'repo-1', kind: 'repo', source: 'org/repo', text: repo.text, special_spans: repo.special_spans, meta: { boundaries: repo.boundaries, ordering: 'alpha' } };
  const s = transformDoc(doc, only('fim', 'line'), 5, newStats())!;
  const path = s.meta.path as string;
  const content = files.find((f) => f.path === path)!.content;
  const fimAt = s.text.lastIndexOf(`${SPECIAL.fileSep}${path}\n`) + SPECIAL.fileSep.length + path.length + 1;
  const head = { text: s.text.slice(0, fimAt), special_spans: s.special_spans!.filter(([, e]) => e <= fimAt) };
  const parsed = parseRepoDocument(head);
  assert.equal(parsed.repo, 'org/repo');
  assert.deepEqual(parsed.files, [...files.filter((f) => f.path !== path), { path, content: '' }]);
  assert.equal(s.text.slice(fimAt), expectedFim(content, s.meta.span as [number, number], s.meta.format as string));
  assert.deepEqual(s.meta.boundaries, s.special_spans!.filter(([a, b]) => s.text.slice(a, b) === SPECIAL.fileSep).map(([a]) => a));
  assert.equal(s.meta.ordering, 'alpha');
  assert.equal(reconstructFim(s, s.meta.format as 'psm' | 'spm', false), content);
});

test('the stage: seeded, independent of order and batching, passes untouched documents through, balances', async () => {
  const docs = [...realCode(), ...EDGE_FILES].map((f) => codeDoc(f));
  const web: Doc = { id: 'w', kind: 'web', source: 'u', text: 'page', meta: {} };
  const run = async (input: Doc[], seed = 11) => {
    const ctx = defaultContext({ seed, ledger: new Ledger() });
    ctx.ledger.input(input.length); // a reader counts documents in; the stage counts them out
    const out = await collect(fimStage()(fromArray(input), ctx));
    return { out, ctx };
  };
  const a = await run([...docs, web]);
  const b = await run([...docs].reverse());
  assert.equal(a.ctx.ledger.balanced(), true);
  assert.equal(a.ctx.ledger.recordsOut, docs.length + 1);
  const byId = new Map(b.out.map((d) => [String(d.meta.source_id ?? d.id), docToJson(d)]));
  for (const d of a.out) if (d.id !== 'w') assert.equal(docToJson(d), byId.get(String(d.meta.source_id ?? d.id)));
  assert.equal(docToJson(a.out.at(-1)!), docToJson(web));
  const stats = a.ctx.stats.fim as FimStats;
  assert.equal(stats.transformed + stats.untouched, docs.length + 1);
  assert.ok(stats.transformed > 0 && stats.untouched > 0);
  assert.deepEqual(stats.verify_failed, {});
  const untouched = a.out.filter((d) => d.meta.source_id === undefined && d.id !== 'w');
  for (const d of untouched) assert.equal(docToJson(d), docToJson(docs.find((x) => x.id === d.id)!));
  const again = await run([...docs, web]);
  assert.equal(again.out.map(docToJson).join('\n'), a.out.map(docToJson).join('\n'));
  const other = await run([...docs, web], 12);
  assert.notEqual(other.out.map(docToJson).join('\n'), a.out.map(docToJson).join('\n'));
});
