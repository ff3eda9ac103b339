import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as linguist from 'linguist-languages';
import { languageOf, LINGUIST_LANGUAGE_COUNT } from '../../../src/stages/repos/languages.js';
import { pathFilter } from '../../../src/stages/repos/filters.js';
import { LINGUIST_HEURISTICS } from '../../../src/stages/repos/heuristics.js';
import { repoRoot } from '../../helpers/paths.js';
import { linguistPackageData } from '../../helpers/linguist.js';
import { LINGUIST_LANGUAGES } from '../../../src/stages/repos/linguist-table.js';

/**
 * Expected languages from real GitHub Linguist (7.22.1, Debian's ruby-github-linguist), checked in
 * as test/fixtures/linguist/expected.json: a mixed fixture of 64 files in 60 languages (the shared
 * extensions .h as C, C++ and Objective-C, .m as Objective-C and MATLAB, .pl as Perl and Prolog,
 * .v as Verilog and Coq; shebangs; Makefile, Dockerfile, CMakeLists.txt), and the files of
 * data-samples/repos that Linguist counts. Linguist 9 renamed Coq to Rocq Prover (the data we use).
 */
const FIXTURES = join(repoRoot, 'test', 'fixtures', 'linguist');
const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8')) as { mixed: Record<string, string>; samples: Record<string, string> };
const RENAMED: Record<string, string> = { Coq: 'Rocq Prover' };

test('the generated language table is the package linguist-languages (name, extensions, file names, interpreters, order): regenerate it with scripts/gen-linguist-table.ts on an upgrade', () => {
  assert.deepEqual(LINGUIST_LANGUAGES, linguistPackageData());
});

test('the mixed fixture: each file has the language real Linguist gives, shared extensions (.h, .m, .pl, .v) and shebangs included', () => {
  const langs = new Set(Object.values(expected.mixed));
  assert.ok(langs.size >= 40, `${langs.size} languages`);
  for (const ext of ['.h', '.m', '.pl', '.v']) assert.ok(new Set(Object.entries(expected.mixed).filter(([p]) => p.endsWith(ext)).map(([, l]) => l)).size >= 2, `${ext} is shared`);
  const wrong: string[] = [];
  for (const [path, lang] of Object.entries(expected.mixed)) {
    const got = languageOf(path, readFileSync(join(FIXTURES, 'mixed', path), 'utf8'));
    if (got !== (RENAMED[lang] ?? lang)) wrong.push(`${path}: ${got}, Linguist ${lang}`);
  }
  assert.deepEqual(wrong, []);
});

test('the sample repositories: each file Linguist counts has its language', () => {
  assert.ok(Object.keys(expected.samples).length >= 70);
  const wrong: string[] = [];
  for (const [path, lang] of Object.entries(expected.samples)) {
    const got = languageOf(path, readFileSync(join(repoRoot, 'data-samples', 'repos', path), 'utf8'));
    if (got !== lang) wrong.push(`${path}: ${got}, Linguist ${lang}`);
  }
  assert.deepEqual(wrong, []);
});

test("every extension only one language of Linguist's data holds names that language, from the path alone and with content", () => {
  const all = Object.values(linguist as unknown as Record<string, { name: string; extensions?: string[] }>);
  assert.equal(LINGUIST_LANGUAGE_COUNT, all.length);
  assert.ok(all.length >= 370, `${all.length} languages`);
  const holders = new Map<string, Set<string>>();
  for (const l of all) for (const e of l.extensions ?? []) holders.set(e.toLowerCase(), (holders.get(e.toLowerCase()) ?? new Set()).add(l.name));
  let checked = 0;
  for (const [ext, names] of holders) {
    if (names.size !== 1) continue;
    // A longer extension ending the same way decides first only for names that end in it: `x.ext` has just this one.
    const [name] = names;
    assert.equal(languageOf(`src/x${ext}`), name, ext);
    assert.equal(languageOf(`src/x${ext}`, 'x\n'), name, ext);
    checked++;
  }
  assert.ok(checked >= 900, `${checked} extensions`);
});

test("Linguist's vendored and generated paths are filtered by reason; a project's own files stay", () => {
  const cases: [string, string | undefined][] = [
    ['third_party/zlib/inflate.c', 'vendored'],
    ['web/static/jquery-3.6.0.js', 'vendored'],
    ['web/static/jquery.min.js', 'generated'], // midpack's own minified rule decides first
    ['configure', 'vendored'],
    ['gradlew', 'vendored'],
    ['lib/Vendor/x.php', 'vendored'],
    ['ios/Pods/Alamofire/Source.swift', 'vendored'], // midpack's Pods folder rule decides first
    ['.idea/workspace.xml', 'generated'],
    ['app.js.map', 'generated'],
    ['Base.lproj/Main.nib', 'generated'],
    ['src/main.c', undefined],
    ['src/vendored.py', undefined],
    ['.github/workflows/ci.yml', undefined],
    ['types/index.d.ts', undefined],
  ];
  for (const [path, reason] of cases) assert.equal(pathFilter(path), reason, path);
});

/** The C, C++ and Objective-C sources and headers installed here (/usr/include, node's headers among the packages), and midpack's own. */
function cFamilyTexts(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && /\.(h|hh|hpp|c|cc|cpp|m|mm)$/.test(e.name)) out.push(readFileSync(p, 'utf8').slice(0, 51200));
    }
  };
  for (const dir of ['/usr/include', join(repoRoot, 'node_modules'), join(repoRoot, 'native'), join(repoRoot, 'test', 'fixtures', 'linguist')]) walk(dir);
  return out;
}

test("the .h rules in one scan give the answer of trying Linguist's rules in turn: every installed header, and with other line ends, form feeds and Objective-C after C++", () => {
  const header = LINGUIST_HEURISTICS.find((h) => h.extensions.includes('.h'))!;
  assert.ok(header.firstMatch);
  const inTurn = (text: string) => header.rules.find((r) => r.matches(text))!.languages[0];
  const texts = cFamilyTexts();
  const found = new Map<string, number>();
  const wrong: string[] = [];
  const check = (text: string) => {
    const got = header.firstMatch!(text)!.languages[0]!;
    if (got !== inTurn(text)) wrong.push(`${JSON.stringify(text.slice(0, 60))}: ${got}, in turn ${inTurn(text)}`);
    return got;
  };
  for (const text of texts) found.set(check(text), (found.get(check(text)) ?? 0) + 1);
  assert.ok(texts.length >= 1000 && (found.get('C') ?? 0) >= 100 && (found.get('C++') ?? 0) >= 100, JSON.stringify([...found]));
  const edges = ['#import "x.h"\n', 'int x;\n  @interface A\n', 'template <class T>\n@end\n', 'namespace a {}\r@interface X', '\f\n\ttry {', '#\n include <vector>', 'x\u2028  class A {', 'a\npublic:\r\n', '  \u00a0template<', 'std::x', '__cplusplus > 1', '#import \n "x.h"', '#import\n.h"', '#import \u2028a.h>', '#import a.h\n"', '@end_x', '@end', '@endx\n', 'x\n\u000b template <', 'x\n using \t namespace std', 'x\n usingnamespace s', 'private:x\nprotected:', 'std::', 'tryhard', '#  include <iostream>', '#include <vectors>', 'catch (x)', 'class\n\nA', '\ufeff@interface'];
  for (const t of [...edges, ...texts.slice(0, 500)]) {
    for (const variant of [t, t.replace(/\n/g, '\r\n'), t.replace(/\n/g, '\r'), t.replace(/^ {2}/gm, '\f'), `class X\n${t}`, `${t}\n@end\n`]) check(variant);
  }
  assert.deepEqual(wrong, []);
});
