import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SPECIAL } from '../../../src/doc/specials.js';
import type { TextBuilder } from '../../../src/doc/text-builder.js';
import { applyBlocks, buildBlocks, formatBlocks, parseBlocks } from '../../../src/stages/fim/search-replace.js';
import { buildSrFim, holedFile, verifySrFim } from '../../../src/stages/fim/fim-sample.js';
import { chatTurns, countOccurrences } from '../../../src/stages/fim/text.js';
import { DEFAULT_FIM_OPTIONS, transformDoc, type FimOptions, type FimStats } from '../../../src/stages/fim/stage.js';
import { EDGE_FILES, codeDoc, realCode, specialStrings } from './helpers.js';

const newStats = (): FimStats => ({ transformed: 0, untouched: 0, formats: {}, span_modes: {}, unit_fallback: {}, skipped: {}, verify_failed: {}, source_chars: 0 });
const srOnly = (span: 'char' | 'line' | 'unit', extra: Partial<FimOptions> = {}): FimOptions => ({
  ...DEFAULT_FIM_OPTIONS,
  fimRate: 1,
  formats: { fim: 0, chat_fim: 0, sr_fim: 1 },
  spans: { char: 0, line: 0, unit: 0, [span]: 1 },
  ...extra,
});

/** The holed file and the one block of an S&R FIM sample, read from its text. */
function readSample(text: string, special_spans: [number, number][], path: string) {
  const doc = { text, special_spans };
  const [, user, answer] = chatTurns(doc);
  const header = `${SPECIAL.fileSep}${path}\n`;
  const holed = text.slice(text.lastIndexOf(header, user!.end) + header.length, user!.end);
  return { holed, blocks: parseBlocks(text.slice(answer!.start, answer!.end)).blocks };
}

test('the Aider SEARCH/REPLACE format is exact and parses back', () => {
  const blocks = [
    { path: 'src/a.py', search: 'x = 1\n', replace: 'x = 2\ny = 3\n' },
    { path: 'b.txt', search: '', replace: 'new\n' },
  ];
  const text = formatBlocks(blocks);
  assert.equal(text, 'src/a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\ny = 3\n>>>>>>> REPLACE\n\nb.txt\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n');
  assert.deepEqual(parseBlocks(text), { blocks, rest: text.length });
});

test('a SEARCH text that occurs twice is widened until unique, or skipped and counted', () => {
  const before = 'def a():\n    return 1\n\n\ndef b():\n    return 1\n';
  const after = 'def a():\n    return 1\n\n\ndef b():\n    return 2\n';
  const r = buildBlocks('m.py', before, after, { maxContextLines: 5 });
  assert.ok('blocks' in r);
  assert.deepEqual(r.blocks, [{ path: 'm.py', search: 'def b():\n    return 1\n', replace: 'def b():\n    return 2\n' }]);
  assert.equal(countOccurrences(before, r.blocks[0]!.search), 1);
  assert.equal((applyBlocks(new Map([['m.py', before]]), r.blocks) as Map<string, string>).get('m.py'), after);
  // Both returns change: the first block is widened, the second is unique once the first applied.
  const both = buildBlocks('m.py', before, after.replace('return 1', 'return 3'), { maxContextLines: 5 });
  assert.ok('blocks' in both && both.blocks.length === 2);
  assert.equal((applyBlocks(new Map([['m.py', before]]), both.blocks) as Map<string, string>).get('m.py'), after.replace('return 1', 'return 3'));
  // No room to widen: a reason, not a wrong block.
  assert.deepEqual(buildBlocks('m.py', before, after, { maxContextLines: 0 }), { reason: 'sr_not_unique', message: 'm.py: no SEARCH within 0 context lines is unique' });
  // In the stage: a file made of one repeated line can never have a unique SEARCH; counted, passed through.
  const stats = newStats();
  const rep = codeDoc({ path: 'r.txt', text: 'same\n'.repeat(30) });
  assert.equal(transformDoc(rep, srOnly('line', { placeholder: '', maxContextLines: 2 }), 1, stats), undefined);
  assert.equal(Object.values(stats.skipped).reduce((s, n) => s + n, 0), 1);
  assert.ok((stats.skipped.sr_not_unique ?? 0) + (stats.skipped.sr_no_change ?? 0) === 1, JSON.stringify(stats.skipped));
});

test('S&R FIM on real code and edge files: one block, SEARCH unique in the holed file, restores the source', () => {
  let n = 0;
  for (const f of [...realCode(), ...EDGE_FILES]) {
    for (const span of ['char', 'line', 'unit'] as const) {
      for (const placeholder of ['[MISSING CODE]', '']) {
        for (let k = 0; k < 3; k++) {
          const stats = newStats();
          const s = transformDoc(codeDoc(f, `${f.path}#${k}`), srOnly(span, { placeholder }), 9, stats);
          if (!s && f.text === '') {
            // An empty file is no sample: it passes through, counted by reason.
            assert.deepEqual(stats.skipped, { empty_text: 1 });
            continue;
          }
          if (!s) {
            // Only removal without a mark can leave nothing to restore or change the final newline.
            assert.equal(placeholder, '', `${f.path} ${span}: ${JSON.stringify(stats)}`);
            assert.ok(Object.keys(stats.skipped).every((r) => ['sr_no_change', 'sr_final_newline_change', 'sr_not_unique'].includes(r)), JSON.stringify(stats.skipped));
            continue;
          }
          n++;
          assert.equal(s.kind, 'sr');
          assert.equal(s.meta.format, 'sr_fim');
          const [a, b] = s.meta.span as [number, number];
          const parts = { prefix: f.text.slice(0, a), middle: f.text.slice(a, b), suffix: f.text.slice(b) };
          const { holed, blocks } = readSample(s.text, s.special_spans!, f.path);
          assert.equal(holed, holedFile(parts, placeholder));
          assert.equal(blocks.length, 1);
          const work = holed.endsWith('\n') || holed === '' ? holed : holed + '\n';
          assert.equal(countOccurrences(work, blocks[0]!.search), 1);
          assert.equal((applyBlocks(new Map([[f.path, holed]]), blocks) as Map<string, string>).get(f.path), f.text);
          assert.equal(verifySrFim(s, f.path, f.text), null);
          assert.deepEqual(specialStrings(s).filter((t) => t.startsWith('<|fim')), []);
        }
      }
    }
  }
  assert.ok(n > 80, `${n} samples`);
});

test('S&R FIM at file start and end, empty middle, CRLF and no final newline', () => {
  const crlf = EDGE_FILES.find((f) => f.path === 'crlf.js')!.text;
  const noNl = EDGE_FILES.find((f) => f.path === 'tabs.ts')!.text;
  const cases: [string, number, number][] = [
    [crlf, 0, 15],
    [crlf, 15, 15],
    [crlf, 30, crlf.length],
    [noNl, 0, 0],
    [noNl, noNl.lastIndexOf('\n') + 1, noNl.length],
    [noNl, 20, noNl.length],
    [noNl, 0, noNl.length],
  ];
  for (const [src, a, b] of cases) {
    const parts = { prefix: src.slice(0, a), middle: src.slice(a, b), suffix: src.slice(b) };
    const files = (holed: string) => (b: TextBuilder, masked: boolean) => {
      const at = b.offset;
      b.special(SPECIAL.fileSep, masked).text(`f.ts\n${holed}`, masked);
      return [at];
    };
    const r = buildSrFim('f.ts', parts, { placeholder: '[MISSING CODE]', maxContextLines: 20, maskPrompt: true }, files);
    assert.ok('built' in r, `${a},${b}: ${JSON.stringify(r)}`);
    assert.equal(verifySrFim(r.built, 'f.ts', src), null);
    const answer = chatTurns(r.built).at(-1)!;
    assert.deepEqual(r.built.loss_mask_spans, [[0, answer.start]]);
  }
  // A marker line in the changed text cannot be written as a block: a reason, not a broken sample.
  const conflict = 'a\n=======\nb\n';
  assert.equal((buildBlocks('c.txt', 'a\nb\n', conflict, { maxContextLines: 3 }) as { reason: string }).reason, 'sr_marker_in_text');
});
