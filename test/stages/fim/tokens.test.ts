import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTokenizer } from '../../../src/tokenize/tokenizer.js';
import { SPECIAL } from '../../../src/doc/specials.js';
import { DEFAULT_FIM_OPTIONS, transformDoc, type FimStats } from '../../../src/stages/fim/stage.js';
import { codeDoc } from './helpers.js';
import { slow } from '../../helpers/tiers.js';

const newStats = (): FimStats => ({ transformed: 0, untouched: 0, formats: {}, span_modes: {}, unit_fallback: {}, skipped: {}, verify_failed: {}, source_chars: 0 });

test('placed FIM and ChatML tokens become single special ids; the same strings in source code do not', slow, async () => {
  const tok = await loadTokenizer();
  const source = 'marker = "<|fim_prefix|>"  # <|fim_middle|> and <|im_start|> are plain text here\ndef f():\n    return marker\n';
  const ids = (tokens: string[]) => tokens.map((t) => tok.specialId(t)!);
  for (const format of ['fim', 'chat_fim', 'sr_fim'] as const) {
    const s = transformDoc(
      codeDoc({ path: 'm.py', text: source }),
      { ...DEFAULT_FIM_OPTIONS, fimRate: 1, formats: { fim: 0, chat_fim: 0, sr_fim: 0, [format]: 1 }, spans: { char: 0, line: 1, unit: 0 } },
      4,
      newStats(),
    )!;
    const enc = tok.encodeDoc(s);
    const placed = s.special_spans!.map(([a, b]) => s.text.slice(a, b));
    const specialSet = new Set(ids(Object.values(SPECIAL)));
    const found = Array.from(enc.ids).filter((id) => specialSet.has(id));
    // Exactly the placed tokens (then end-of-text) are special ids, in order, one id each.
    assert.deepEqual(found, [...ids(placed), tok.eosId], format);
    for (const t of placed) assert.ok(tok.specialId(t) !== undefined, t);
    // The decoded ids give back the text: the markers in the source were encoded as ordinary pieces.
    assert.equal(tok.decode(Array.from(enc.ids).slice(0, -1)), s.text);
    assert.ok(tok.encodePlain('<|fim_prefix|>').length > 1);
  }
});
