import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildImportGraph, dependencyOrder, parseOrderWeights, topologicalOrder, chooseOrdering } from '../../../src/stages/repos/index.js';
import { parseRepoDocument } from '../../../src/stages/repos/format.js';
import { serialize, tempDir, writeTree } from './helpers.js';

/**
 * A small repository in six languages. `EXPECTED` lists, by hand, the repository files
 * each file imports: the test checks that the graph finds exactly these and that the
 * dependency ordering puts every file after them.
 */
const FILES: Record<string, string> = {
  // Python: absolute, relative (one and two levels), `from pkg import submodule`, a src/ layout
  'app/__init__.py': '"""The app package."""\n',
  'app/main.py': 'import os\nimport app.util as u\nfrom app.services import api\nfrom lib import models\n',
  'app/util.py': 'import json\n\ndef fmt(x):\n    return json.dumps(x)\n',
  'app/services/__init__.py': '# services\n',
  'app/services/api.py': 'from ..util import fmt\nfrom . import store\n',
  'app/services/store.py': 'STORE = {}\n',
  'src/lib/__init__.py': '# lib\n',
  'src/lib/models.py': 'from dataclasses import dataclass\n',
  // JavaScript / TypeScript: ESM with .js naming .ts, export-from, require, dynamic import, index files
  'web/index.ts': "import { a } from './a.js';\nexport * from './lib/b';\nconst c = require('./c.cjs');\nconst lazy = import('./lazy');\nimport React from 'react';\n",
  'web/a.ts': 'import type { B } from "./lib/b";\nexport const a = 1;\n',
  'web/lib/b.ts': 'export const b = 2;\n',
  'web/c.cjs': "module.exports = require('./lib/data.json');\n",
  'web/lib/data.json': '{"x": 1}\n',
  'web/lazy/index.js': 'export default 3;\n',
  // Go: module path from go.mod, import blocks, a package folder with several files
  'go.mod': 'module example.com/proj\n\ngo 1.21\n',
  'cmd/app/main.go': 'package main\n\nimport (\n\t"fmt"\n\t"example.com/proj/internal/store"\n)\n\nfunc main() { fmt.Println(store.Get()) }\n',
  'internal/store/store.go': 'package store\n\nimport "example.com/proj/internal/model"\n\nfunc Get() model.M { return model.M{} }\n',
  'internal/store/store_test.go': 'package store\n\nimport "testing"\n\nfunc TestGet(t *testing.T) {}\n',
  'internal/model/model.go': 'package model\n\ntype M struct{}\n',
  'internal/model/doc.go': '// Package model holds the types.\npackage model\n',
  // Rust: mod declarations, mod.rs, use crate::, use super::{...}
  'rs/src/main.rs': 'mod config;\nmod net;\nuse crate::net::client::Client;\n\nfn main() {}\n',
  'rs/src/config.rs': 'pub struct Config;\n',
  'rs/src/net/mod.rs': 'pub mod client;\npub mod proto;\nuse super::config::Config;\n',
  'rs/src/net/client.rs': 'use crate::config::Config;\nuse super::{proto, client};\npub struct Client;\n',
  'rs/src/net/proto.rs': 'pub const VERSION: u32 = 1;\n',
  // Java: class imports, wildcard, static import, a Maven layout
  'java/src/main/java/com/acme/App.java': 'package com.acme;\n\nimport com.acme.model.User;\nimport com.acme.util.*;\nimport static com.acme.util.Strings.trim;\nimport java.util.List;\n\nclass App {}\n',
  'java/src/main/java/com/acme/model/User.java': 'package com.acme.model;\n\npublic class User {}\n',
  'java/src/main/java/com/acme/util/Strings.java': 'package com.acme.util;\n\npublic class Strings { public static String trim(String s) { return s; } }\n',
  'java/src/main/java/com/acme/util/Numbers.java': 'package com.acme.util;\n\npublic class Numbers {}\n',
  // C / C++: quoted includes relative to the file, angle includes through include/, ../ paths
  'include/proj/api.h': '#pragma once\n#include "proj/types.h"\nint api(void);\n',
  'include/proj/types.h': '#pragma once\n#include <stdint.h>\ntypedef int32_t i32;\n',
  'csrc/api.cpp': '#include <proj/api.h>\n#include "detail.hpp"\n#include <vector>\n',
  'csrc/detail.hpp': '#include "../include/proj/types.h"\n',
  'csrc/main.c': '#include "proj/api.h"\nint main(void) { return api(); }\n',
};

const EXPECTED: Record<string, string[]> = {
  'app/main.py': ['app/__init__.py', 'app/services/__init__.py', 'app/services/api.py', 'app/util.py', 'src/lib/__init__.py', 'src/lib/models.py'],
  'app/services/api.py': ['app/services/__init__.py', 'app/services/store.py', 'app/util.py'],
  'web/index.ts': ['web/a.ts', 'web/c.cjs', 'web/lazy/index.js', 'web/lib/b.ts'],
  'web/a.ts': ['web/lib/b.ts'],
  'web/c.cjs': ['web/lib/data.json'],
  'cmd/app/main.go': ['internal/store/store.go'],
  'internal/store/store.go': ['internal/model/doc.go', 'internal/model/model.go'],
  'rs/src/main.rs': ['rs/src/config.rs', 'rs/src/net/client.rs', 'rs/src/net/mod.rs'],
  'rs/src/net/mod.rs': ['rs/src/config.rs', 'rs/src/net/client.rs', 'rs/src/net/proto.rs'],
  'rs/src/net/client.rs': ['rs/src/config.rs', 'rs/src/net/proto.rs'],
  'java/src/main/java/com/acme/App.java': [
    'java/src/main/java/com/acme/model/User.java',
    'java/src/main/java/com/acme/util/Numbers.java',
    'java/src/main/java/com/acme/util/Strings.java',
  ],
  'include/proj/api.h': ['include/proj/types.h'],
  'csrc/api.cpp': ['csrc/detail.hpp', 'include/proj/api.h'],
  'csrc/detail.hpp': ['include/proj/types.h'],
  'csrc/main.c': ['include/proj/api.h'],
};

const files = Object.entries(FILES).map(([path, content]) => ({ path, content }));

test('import graph finds exactly the hand-listed imports in Python, JS/TS, Go, Rust, Java and C/C++', () => {
  const graph = buildImportGraph(files);
  for (const f of files) assert.deepEqual(graph.get(f.path), EXPECTED[f.path] ?? [], `imports of ${f.path}`);
});

test('dependency order: every file comes after the files it imports (fixture repository, no cycle)', async () => {
  const dir = tempDir();
  writeTree(dir, FILES);
  const { docs } = await serialize([dir], { order: { dependency: 1 }, layout: 'repo' });
  assert.equal(docs.length, 1);
  assert.equal(docs[0]!.meta.ordering, 'dependency');
  const order = parseRepoDocument(docs[0]!).files.map((f) => f.path);
  assert.deepEqual([...order].sort(), Object.keys(FILES).sort(), 'every fixture file is in the document');
  const position = new Map(order.map((p, i) => [p, i]));
  for (const [file, deps] of Object.entries(EXPECTED)) {
    for (const d of deps) assert.ok(position.get(d)! < position.get(file)!, `${d} must come before ${file}`);
  }
  // Alphabetical tie-break: the very first file is the alphabetically first file without imports.
  assert.equal(order[0], 'app/__init__.py');
});

test('cycles are broken deterministically and files outside the cycle still follow it', () => {
  const cyc = [
    { path: 'c.py', content: 'import a\n' },
    { path: 'b.py', content: 'import a\nimport d\n' },
    { path: 'a.py', content: 'import b\n' },
    { path: 'd.py', content: 'X = 1\n' },
  ];
  const first = dependencyOrder(cyc).map((f) => f.path);
  assert.deepEqual(first, ['d.py', 'a.py', 'b.py', 'c.py']);
  assert.deepEqual(dependencyOrder([...cyc].reverse()).map((f) => f.path), first, 'independent of arrival order');
  // A plain topological order with alphabetical ties.
  assert.deepEqual(topologicalOrder(['z', 'y', 'x'], new Map([['x', ['z']]])), ['y', 'z', 'x']);
});

test('--order weights parse, reject bad input, and choose per repository reproducibly', () => {
  assert.deepEqual(parseOrderWeights('alpha=0.3,dependency=0.5,random=0.2'), { alpha: 0.3, dependency: 0.5, random: 0.2 });
  assert.deepEqual(parseOrderWeights('dependency=1'), { dependency: 1 });
  assert.throws(() => parseOrderWeights('size=1'), /unknown ordering "size=1"/);
  assert.throws(() => parseOrderWeights('alpha=-1'), /weight of alpha/);
  assert.throws(() => parseOrderWeights('alpha=0'), /positive weight/);
  const weights = parseOrderWeights('alpha=1,random=1');
  const picks = Array.from({ length: 200 }, (_, i) => chooseOrdering(weights, 3, `repo${i}`));
  assert.deepEqual(picks, Array.from({ length: 200 }, (_, i) => chooseOrdering(weights, 3, `repo${i}`)));
  const alpha = picks.filter((p) => p === 'alpha').length;
  assert.ok(alpha > 60 && alpha < 140, `about half alpha, got ${alpha}`);
  assert.ok(!picks.includes('dependency'));
});
