import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readLines, readLineBatches, decodeLine } from '../../src/io/lines.js';
import { Rng } from '../../src/core/random.js';

async function* chunked(bytes: Buffer, rng: Rng): AsyncIterable<Buffer> {
  for (let at = 0; at < bytes.length; ) {
    const n = rng.int(1, 40);
    yield bytes.subarray(at, at + n);
    at += n;
  }
}

test('readLines and readLineBatches give the file\'s lines: their numbers, bytes and text, over-long lines alone, in any chunking, with buffers handed back and filled again', async () => {
  const parts = ['{"a": 1}', '', 'café 😀\r', 'x'.repeat(70), '\u00a0', 'é'.repeat(30), '  ', 'last line, no newline'];
  const body = Buffer.concat([Buffer.from(parts.join('\n')), Buffer.from([0x0a, 0xff, 0x41])]); // a line that is not UTF-8 last
  // The lines as the file holds them, read whole: what both readers must give.
  const fatal = new TextDecoder('utf-8', { fatal: true });
  let from = 0;
  const want = body.toString('latin1').split('\n').map((_, i, all) => {
    const raw = body.subarray(from, from + all[i]!.length);
    from += all[i]!.length + 1;
    if (raw.length > 64) return { lineNo: i + 1, text: null, error: 'line_too_long', bytes: raw.length };
    try {
      return { lineNo: i + 1, text: fatal.decode(raw[raw.length - 1] === 0x0d ? raw.subarray(0, -1) : raw), bytes: raw.length };
    } catch {
      return { lineNo: i + 1, text: null, error: 'invalid_utf8', bytes: raw.length };
    }
  });
  for (let seed = 0; seed < 20; seed++) {
    const lines = [];
    for await (const l of readLines(chunked(body, new Rng('lines', seed)), 64)) lines.push(l);
    assert.deepEqual(lines, want, `readLines, seed ${seed}`);
    const got = [];
    const spare: Uint8Array[] = []; // odd seeds hand each batch's buffer back, to be filled again
    for await (const b of readLineBatches(chunked(body, new Rng('lines', seed)), 1 + (seed % 50), 64, spare)) {
      assert.equal(b.bytes.byteOffset, 0, 'a batch owns its buffer from its start');
      if (b.tooLong !== undefined) {
        assert.equal(b.lines, 1);
        got.push({ lineNo: b.firstLineNo, text: null, error: 'line_too_long', bytes: b.tooLong });
        continue;
      }
      let at = 0;
      for (let i = 0; i < b.lines; i++) {
        const nl = b.bytes.indexOf(0x0a, at);
        const raw = b.bytes.subarray(at, nl);
        const text = decodeLine(raw);
        got.push(text === null ? { lineNo: b.firstLineNo + i, text, error: 'invalid_utf8', bytes: raw.length } : { lineNo: b.firstLineNo + i, text, bytes: raw.length });
        at = nl + 1;
      }
      assert.equal(at, b.bytes.length, 'whole lines only');
      if (seed % 2) spare.push(new Uint8Array(b.bytes.buffer));
    }
    assert.deepEqual(got, want, `seed ${seed}`);
    assert.ok(want.some((l) => l.error === 'line_too_long') && want.some((l) => l.error === 'invalid_utf8'));
  }
});
