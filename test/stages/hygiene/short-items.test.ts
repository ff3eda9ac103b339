import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { collect, defaultContext, fromArray } from '../../../src/core/stage.js';
import { findContamination, loadBenchmarks, decontaminateStage, resolveDecontaminateOptions } from '../../../src/stages/hygiene/decontaminate.js';
import { readBenchmarkItems } from '../../../src/stages/hygiene/benchmarks.js';
import { blankComments, SHORT_ITEM_MIN_TOKENS } from '../../../src/stages/hygiene/short-items.js';
import { forEachToken } from '../../../src/stages/hygiene/tokens.js';
import { repoRoot } from '../../helpers/paths.js';
import { HUMANEVAL, pythonFiles, STDLIB } from './helpers.js';
import { slow } from '../../helpers/tiers.js';

/**
 * HumanEval's solutions (the `canonical_solution` field alone, so 36 of the 164 items have fewer
 * words than the 13-gram window), planted in real files of the Python standard library as whole
 * functions: verbatim, re-indented to 2 spaces or to tabs and re-spaced, and nested one level
 * deeper in a class; and inside a file: in a docstring, between two statements of a block, between
 * a docstring's lines. The clean files are the same standard library files and node_modules code. (HumanEval/61
 * is found too, but named HumanEval/56: the two solutions differ only in the bracket characters,
 * which the word n-grams do not see, and a window names the first item that has it.)
 */
const options = resolveDecontaminateOptions({ benchmarks: [`${HUMANEVAL}:canonical_solution`] });

/** The solution as a whole function: the entry point's `def` line from the prompt, then the solution (`body`, as the benchmark has it). */
async function solutions(): Promise<{ name: string; code: string; body: string; tokens: number }[]> {
  const rows: Record<string, string>[] = [];
  for await (const r of readBenchmarkItems(`${HUMANEVAL}:canonical_solution`)) rows.push({ name: r.name, solution: r.text });
  const prompts: string[] = [];
  for await (const r of readBenchmarkItems(`${HUMANEVAL}:prompt`)) prompts.push(r.text);
  const entries: string[] = [];
  for await (const r of readBenchmarkItems(`${HUMANEVAL}:entry_point`)) entries.push(r.text);
  return rows.map((r, i) => {
    const def = prompts[i]!.split('\n').find((l) => l.startsWith(`def ${entries[i]}(`))!;
    let tokens = 0;
    forEachToken(blankComments(r.solution!), {}, () => tokens++);
    const body = r.solution!.replace(/\n+$/, '');
    return { name: r.name!, code: `${def}\n${body}\n`, body, tokens };
  });
}

const reindent = (code: string) => code.replace(/^( {4})+/gm, (s) => '  '.repeat(s.length / 4));
const respace = (code: string) => reindent(code).replace(/ *([=<>+*%-]+) */g, '$1').replace(/,(?=\S)/g, ', ');
const nest = (code: string) => `class Holder:\n    """Holds it."""\n\n` + code.replace(/^(?=.)/gm, '    ');
const tabs = (code: string) => code.replace(/^( {4})+/gm, (s) => '\t'.repeat(s.length / 4));
/** The lines of `code` moved to `indent`, the least indented at it. */
const shift = (code: string, indent: string) => {
  const lines = code.split('\n').filter((l) => l.trim());
  const least = Math.min(...lines.map((l) => /^[ \t]*/.exec(l)![0].length));
  return lines.map((l) => indent + l.slice(least)).join('\n');
};
const insertAt = (lines: string[], at: number, snippet: string) => [...lines.slice(0, at), '', snippet, '', ...lines.slice(at)].join('\n');
/** For each line, whether it starts inside a triple-quoted string. */
function inStrings(lines: string[]): boolean[] {
  let open = false;
  return lines.map((l) => {
    const starts = open;
    if ((l.match(/"""|'''/g) ?? []).length % 2 === 1) open = !open;
    return starts;
  });
}

/** A multi-line docstring of the host from its middle on (else its first): the opening line, the closing line and the text's indentation. */
function docstring(lines: string[]): { open: number; close: number; indent: string } | undefined {
  const found: { open: number; close: number; indent: string }[] = [];
  const quoted = inStrings(lines);
  for (let i = 0; i < lines.length; i++) {
    const m = /^([ \t]*)r?"""(?!.*""")/.exec(lines[i]!);
    if (!m || quoted[i]) continue;
    const close = lines.findIndex((l, j) => j > i && l.includes('"""'));
    if (close > i + 2) found.push({ open: i, close, indent: m[1]! });
  }
  return found.find((d) => d.open >= lines.length / 2) ?? found[0];
}

/** Two statements one after the other in an indented block of the host, outside strings: the index of the second and its indentation. */
function betweenStatements(lines: string[]): { at: number; indent: string } | undefined {
  const statement = /^( {4,})(?:return\b|\w+(?:\.\w+)* = |\w+(?:\.\w+)*\()[^\\]*[^:,(\\[{]$/;
  const quoted = inStrings(lines);
  const sites: { at: number; indent: string }[] = [];
  for (let i = 1; i < lines.length; i++) {
    const [a, b] = [statement.exec(lines[i - 1]!), statement.exec(lines[i]!)];
    if (a && b && a[1] === b[1] && !lines[i - 1]!.startsWith(`${a[1]}return`) && !quoted[i - 1] && !quoted[i]) sites.push({ at: i, indent: b[1]! });
  }
  return sites.find((s) => s.at >= lines.length / 2) ?? sites[0];
}

/**
 * The placements inside a file: the solution inside a docstring as the benchmark has it; its
 * statements between two statements of an indented block, re-indented to two spaces a level and
 * to tabs; the function re-indented between two lines of a docstring. Each planted snippet is a
 * run of whole lines between blank lines.
 */
function inside(host: string, s: { code: string; body: string }): [string, string][] {
  const lines = host.split('\n');
  const doc = docstring(lines)!;
  const block = betweenStatements(lines)!;
  return [
    ['in a docstring, verbatim', insertAt(lines, doc.open + 1, s.body)],
    ['between statements, re-indented', insertAt(lines, block.at, shift(reindent(s.body), block.indent))],
    ['between a docstring\'s lines, re-indented', insertAt(lines, doc.open + 2, shift(reindent(s.code), doc.indent))],
    ['between statements, tabs', insertAt(lines, block.at, shift(tabs(s.body), block.indent))],
  ];
}

function plant(host: string, snippet: string): string {
  const lines = host.split('\n');
  // Between two top-level statements, so the planted function is a whole unit of the file.
  let at = Math.floor(lines.length / 2);
  while (at < lines.length && !/^(def|class|import|from) /.test(lines[at]!)) at++;
  return [...lines.slice(0, at), '', snippet, '', ...lines.slice(at)].join('\n');
}

test('short HumanEval solutions are found planted whole (verbatim, re-indented, re-spaced, nested, tabs) and inside a file (in a docstring, between statements of a block, between a docstring\'s lines, at any indentation); the generic ones are counted too_short_to_match', slow, async () => {
  const index = await loadBenchmarks(options);
  const sols = await solutions();
  const short = sols.filter((s) => (s.code.split('\n').slice(1).join('\n').match(/\w+/g) ?? []).length < 13);
  assert.ok(short.length >= 30, `${short.length} solutions shorter than the 13-gram window`);
  const tooShort = sols.filter((s) => s.tokens < SHORT_ITEM_MIN_TOKENS);
  assert.equal(index.short.tooShort, tooShort.length, 'too_short_to_match counts the items under the minimum');
  // The first 60 standard library files with a multi-line docstring and two statements in a row in a block.
  const hosts: string[] = [];
  for (const f of pythonFiles(STDLIB)) {
    if (hosts.length === 60) break;
    const text = readFileSync(f, 'utf8');
    if (docstring(text.split('\n')) && betweenStatements(text.split('\n'))) hosts.push(text);
  }
  let planted = 0;
  let found = 0;
  const missed: string[] = [];
  const byPlacement = new Map<string, { planted: number; found: number }>();
  // Every solution is planted, the ones under the minimum too: they count as planted and not found.
  for (const [i, s] of sols.entries()) {
    const host = hosts[i % hosts.length]!;
    for (const [how, text] of [
      ['verbatim', plant(host, s.code)],
      ['reindented', plant(host, reindent(s.code))],
      ['respaced', plant(host, respace(s.code))],
      ['nested', plant(host, nest(s.code))],
      ['tabs', plant(host, tabs(s.code))],
      ...inside(host, s),
    ] as const) {
      planted++;
      const tally = byPlacement.get(how) ?? { planted: 0, found: 0 };
      byPlacement.set(how, tally);
      tally.planted++;
      const hits = findContamination(text, index, 0);
      if (hits.some((h) => h.benchmark_item === s.name)) [found, tally.found] = [found + 1, tally.found + 1];
      else missed.push(`${s.name} ${how}`);
      assert.ok(hits.every((h) => text.includes(h.matched)));
    }
  }
  const shortFound = short.filter((s) => s.tokens >= SHORT_ITEM_MIN_TOKENS).length;
  assert.ok(shortFound >= 20, `${shortFound} short solutions over the minimum`);
  assert.equal(planted, 164 * 9);
  assert.ok(found >= planted * 0.95, `${found} of ${planted} found; missed ${missed.join(', ')}`);
  // Each placement on its own, the three inside a file and the tabs among them.
  for (const [how, t] of byPlacement) assert.ok(t.found >= t.planted * 0.95, `${how}: ${t.found} of ${t.planted} found`);
  const matchable = planted - 9 * tooShort.length;
  assert.ok(found >= matchable * 0.99, `${found} of the ${matchable} plantings of items over the minimum found; missed ${missed.join(', ')}`);
  const perPlacement = [...byPlacement].map(([how, t]) => `${how} ${t.found}/${t.planted}`).join('; ');
  process.stderr.write(`planted ${planted}, found ${found} (${((100 * found) / planted).toFixed(1)}%; ${perPlacement}), too_short_to_match ${index.short.tooShort}; missed: ${missed.join(', ')}\n`);
});

test('clean real code is not touched by the solution benchmark (short items included): 0 files flagged', async () => {
  const index = await loadBenchmarks(options);
  const py = pythonFiles(STDLIB).slice(0, 400);
  const js = ['commander/lib', 'yaml/dist', 'semver/classes', 'semver/functions', 'debug/src', 'p-limit', 'hyparquet/src'].flatMap((d) =>
    readdirSync(resolve(repoRoot, 'node_modules', d)).filter((f) => /\.(js|ts)$/.test(f)).map((f) => resolve(repoRoot, 'node_modules', d, f)),
  );
  const files = [...py, ...js];
  const hit = files.filter((f) => findContamination(readFileSync(f, 'utf8'), index, 0).length > 0);
  process.stderr.write(`clean files with a hit: ${hit.length} of ${files.length}: ${hit.slice(0, 10).join(', ')}\n`);
  assert.ok(files.length >= 480, `${files.length} clean files`);
  assert.deepEqual(hit, [], 'no clean file is flagged');
});

test('the stage reports too_short_to_match in its stats', async () => {
  const index = await loadBenchmarks(options);
  const ctx = defaultContext();
  await collect(decontaminateStage(options, index)(fromArray([{ id: 'a', kind: 'text', source: 's', text: 'x = 1\n', meta: {} }]), ctx));
  const stats = ctx.stats.decontaminate as { too_short_to_match: number; methods: Record<string, unknown> };
  assert.equal(stats.too_short_to_match, index.short.tooShort);
  assert.ok(stats.too_short_to_match > 0 && 'whole' in stats.methods);
});

test("the issue's missed item, `def find(n,m): q = n//m return (q)`, is found re-spaced, re-indented and commented, and not as part of a larger block", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-short-'));
  try {
    const bench = join(dir, 'bench.jsonl');
    writeFileSync(bench, JSON.stringify({ task_id: 'find', code: 'def find(n,m):\n  q = n//m\n  return (q)' }) + '\n');
    const o = resolveDecontaminateOptions({ benchmarks: [`${bench}:code`] });
    const index = await loadBenchmarks(o);
    assert.equal(index.short.size, 1);
    const host = readFileSync(join(STDLIB, 'textwrap.py'), 'utf8');
    const planted = plant(host, '# helper\ndef find(n, m):\n    q = n // m  # floor division\n    return (q)\n');
    assert.deepEqual(findContamination(planted, index, 0).map((h) => [h.method, h.benchmark_item]), [['whole', 'find']]);
    // The same lines followed by one more statement of the function are another function.
    const longer = plant(host, 'def find(n, m):\n    q = n // m\n    return (q)\n    print(q)\n');
    assert.deepEqual(findContamination(longer, index, 0), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a short item commented out is found (`#` lines, `//` lines, a `/* */` block with and without `*` margins); spread over a comment and code lines it is not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-short-'));
  try {
    const bench = join(dir, 'bench.jsonl');
    const rows = [
      { task_id: 'find', code: 'def find(n,m):\n  q = n//m\n  return (q)' },
      { task_id: 'add', code: 'function add(a, b) {\n  const s = a + b;\n  return s;\n}' },
    ];
    writeFileSync(bench, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const index = await loadBenchmarks(resolveDecontaminateOptions({ benchmarks: [`${bench}:code`] }));
    const py = readFileSync(join(STDLIB, 'textwrap.py'), 'utf8');
    const js = readFileSync(resolve(repoRoot, 'node_modules', 'commander', 'lib', 'command.js'), 'utf8');
    const found = (text: string) => findContamination(text, index, 0).map((h) => h.benchmark_item);
    assert.deepEqual([found(py), found(js)], [[], []], 'the hosts alone are clean');
    assert.deepEqual(found(plant(py, '# def find(n, m):\n#     q = n // m\n#     return (q)\n')), ['find']);
    assert.deepEqual(found(plant(py, 'class A:\n    def f(self):\n        x = 1\n\n        # def find(n, m):\n        #   q = n // m  # floor\n        #   return (q)\n\n        return x\n')), ['find']);
    const add = 'function add(a, b) {\n  const s = a + b;\n  return s;\n}';
    const jsPlant = (snippet: string) => js.replace('\nclass Command', `\n${snippet}\n\nclass Command`);
    assert.deepEqual(found(jsPlant(add.replace(/^/gm, '// '))), ['add']);
    assert.deepEqual(found(jsPlant(`/*\n${add}\n*/`)), ['add']);
    assert.deepEqual(found(jsPlant(`/**\n${add.replace(/^/gm, ' * ')}\n */`)), ['add']);
    assert.deepEqual(found(jsPlant(`  /* Example:\n\n${add.replace(/^/gm, '     ')}\n  */`)), ['add']);
    // The def line commented and the body as code: neither the code nor the comments hold the item.
    assert.deepEqual(found(plant(py, 'x = 1\n# def find(n, m):\nq = n // m\nprint(q)\n')), []);
    assert.deepEqual(found(plant(py, '# def find(n, m):\n#     q = n // m\nreturn (q)\n')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
