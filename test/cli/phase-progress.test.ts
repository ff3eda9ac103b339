import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { PhaseProgress } from '../../src/cli/phase-progress.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, columns: 200, write: (s: string) => writes.push(s) } };
}

test('on a terminal: a line at once, then a bar per phase with percentage, rate and ETA', () => {
  let t = 0;
  const { writes, stream } = fakeStream(true);
  const p = new PhaseProgress('pack', { stream, now: () => t });
  assert.equal(writes.length, 1, 'drawn at construction, before any event');
  assert.match(writes[0]!, /midpack: pack: starting \(loading the tokenizer\)/);
  t = 1000;
  p.pack({ phase: 'tokenize', totalBytes: 4000, bytes: 0 });
  t = 3000;
  p.pack({ phase: 'tokenize', bytes: 1000 });
  const screen = writes.at(-1)!;
  assert.match(screen, /starting \(loading the tokenizer\), 1\.0s/);
  assert.match(screen, /read \+ tokenize \[######------------------\]  25% 1000\/4000 bytes, 500 bytes\/s, eta 6s/);
  t = 4000;
  p.pack({ phase: 'plan', bins: 10 });
  t = 5000;
  p.pack({ phase: 'write', totalBins: 10, bins: 5 });
  p.stop();
  const last = writes.at(-1)!;
  assert.match(last, /\x1b\[3A/, 'redraws the three lines above');
  assert.match(last, /read \+ tokenize .* 1000\/4000 bytes, .*done/);
  assert.match(last, /plan 10 bins, 10 bins\/s/);
  assert.match(last, /write \[############------------\]  50% 5\/10 bins, .*done/);
});

test('not on a terminal: plain lines every interval, for a log collector', async () => {
  const { writes, stream } = fakeStream(false);
  const p = new PhaseProgress('run', { stream, intervalMs: 40 });
  assert.deepEqual(writes, ['midpack: run: starting\n']);
  p.pack({ phase: 'write', totalBins: 8, bins: 2 });
  await sleep(130);
  p.stop();
  assert.ok(writes.length >= 3, `${writes.length} lines`);
  for (const w of writes) {
    assert.ok(!w.includes('\x1b'), 'no terminal codes');
    assert.ok(w.endsWith('\n'));
  }
  assert.match(writes.at(-1)!, /^midpack: run: write  25% 2\/8 bins, [\d.]+ bins\/s, done\n$/);
});

test('planning by passes: the counting pass, then each planning pass, with percentage and ETA', () => {
  let t = 0;
  const { writes, stream } = fakeStream(false);
  const p = new PhaseProgress('pack', { stream, now: () => t, intervalMs: 1e9 });
  p.pack({ phase: 'plan', pass: 0, passes: 0 }); // counting starts; passes unknown yet
  t = 1000;
  p.pack({ phase: 'plan', pass: 1, passes: 3 }); // counting done, 3 planning passes to come
  p.pack({ phase: 'plan', bins: 500 }); // bins do not count once passes are known
  assert.match(p.describe('plan', (p as unknown as { phases: Map<string, never> }).phases.get('plan')!, 0), /^plan  25% 1\/4 passes, 1 passes\/s, eta 3s$/);
  t = 2000;
  p.pack({ phase: 'plan', pass: 2, passes: 3 });
  p.pack({ phase: 'plan', pass: 3, passes: 3 });
  p.pack({ phase: 'plan', pass: 4, passes: 3 }); // planning done
  t = 3000;
  p.pack({ phase: 'write', totalBins: 4, bins: 4 });
  p.stop();
  // not a terminal: one line per phase, as each ends
  assert.deepEqual(
    writes.map((w) => w.replace(/[\d.]+ (\w+)\/s/, 'R $1/s')),
    [
      'midpack: pack: starting\n',
      'midpack: pack: starting (loading the tokenizer), 0.0s\n',
      'midpack: pack: plan 100% 4/4 passes, R passes/s, done\n',
      'midpack: pack: write 100% 4/4 bins, R bins/s, done\n',
    ],
  );
});
