import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRepoGraph, type RepoGraph } from '../../../src/stages/fim/function-aware/graph.js';
import { judge } from '../../../src/stages/fim/function-aware/criterion.js';
import { DEFAULT_FUNCTION_AWARE_OPTIONS, resolveFunctionAwareOptions } from '../../../src/stages/fim/function-aware/options.js';

type Files = Record<string, string>;
const graphOf = (files: Files) => buildRepoGraph(Object.entries(files).map(([path, content]) => ({ path, content })), 1_000_000);

/** The callers of the function with this qualified name: [caller file, resolution] pairs. */
function callersOf(g: RepoGraph, qualifiedName: string): [string, string][] {
  const fn = g.functions.find((f) => f.qualifiedName === qualifiedName);
  assert.ok(fn, `${qualifiedName} is defined (have ${g.functions.map((f) => f.qualifiedName).join(', ')})`);
  return g.callers[fn.id]!.map((c) => [c.file, c.resolution]);
}

const BODY = '    y = x + 1\n    z = y * 2\n    return z\n';

test('python: from a.b import f resolves through the import', () => {
  const g = graphOf({ 'a/__init__.py': '', 'a/b.py': `def f(x):\n${BODY}`, 'main.py': 'from a.b import f\n\nprint(f(1))\n' });
  assert.deepEqual(callersOf(g, 'a.b.f'), [['main.py', 'import']]);
});

test('python: import a.b as m; m.f() and import a.b; a.b.f() resolve to a/b.py', () => {
  const g = graphOf({
    'a/__init__.py': '',
    'a/b.py': `def f(x):\n${BODY}`,
    'one.py': 'import a.b as m\n\ndef use():\n    return m.f(2)\n',
    'two.py': 'import a.b\nvalue = a.b.f(3)\n',
  });
  assert.deepEqual(callersOf(g, 'a.b.f').sort(), [['one.py', 'import'], ['two.py', 'import']]);
});

test('python: relative imports (from .b import f, from .. import mod, from ..c import g as h)', () => {
  const g = graphOf({
    'pkg/__init__.py': '',
    'pkg/c.py': `def g(x):\n${BODY}`,
    'pkg/sub/__init__.py': '',
    'pkg/sub/b.py': `def f(x):\n${BODY}`,
    'pkg/sub/user.py': 'from .b import f\nfrom ..c import g as h\nfrom .. import c\n\ndef run():\n    f(1)\n    h(2)\n    return c.g(3)\n',
  });
  assert.deepEqual(callersOf(g, 'pkg.sub.b.f'), [['pkg/sub/user.py', 'import']]);
  assert.deepEqual(callersOf(g, 'pkg.c.g'), [['pkg/sub/user.py', 'import'], ['pkg/sub/user.py', 'import']]);
});

test('python: re-exports through a package __init__ are followed', () => {
  const g = graphOf({ 'lib/__init__.py': 'from .impl import work\n', 'lib/impl.py': `def work(x):\n${BODY}`, 'app.py': 'import lib\nlib.work(1)\nfrom lib import work\nwork(2)\n' });
  assert.deepEqual(callersOf(g, 'lib.impl.work'), [['app.py', 'import'], ['app.py', 'import']]);
});

test('javascript: import {f} from "./x.js", import * as ns, require, and TypeScript sources named .js', () => {
  const g = graphOf({
    'src/x.ts': 'export function f(a: number): number {\n  const b = a + 1;\n  return b;\n}\nexport const k = (q) => { return q; };\n',
    'src/y.js': "import { f } from './x.js';\nimport * as ns from './x.js';\nconst { k } = require('./x.js');\nf(1);\nns.f(2);\nk(3);\n",
  });
  assert.deepEqual(callersOf(g, 'src/x.ts:f'), [['src/y.js', 'import'], ['src/y.js', 'import']]);
  assert.deepEqual(callersOf(g, 'src/x.ts:k'), [['src/y.js', 'import']]);
});

test('javascript: CommonJS module.exports and an aliased import', () => {
  const g = graphOf({
    'lib/a.js': 'function helper(x) {\n  return x;\n}\nmodule.exports = { helper };\n',
    'lib/b.js': "const a = require('./a');\nimport { helper as h } from './a';\na.helper(1);\nh(2);\n",
  });
  assert.deepEqual(callersOf(g, 'lib/a.js:helper'), [['lib/b.js', 'import'], ['lib/b.js', 'import']]);
});

test('a method called on an unknown object resolves only by name, and is recorded as such', () => {
  const g = graphOf({
    'shapes.py': `class Circle:\n    def area(self, r):\n${BODY.replace(/^/gm, '    ')}\n    def scaled(self, r):\n        return self.area(r) * 2\n`,
    'use.py': 'def total(things):\n    return sum(t.area(1) for t in things)\n',
  });
  assert.deepEqual(callersOf(g, 'shapes.Circle.area').sort(), [['shapes.py', 'self'], ['use.py', 'name']]);
  // Two methods of that name: a call by name alone is ambiguous, hence unresolved.
  const two = graphOf({ 'a.py': 'class A:\n    def run(self):\n        pass\n', 'b.py': 'class B:\n    def run(self):\n        pass\n', 'c.py': 'x.run()\n' });
  assert.deepEqual(callersOf(two, 'a.A.run'), []);
  assert.equal(two.unresolvedNames.get('run'), 1);
});

test("recursion: a function's calls to itself are not callers", () => {
  const files = { 'fact.py': 'def fact(n):\n    if n <= 1:\n        return 1\n    m = n - 1\n    return n * fact(m)\n', 'fib.js': 'function fib(n) {\n  if (n < 2) return n;\n  return fib(n - 1) + fib(n - 2);\n}\n' };
  const g = graphOf(files);
  assert.deepEqual(callersOf(g, 'fact.fact'), []);
  assert.deepEqual(callersOf(g, 'fib.js:fib'), []);
  const fn = g.functions.find((f) => f.name === 'fact')!;
  const v = judge(fn, g, files['fact.py'], new Map(), DEFAULT_FUNCTION_AWARE_OPTIONS);
  assert.deepEqual(v, { ok: false, reason: 'no_callers' });
  // Called once from outside as well: exactly one caller.
  const g2 = graphOf({ ...files, 'main.py': 'from fact import fact\nfact(5)\n' });
  assert.deepEqual(callersOf(g2, 'fact.fact'), [['main.py', 'import']]);
});

test('a cycle between modules resolves and terminates (Python and JavaScript)', () => {
  const g = graphOf({
    'a.py': `from b import g, missing\n\ndef f(x):\n${BODY}    g(x)\n\nmissing()\n`,
    'b.py': `from a import f, missing\n\ndef g(x):\n${BODY}    f(x)\n`,
    'p.js': "import { q, gone } from './q.js';\nexport { gone };\nexport function p() { q(); gone(); }\n",
    'q.js': "import { p, gone } from './p.js';\nexport { gone };\nexport function q() { p(); }\n",
  });
  assert.deepEqual(callersOf(g, 'a.f'), [['b.py', 'import']]);
  assert.deepEqual(callersOf(g, 'b.g'), [['a.py', 'import']]);
  assert.deepEqual(callersOf(g, 'p.js:p'), [['q.js', 'import']]);
  assert.deepEqual(callersOf(g, 'q.js:q'), [['p.js', 'import']]);
  assert.ok((g.unresolvedNames.get('missing') ?? 0) >= 1 && (g.unresolvedNames.get('gone') ?? 0) >= 1);
});

test('complexity figures: statements, cyclomatic complexity (branches, loops, handlers, boolean operators)', () => {
  const g = graphOf({
    'c.py': 'def c(xs):\n    """Doc."""\n    out = []\n    for x in xs:\n        if x and x > 1:\n            out.append(x)\n        elif x:\n            pass\n    try:\n        pass\n    except ValueError:\n        pass\n    return out\n',
    'c.ts': 'function c(xs: number[]) {\n  let n = 0;\n  for (const x of xs) {\n    if (x > 1 && x < 9) n++;\n  }\n  return n > 0 ? n : -1;\n}\n',
  });
  const py = g.functions.find((f) => f.file === 'c.py')!;
  // out=, for, if, append, elif-pass, try, pass, pass, return: the docstring is not counted.
  assert.equal(py.statements, 9);
  assert.equal(py.cyclomatic, 1 + 5); // for, if, and, elif, except
  assert.ok(py.docstring && !py.annotated);
  const ts = g.functions.find((f) => f.file === 'c.ts')!;
  assert.equal(ts.cyclomatic, 1 + 4); // for, if, &&, ?:
  assert.ok(ts.annotated);
});

test('resolveFunctionAwareOptions names the key and the value it refuses', () => {
  assert.equal(resolveFunctionAwareOptions({ minCallers: '2' }).minCallers, 2);
  assert.throws(() => resolveFunctionAwareOptions({ middle: 'whole' }), /middle: "whole" is not one of function, body/);
  assert.throws(() => resolveFunctionAwareOptions({ maxLines: 0 }), /maxLines: expected an integer >= 1, got 0/);
  assert.throws(() => resolveFunctionAwareOptions({ minCalers: 1 }), /"minCalers" is unknown/);
});
