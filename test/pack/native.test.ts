import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { slow } from '../helpers/tiers.js';

const script = fileURLToPath(new URL('../../../native/scripts/test.sh', import.meta.url));

function hasCompiler(): boolean {
  try {
    execFileSync(process.env.CXX ?? 'g++', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const compiler = hasCompiler();
if (!compiler) process.stdout.write('# skipping the sanitized C++ tests: no C++ compiler (g++ or $CXX) on PATH\n');

test('the C++ core (packer, planner, segmenter) passes its own tests and randomized drivers under ASan and UBSan (short run)', { skip: slow.skip || (!compiler && 'no C++ compiler') }, () => {
  const r = spawnSync('bash', [script, '--short'], { encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.status, 0, `native/scripts/test.sh --short failed:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /native packer tests passed: 300 randomized cases/);
  assert.match(r.stdout, /test_segments: ok \(3000 random texts\)/);
});
