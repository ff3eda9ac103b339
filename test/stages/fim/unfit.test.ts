import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { collect, defaultContext, fromArray } from '../../../src/core/stage.js';
import { fimStage, type FimStats } from '../../../src/stages/fim/stage.js';
import { fimInputDocs } from '../../../src/stages/fim/inputs.js';
import { codeDoc, realCode } from './helpers.js';

test('fim passes an empty document through untransformed (skipped: empty_text) and drops one with a lone surrogate (invalid_unicode)', async () => {
  const real = realCode().slice(0, 2).map((f) => codeDoc(f));
  const docs = [real[0]!, codeDoc({ path: 'empty.py', text: '' }), codeDoc({ path: 'bad.py', text: 'x = "\ud800"\n' }), real[1]!];
  const ctx = defaultContext({ seed: 3, log: () => {} });
  ctx.ledger.input(docs.length);
  const out = await collect(fimStage({ fimRate: 1, formats: { fim: 1, chat_fim: 0, sr_fim: 0 } })(fromArray(docs), ctx));
  assert.equal(out.length, 3);
  assert.deepEqual(out.map((d) => d.meta.source_id ?? d.id), [real[0]!.id, 'empty.py', real[1]!.id]);
  assert.deepEqual(out[1], docs[1], 'the empty document is no bare <|fim_prefix|><|fim_suffix|><|fim_middle|> frame');
  assert.deepEqual((ctx.stats.fim as FimStats).skipped, { empty_text: 1 });
  assert.deepEqual(ctx.ledger.toJSON().dropped, { invalid_unicode: 1 });
  assert.match(ctx.ledger.toJSON().examples.invalid_unicode![0]!, /bad\.py/);
  assert.ok(ctx.ledger.balanced());
});

test('S&R prompts name the file by its path inside the input, never the absolute local path', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-fim-names-'));
  mkdirSync(join(dir, 'pkg', 'lib'), { recursive: true });
  const text = readFileSync(realCode()[0]!.path, 'utf8');
  writeFileSync(join(dir, 'pkg', 'lib', 'command.js'), text);
  writeFileSync(join(dir, 'alone.js'), text);
  const ctx = defaultContext({ seed: 5, log: () => {} });
  const inputs = [resolve(join(dir, 'pkg')), resolve(join(dir, 'alone.js'))];
  const out = await collect(fimStage({ fimRate: 1, formats: { fim: 0, chat_fim: 0, sr_fim: 1 } })(fimInputDocs(inputs, ctx.ledger, 5, 1 << 20), ctx));
  assert.equal(out.length, 2);
  assert.deepEqual(out.map((d) => d.meta.path), ['lib/command.js', 'alone.js']);
  for (const d of out) {
    assert.equal(d.kind, 'sr');
    assert.ok(!d.text.includes(dir), `no local path in the sample: ${d.text.slice(0, 200)}`);
    assert.match(d.text, new RegExp(`Code is missing from ${String(d.meta.path).replace('.', '\\.')} `));
  }
});
