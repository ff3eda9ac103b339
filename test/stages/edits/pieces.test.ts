import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultContext } from '../../../src/core/stage.js';
import { editsPieces, pieceSize } from '../../../src/stages/edits/source.js';
import { resolveEditsOptions } from '../../../src/stages/edits/options.js';
import { PIECE_COMMITS } from '../../../src/stages/edits/history.js';
import { repoRoot } from '../../helpers/paths.js';

test('a history is cut into the fewest pieces of at most pieceCommits, of even sizes', () => {
  assert.equal(pieceSize(187, PIECE_COMMITS), 187, 'the shared go-readability bundle stays on one thread at the default');
  assert.equal(pieceSize(187, 100), 94, 'two pieces of 94 and 93, not 100 and 87');
  assert.equal(pieceSize(540, PIECE_COMMITS), 180, "the issue's 540-commit history: three pieces of 180");
  assert.equal(pieceSize(40, 7), 7);
  assert.equal(pieceSize(12, 7), 6);
  assert.equal(pieceSize(0, 100), 1, 'an empty history: one piece');
});

test("editsPieces: p-limit's 12 commits at pieceCommits 5 are 3 pieces of 4, whose rev-list lines are the whole history's", async () => {
  const work = mkdtempSync(join(tmpdir(), 'midpack-pieces-'));
  try {
    const bundle = join(repoRoot, 'data-samples', 'history', 'p-limit.bundle');
    const ctx = defaultContext({ workDir: work });
    const [whole] = await editsPieces([bundle], resolveEditsOptions({}), ctx);
    const pieces = await editsPieces([bundle], resolveEditsOptions({ pieceCommits: 5 }), ctx);
    assert.equal(whole!.revList!.length, 12);
    assert.equal(whole!.commits, undefined, 'a history within pieceCommits is one piece, the whole walk');
    assert.deepEqual(
      pieces.map((p) => p.commits),
      [
        [0, 4],
        [4, 8],
        [8, 12],
      ],
    );
    assert.deepEqual(
      pieces.flatMap((p) => p.revList),
      whole!.revList,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
