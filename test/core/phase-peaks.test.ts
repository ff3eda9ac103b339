import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PhasePeaks } from '../../src/core/phase-peaks.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void; // the large phase's buffer is given back before the next phase

test('PhasePeaks: each phase its own peak, measured (a large phase, then a small one), the process peak untouched', () => {
  const peaks = new PhasePeaks();
  peaks.start('large');
  let held: Buffer | undefined = Buffer.alloc(300 << 20, 1); // touched: 300 MiB resident
  assert.equal(held[12345], 1);
  held = undefined;
  gc();
  peaks.start('small');
  const small = Buffer.alloc(8 << 20, 1);
  assert.equal(small[1], 1);
  peaks.end();
  const mb = peaks.toJSON();
  assert.deepEqual(Object.keys(mb), ['large', 'small']);
  assert.ok(mb.large! >= 300, `the large phase held 300 MiB: ${mb.large} MB`);
  assert.ok(mb.small! < mb.large! - 200, `the small phase has its own peak: ${JSON.stringify(mb)}`);
  assert.ok(process.resourceUsage().maxRSS / 1024 >= 300, 'the process peak is left as the kernel counts it');
});
