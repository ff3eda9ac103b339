import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareStrategies, mixtureLengths, mixtureSample, orderLengths } from '../../src/pack/index.js';
import { slow } from '../helpers/tiers.js';

const main = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/** Runs the installed bin's entry point, as a user does. */
function midpack(...args: string[]) {
  return spawnSync(process.execPath, [main, ...args], { encoding: 'utf8' });
}

test('midpack compare --json prints the five strategies with the documented fields, equal to compareStrategies', slow, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-compare-'));
  try {
    const lengths = Array.from(mixtureLengths(20_000, 5));
    writeFileSync(join(dir, 'lengths.txt'), lengths.join('\n') + '\n');
    const r = midpack('compare', '--lengths', join(dir, 'lengths.txt'), '--seq-len', '65536', '--overlong', 'slide', '--json');
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(out), ['concat_split', 'rld', 'pld', 'bfp', 'bfp_slide']);
    for (const f of Object.values(out) as Record<string, number>[]) {
      for (const k of ['fragmentation_rate', 'padding_rate', 'bins', 'lower_bound', 'tokens', 'units', 'overlong_docs', 'dropped_tokens', 'duplicated_tokens']) {
        assert.equal(typeof f[k], 'number', k);
      }
    }
    assert.deepEqual(out, await compareStrategies(lengths, { capacity: 65536, overlong: 'slide' }));
    assert.equal(out.bfp_slide.fragmentation_rate, 0);
    assert.ok(out.bfp.dropped_tokens > 0 && out.bfp_slide.duplicated_tokens > 0);

    const table = midpack('compare', '--lengths', join(dir, 'lengths.txt'), '--seq-len', '65536');
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /^strategy +fragmentation +padding +bins +lower_bound +bins\/lb/m);
    assert.match(table.stdout, /^bfp_split +0\.00% /m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('midpack compare names the file and line of a malformed or negative length, and exits 1', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-compare-'));
  try {
    writeFileSync(join(dir, 'neg.txt'), '100\n200\n-7\n');
    let r = midpack('compare', '--lengths', join(dir, 'neg.txt'));
    assert.equal(r.status, 1);
    assert.equal(r.stderr, `midpack: error: ${join(dir, 'neg.txt')}:3: negative length "-7" (expected one non-negative integer per line)\n`);
    writeFileSync(join(dir, 'bad.txt'), '100\nabc\n');
    r = midpack('compare', '--lengths', join(dir, 'bad.txt'));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /bad\.txt:2: malformed length "abc"/);
    r = midpack('compare', '--lengths', join(dir, 'neg.txt'), '--overlong', 'sideways');
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /sideways/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('midpack compare --order: the baselines change with the order, best fit stays within the lower bound + 2; a .u32 file reads the same', slow, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-compare-'));
  try {
    // grouped by kind, as a job emits its sources: the hard case for arrival-order packing
    const lengths = mixtureSample(50_000, 3, 'grouped');
    writeFileSync(join(dir, 'lengths.txt'), Array.from(lengths).join('\n') + '\n');
    writeFileSync(join(dir, 'lengths.u32'), new Uint8Array(lengths.buffer));
    const run = (...extra: string[]) => {
      const r = midpack('compare', '--lengths', join(dir, 'lengths.txt'), '--seq-len', '65536', '--json', ...extra);
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const byOrder = Object.fromEntries(['as-given', 'shuffled', 'sorted-asc', 'sorted-desc'].map((o) => [o, run('--order', o)]));
    for (const [order, f] of Object.entries(byOrder)) {
      assert.ok(f.bfp_split.bins <= f.bfp_split.lower_bound + 2, `${order}: ${f.bfp_split.bins} bins, lower bound ${f.bfp_split.lower_bound}`);
      assert.equal(f.bfp_split.fragmented_units, 0);
    }
    const baselines = Object.values(byOrder).map((f) => JSON.stringify([f.concat_split, f.rld, f.pld]));
    assert.equal(new Set(baselines).size, 4, 'the sequential baselines differ in every order');
    assert.deepEqual(byOrder.shuffled, await compareStrategies(orderLengths(lengths, 'shuffled', 0), { capacity: 65536, overlong: 'split' }));
    assert.deepEqual(byOrder['as-given'], await compareStrategies(lengths, { capacity: 65536, overlong: 'split' }));
    const binary = midpack('compare', '--lengths', join(dir, 'lengths.u32'), '--seq-len', '65536', '--json');
    assert.equal(binary.status, 0, binary.stderr);
    assert.deepEqual(JSON.parse(binary.stdout), byOrder['as-given']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
