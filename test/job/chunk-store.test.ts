import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChunkStore, type ChunkIndex } from '../../src/job/chunk-store.js';

/** Chunk k of `docs` documents, written and committed as the tokenize phase does (with character ranges, for remask). */
function writeChunk(store: ChunkStore, k: number, firstSeq: number, docs: number): ChunkIndex {
  const w = store.begin(k);
  const index: ChunkIndex = { firstSeq, tokens: 0, docs: [], acceptedEnd: firstSeq + docs, failed: [] };
  for (let d = 0; d < docs; d++) {
    const len = 3 + d;
    const ids = Int32Array.from({ length: len }, (_, i) => 1000 * k + 10 * d + i);
    const starts = Int32Array.from({ length: len }, (_, i) => i);
    w.append(ids, new Uint8Array(len).fill(1), { starts, ends: starts.map((x) => x + 1) });
    index.docs.push({ id: `c${k}d${d}`, kind: 'text', source: 's', len, masked: 0, ...(d === 1 ? { boundaries: [1, 2] } : {}) });
    index.tokens += len;
  }
  w.commit(index);
  store.register(index);
  return index;
}

const onDisk = (store: ChunkStore, k: number) => JSON.parse(readFileSync(join(store.dir, `chunk-${String(k).padStart(6, '0')}.json`), 'utf8')) as ChunkIndex;

test('chunk indexes held in memory equal the ones on disk, within the bound and past it, and after remask; a mask with nothing masked is ones', async () => {
  // 3 documents and one doc's 2 boundaries: 5 entries a chunk; a bound of 7 holds chunk 0 only.
  for (const bound of [1 << 20, 7, 0]) {
    const store = new ChunkStore(mkdtempSync(join(tmpdir(), 'midpack-chunks-')), 64, bound);
    writeChunk(store, 0, 0, 3);
    writeChunk(store, 1, 3, 3);
    for (const k of [0, 1]) assert.deepEqual(store.index(k), onDisk(store, k), `bound ${bound}, chunk ${k}`);
    const ids = new Int32Array(4);
    const mask = new Uint8Array(4).fill(7);
    store.read(4, 0, 4, ids, mask, 0); // chunk 1's second document, nothing masked yet: its mask is not read
    assert.deepEqual([...ids], [1010, 1011, 1012, 1013]);
    assert.deepEqual([...mask], [1, 1, 1, 1]);
    // remask rewrites the mask and the index: a held index follows the new one.
    for (const k of [0, 1]) {
      await store.remask(k, async (doc, ranges, mask) => {
        assert.equal(ranges().starts.length, doc.len);
        mask[0] = 0;
        return 1;
      });
      assert.deepEqual(store.index(k), onDisk(store, k), `bound ${bound}, chunk ${k} after remask`);
      assert.ok(store.index(k).docs.every((d) => d.masked === 1));
    }
    store.read(4, 0, 4, ids, mask, 0); // now read from the mask file
    assert.deepEqual([...ids], [1010, 1011, 1012, 1013]);
    assert.deepEqual([...mask], [0, 1, 1, 1]);
    store.remove();
  }
});
