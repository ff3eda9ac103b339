import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRepoDocument } from '../../../src/stages/repos/index.js';
import { serialize, tempDir } from './helpers.js';

test('a Stack-v2 row whose content holds a lone surrogate drops that file alone (invalid_unicode)', async () => {
  const dir = tempDir();
  const files = ['dist/index.js', 'dist/parse/lexer.js', 'dist/stringify/stringify.js'];
  const rows = files.map((path) => ({ repo_name: 'eemeli/yaml', path, content: readFileSync(join('node_modules/yaml', path), 'utf8') }));
  // JSON.stringify writes the lone surrogate as the escape "\ud800", as a Stack-v2 dump does.
  rows.push({ repo_name: 'eemeli/yaml', path: 'bad.js', content: 'const s = "\ud800";\n' });
  const input = join(dir, 'rows.jsonl');
  writeFileSync(input, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  assert.ok(readFileSync(input, 'utf8').includes('\\ud800'));
  const { docs, ctx } = await serialize([input], { order: { alpha: 1 } });
  assert.equal(docs.length, 1, 'the repository is kept');
  assert.deepEqual(parseRepoDocument(docs[0]!).files.map((f) => f.path), [...files].sort());
  assert.ok((docs[0]!.text as unknown as { isWellFormed(): boolean }).isWellFormed());
  const ledger = ctx.ledger.toJSON();
  assert.deepEqual(ledger.dropped, { invalid_unicode: 1 });
  assert.match(ledger.examples.invalid_unicode![0]!, /rows\.jsonl:4: bad\.js: .*surrogate/);
  assert.ok(ctx.ledger.balanced());
});
