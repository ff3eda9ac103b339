import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Doc } from '../../../src/doc/document.js';
import { formatRepoDocument, parseRepoDocument, type RepoFile } from '../../../src/stages/repos/format.js';
import { editDocument, itemsOf, maskItems, removeItems } from '../../../src/stages/hygiene/items.js';

const files: RepoFile[] = ['node_modules/yocto-queue/index.js', 'node_modules/yocto-queue/package.json', 'node_modules/yocto-queue/readme.md', 'node_modules/yocto-queue/license'].map((p) => ({
  path: p.split('/').pop()!,
  content: readFileSync(p, 'utf8'),
}));

function repoDoc(fs: RepoFile[]): Doc {
  const r = formatRepoDocument('sindresorhus/yocto-queue', fs);
  return { id: 'r1', kind: 'repo', source: 'yocto-queue', text: r.text, meta: { files: fs.length, boundaries: r.boundaries }, special_spans: r.special_spans };
}

test('removing files from a repository document gives exactly the document of the files that remain', () => {
  const doc = repoDoc(files);
  const items = itemsOf(doc);
  assert.deepEqual(items.map((i) => i.path), files.map((f) => f.path));
  items.forEach((it, i) => assert.equal(doc.text.slice(it.start, it.end), files[i]!.content));
  for (const remove of [[0], [1], [3], [2, 3], [0, 1], [0, 2], [1, 2, 3]]) {
    const kept = files.filter((_, i) => !remove.includes(i));
    const out = removeItems(doc, items, new Set(remove))!;
    const want = repoDoc(kept);
    assert.equal(out.text, want.text, `remove ${remove}`);
    assert.deepEqual(out.special_spans, want.special_spans, `remove ${remove}: special spans`);
    assert.deepEqual(out.meta.boundaries, want.meta.boundaries, `remove ${remove}: boundaries`);
    assert.equal(out.meta.files, kept.length);
    assert.deepEqual(parseRepoDocument(out).files, kept);
  }
  assert.equal(removeItems(doc, items, new Set([0, 1, 2, 3])), undefined, 'no file left: the document goes');
});

test('loss-mask spans follow removals and edits; masking a file covers exactly its content', () => {
  const doc = repoDoc(files);
  const items = itemsOf(doc);
  const masked = maskItems(doc, items, new Set([2]));
  assert.deepEqual(masked.loss_mask_spans, [[items[2]!.start, items[2]!.end]]);
  assert.equal(masked.text, doc.text);
  // The mask on file 2 survives removing file 0 and still covers file 2's content.
  const out = removeItems(masked, items, new Set([0]))!;
  const [a, b] = out.loss_mask_spans![0]!;
  assert.equal(out.text.slice(a, b), files[2]!.content);
  // A replacement inside a masked span keeps the span around the new text.
  const at = doc.text.indexOf('Queue', items[2]!.start);
  const edited = editDocument(masked, [{ start: at, end: at + 5, replacement: '<X>' }]);
  const [c, d] = edited.loss_mask_spans![0]!;
  assert.equal(edited.text.slice(c, d), files[2]!.content.replace(/^([\s\S]*?)Queue/, '$1<X>'));
});
