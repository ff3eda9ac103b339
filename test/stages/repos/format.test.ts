import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatRepoDocument, parseRepoDocument } from '../../../src/stages/repos/format.js';

test('repository format is exact and parses back, markers inside content stay content', () => {
  const files = [
    { path: 'a.py', content: 'import b\n' },
    { path: 'src/b.py', content: 's = "<|file_sep|>not a marker"' },
    { path: 'empty_last_line.txt', content: '' },
  ];
  const f = formatRepoDocument('org/repo', files);
  assert.equal(
    f.text,
    '<|repo_name|>org/repo\n<|file_sep|>a.py\nimport b\n\n<|file_sep|>src/b.py\ns = "<|file_sep|>not a marker"\n<|file_sep|>empty_last_line.txt\n',
  );
  assert.deepEqual(f.boundaries, f.special_spans.slice(1).map(([a]) => a));
  assert.equal(f.text.slice(0, f.boundaries[0]), '<|repo_name|>org/repo\n');
  assert.deepEqual(parseRepoDocument(f), { repo: 'org/repo', files });
});
