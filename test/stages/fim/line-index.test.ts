import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../helpers/paths.js';
import { LineIndex } from '../../../src/stages/fim/line-index.js';
import { countOccurrences, splitLines } from '../../../src/stages/fim/text.js';
import { Rng } from '../../../src/core/random.js';

/** Real files with many repeated lines (braces, blank lines, `return`s) and lines that end other lines. */
const FILES = ['node_modules/commander/lib/command.js', 'node_modules/yaml/dist/compose/resolve-block-scalar.js', 'src/stages/fim/search-replace.ts'];

test('LineIndex.find counts a block as a substring search of the lines in range does, on real files', () => {
  const rng = new Rng(7, 'line-index');
  let checked = 0;
  for (const f of FILES) {
    const text = readFileSync(join(repoRoot, f), 'utf8');
    const lines = splitLines(text.endsWith('\n') ? text : text + '\n');
    const idx = new LineIndex(lines);
    for (let t = 0; t < 600; t++) {
      const k = 1 + Math.floor(rng.next() * 4);
      const start = Math.floor(rng.next() * (lines.length - k));
      let search = lines.slice(start, start + k);
      // Sometimes only the end of the first line (it may then end other lines too), or a line the file lacks.
      if (t % 5 === 1) search = [search[0]!.slice(Math.floor(search[0]!.length / 2)), ...search.slice(1)];
      if (t % 17 === 3) search = [...search.slice(0, -1), 'no such line in the file\n'];
      const from = t % 3 === 0 ? 0 : Math.floor(rng.next() * lines.length);
      const to = t % 3 === 0 ? lines.length : from + Math.floor(rng.next() * (lines.length - from + 1));
      const want = countOccurrences(lines.slice(from, to).join(''), search.join(''));
      assert.equal(idx.find(search, from, to).length, want, `${f}: ${JSON.stringify(search)} in [${from}, ${to})`);
      checked++;
    }
  }
  assert.equal(checked, 1800);
});

test('LineIndex.find gives the first places in order, and a line that ends another one counts', () => {
  const idx = new LineIndex(['  }\n', '}\n', 'x\n', '}\n', 'x\n']);
  assert.deepEqual(idx.find(['}\n']), [0, 1]);
  assert.deepEqual(idx.find(['}\n'], 0, 5, 10), [0, 1, 3]);
  assert.deepEqual(idx.find(['}\n', 'x\n']), [1, 3]);
  assert.deepEqual(idx.find(['}\n', 'x\n'], 2), [3]);
  assert.deepEqual(idx.find(['y\n']), []);
});

test('LineIndex.find gives the same places whether a one-line block is answered by a scan (the first questions) or by the suffix order', () => {
  const rng = new Rng(11, 'line-index-scan');
  for (const f of FILES) {
    const text = readFileSync(join(repoRoot, f), 'utf8');
    const lines = splitLines(text.endsWith('\n') ? text : text + '\n');
    const sorted = new LineIndex(lines);
    for (let t = 0; t < 40; t++) sorted.find([lines[t]!]); // past the scans: the suffix order from here on
    for (let t = 0; t < 200; t++) {
      const line = lines[Math.floor(rng.next() * lines.length)]!;
      const search = [t % 2 ? line.slice(Math.floor(line.length / 2)) : line];
      const from = Math.floor(rng.next() * lines.length);
      assert.deepEqual(new LineIndex(lines).find(search, from, lines.length, 5), sorted.find(search, from, lines.length, 5), `${f}: ${JSON.stringify(search)} from ${from}`);
    }
  }
});
