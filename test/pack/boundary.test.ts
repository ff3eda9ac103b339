import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SPECIAL } from '../../src/doc/specials.js';
import { formatRepoDocument } from '../../src/stages/repos/format.js';
import { loadTokenizer } from '../../src/tokenize/tokenizer.js';
import { StreamingPacker } from '../../src/pack/index.js';
import { TsStreamingPacker } from './ts-packer.js';
import { runPacker } from './helpers.js';
import { slow } from '../helpers/tiers.js';

test("'boundary' cuts a real repository document (commander's sources, Qwen3 tokens) at its <|file_sep|> tokens and repeats the header", slow, async () => {
  const tok = await loadTokenizer();
  const dir = join('node_modules', 'commander', 'lib');
  const files = readdirSync(dir).sort().map((f) => ({ path: `lib/${f}`, content: readFileSync(join(dir, f), 'utf8') }));
  const repo = formatRepoDocument('tj/commander.js', files);
  const ids = Array.from(tok.encodeDoc({ text: repo.text, special_spans: repo.special_spans }).ids);
  const fileSep = tok.specialId(SPECIAL.fileSep)!;
  const boundaries = ids.flatMap((id, i) => (id === fileSep ? [i] : []));
  assert.equal(boundaries.length, files.length, 'one <|file_sep|> token per file');
  const header = boundaries[0]!;
  const L = 8192;
  assert.ok(ids.length > 3 * L, `the document (${ids.length} tokens) is overlong`);

  const docs = { lengths: [ids.length], boundaries: [boundaries], headers: [header] };
  const bins = runPacker(new StreamingPacker({ capacity: L, overlong: 'boundary' }), docs, 1);
  assert.deepEqual(runPacker(new TsStreamingPacker({ capacity: L, overlong: 'boundary' }), docs, 2), bins);

  const units = bins.flat().sort((a, b) => a[1] - b[1]);
  // the chunks tile the token sequence exactly
  assert.deepEqual(units.flatMap(([, s, e]) => ids.slice(s, e)), ids);
  const headerText = tok.decode(ids.slice(0, header));
  assert.equal(headerText, `${SPECIAL.repoName}tj/commander.js\n`);
  let atFileBoundary = 0;
  units.forEach(([, start, end, h], k) => {
    const sample = [...ids.slice(0, h), ...ids.slice(start, end)];
    assert.ok(sample.length <= L);
    if (k === 0) return assert.equal(h, 0);
    assert.equal(h, header, 'every later chunk repeats the header');
    assert.ok(tok.decode(sample).startsWith(headerText));
    if (ids[start] === fileSep) atFileBoundary++;
    // a chunk starts inside a file only when the file alone is longer than the room
    else assert.equal(units[k - 1]![3] + units[k - 1]![2] - units[k - 1]![1], L, `chunk at token ${start} follows a full chunk`);
  });
  assert.ok(atFileBoundary >= 2, `${atFileBoundary} chunks start at a file`);
});
