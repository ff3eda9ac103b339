import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { slow } from '../helpers/tiers.js';

/** What the npm tarball may hold: the built library and CLI, the native sources, README, licence. */
const ALLOWED = [/^package\.json$/, /^README\.md$/, /^LICENSE$/, /^dist\/src\//, /^native\/(CMakeLists\.txt|src\/|include\/|binding\/)/];

/** The ```js block of the README's "Use it from code" section. */
export function readmeExample(): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Use it from code'));
  const m = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(m, 'README has a ```js block under "Use it from code"');
  return m[1]!;
}

test('npm pack holds only the built code, native sources, README and licence; installed into an empty folder, midpack pack and the README example run', { ...slow, timeout: 600_000 }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-npm-pack-'));
  // --ignore-scripts: the tarball holds dist/ as `npm test` just built it, so `prepare` does not
  // rebuild dist/ under the test files running beside this one.
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))[0];
  const files = (packed.files as { path: string }[]).map((f) => f.path);
  for (const f of files) assert.ok(ALLOWED.some((re) => re.test(f)), `unexpected file in the tarball: ${f}`);
  for (const f of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/main.js', 'native/src/packer.cpp', 'native/binding/binding.cpp', 'native/CMakeLists.txt', 'README.md', 'LICENSE']) {
    assert.ok(files.includes(f), `${f} missing from the tarball`);
  }
  assert.ok(!files.some((f) => /^(test|data-samples|dist\/test|dist\/scripts|\.github|examples)\//.test(f)));

  const app = join(dir, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  // --prefer-offline: dependencies from npm's cache where it has them, without asking the registry again.
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir, packed.filename)], { cwd: app, encoding: 'utf8' });
  if (install.status !== 0 && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|network/i.test(install.stderr)) {
    t.skip(`npm install needs the registry for the dependencies, unreachable here: ${install.stderr.split('\n')[0]}`);
    return;
  }
  assert.equal(install.status, 0, install.stderr);
  assert.ok(existsSync(join(app, 'node_modules/midpack/native/build/Release/midpack_native.node')), 'the native packer was built at install');

  const bin = join(app, 'node_modules/.bin/midpack');
  assert.equal(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim(), JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
  const pack = spawnSync(bin, ['pack', join(repoRoot, 'data-samples/docs'), '--out', 'out/docs', '--seq-len', '16384', '--workers', '1', '--quiet'], { cwd: app, encoding: 'utf8' });
  assert.equal(pack.status, 0, pack.stderr);
  const manifest = JSON.parse(readFileSync(join(app, 'out/docs/manifest.json'), 'utf8'));
  assert.equal(manifest.balanced, true);
  assert.ok(manifest.counts.bins > 0 && manifest.counts.documents > 0);

  // The README example, as written.
  writeFileSync(join(app, 'example.mjs'), readmeExample());
  const ex = spawnSync(process.execPath, ['example.mjs'], { cwd: app, encoding: 'utf8' });
  assert.equal(ex.status, 0, ex.stderr);
  assert.match(ex.stdout, /^packed 3 documents, \d+ tokens, into \d+ bins$/m);
  assert.match(ex.stdout, /^pipeline: \d+ documents, \d+ bins, balanced: true$/m);
  const fromCode = JSON.parse(readFileSync(join(app, 'out/from-code/manifest.json'), 'utf8'));
  assert.equal(fromCode.counts.documents, 3);
  assert.equal(fromCode.balanced, true);
  assert.ok(readFileSync(join(app, 'out/from-code/report.html'), 'utf8').includes('<html'));
  assert.ok(existsSync(join(app, 'out/pipeline/shards')));
});
