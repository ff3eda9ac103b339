import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../helpers/paths.js';

const srcDir = join(repoRoot, 'src');
const walk = (d: string): string[] =>
  readdirSync(d).flatMap((n) => {
    const p = join(d, n);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });

test('no function in src/ is over 80 lines', () => {
  const long: string[] = [];
  for (const file of walk(srcDir)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node) => {
      if (ts.isFunctionLike(n) && (n as ts.FunctionLikeDeclarationBase).body) {
        const first = source.getLineAndCharacterOfPosition(n.getStart()).line;
        const last = source.getLineAndCharacterOfPosition(n.end).line;
        if (last - first + 1 > 80) long.push(`${relative(repoRoot, file)}:${first + 1} (${last - first + 1} lines)`);
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
  }
  assert.deepEqual(long, []);
});

test('the library never imports the CLI, and the repos stage does not reach into the mask stage', () => {
  const imports = (file: string) => [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
  for (const file of walk(srcDir)) {
    const rel = relative(srcDir, file);
    if (rel.startsWith('cli/')) continue;
    for (const spec of imports(file)) assert.ok(!/\/cli\//.test(spec), `${rel} imports ${spec}`);
    if (rel.startsWith('stages/repos/')) for (const spec of imports(file)) assert.ok(!spec.includes('/mask/'), `${rel} imports ${spec}`);
  }
});

test('the entry points a user imports (midpack, midpack/pack, midpack/write) export by name, never with export *', () => {
  for (const entry of ['index.ts', 'pack/index.ts', 'write/index.ts']) {
    const text = readFileSync(join(srcDir, entry), 'utf8');
    assert.doesNotMatch(text, /^export \*/m, `src/${entry} re-exports with export *`);
  }
});

test('production code has one packer: the TypeScript twin and cut are test references only', () => {
  for (const file of walk(srcDir)) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /ts-packer|TsStreamingPacker|from '[^']*\/cut\.js'/, `${relative(repoRoot, file)} uses the TypeScript packer`);
  }
});
