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

/**
 * HumanEval's solutions (the `canonical_solution` field alone, so 36 of the 164 items have fewer
 * words than the 13-gram window), planted in real files of the Python standard library as whole
 * functions: verbatim, re-indented to 2 spaces and re-spaced, and nested one level deeper in a
 * class. The clean files are the same standard library files and node_modules code. (HumanEval/61
 * is found too, but named HumanEval/56: the two solutions differ only in the bracket characters,
 * which the word n-grams do not see, and a window names the first item that has it.)
 */
const options = resolveDecontaminateOptions({ benchmarks: [`${HUMANEVAL}:canonical_solution`] });

/** The solution as a whole function: the entry point's `def` line from the prompt, then the solution. */
async function solutions(): Promise<{ name: string; code: string; tokens: number }[]> {
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
    return { name: r.name!, code: `${def}\n${r.solution!.replace(/\n+$/, '')}\n`, tokens };
  });
}

const reindent = (code: string) => code.replace(/^( {4})+/gm, (s) => '  '.repeat(s.length / 4));
const respace = (code: string) => reindent(code).replace(/ *([=<>+*%-]+) */g, '$1').replace(/,(?=\S)/g, ', ');
const nest = (code: string) => `class Holder:\n    """Holds it."""\n\n` + code.replace(/^(?=.)/gm, '    ');

function plant(host: string, snippet: string): string {
  const lines = host.split('\n');
  // Between two top-level statements, so the planted function is a whole unit of the file.
  let at = Math.floor(lines.length / 2);
  while (at < lines.length && !/^(def|class|import|from) /.test(lines[at]!)) at++;
  return [...lines.slice(0, at), '', snippet, '', ...lines.slice(at)].join('\n');
}

test('short HumanEval solutions planted whole are found verbatim, re-indented, re-spaced and nested; the generic ones are counted too_short_to_match', async () => {
  const index = await loadBenchmarks(options);
  const sols = await solutions();
  const short = sols.filter((s) => (s.code.split('\n').slice(1).join('\n').match(/\w+/g) ?? []).length < 13);
  assert.ok(short.length >= 30, `${short.length} solutions shorter than the 13-gram window`);
  const tooShort = sols.filter((s) => s.tokens < SHORT_ITEM_MIN_TOKENS);
  assert.equal(index.short.tooShort, tooShort.length, 'too_short_to_match counts the items under the minimum');
  const hosts = pythonFiles(STDLIB).slice(0, 60).map((f) => readFileSync(f, 'utf8'));
  let planted = 0;
  let found = 0;
  const missed: string[] = [];
  // Every solution is planted, the ones under the minimum too: they count as planted and not found.
  for (const [i, s] of sols.entries()) {
    for (const [how, code] of [
      ['verbatim', s.code],
      ['reindented', reindent(s.code)],
      ['respaced', respace(s.code)],
      ['nested', nest(s.code)],
    ] as const) {
      planted++;
      const text = plant(hosts[i % hosts.length]!, code);
      const hits = findContamination(text, index, 0);
      if (hits.some((h) => h.benchmark_item === s.name)) found++;
      else missed.push(`${s.name} ${how}`);
      assert.ok(hits.every((h) => text.includes(h.matched)));
    }
  }
  const shortFound = short.filter((s) => s.tokens >= SHORT_ITEM_MIN_TOKENS).length;
  assert.ok(shortFound >= 20, `${shortFound} short solutions over the minimum`);
  assert.equal(planted, 164 * 4);
  assert.ok(found >= planted * 0.95, `${found} of ${planted} found; missed ${missed.join(', ')}`);
  const matchable = planted - 4 * tooShort.length;
  assert.ok(found >= matchable * 0.99, `${found} of the ${matchable} plantings of items over the minimum found`);
  process.stderr.write(`planted ${planted}, found ${found} (${((100 * found) / planted).toFixed(1)}%), too_short_to_match ${index.short.tooShort}; missed: ${missed.join(', ')}\n`);
});

test('clean real code touched by the solution benchmark (short items included): at most 1% of files', async () => {
  const index = await loadBenchmarks(options);
  const py = pythonFiles(STDLIB).slice(0, 400);
  const js = ['commander/lib', 'yaml/dist', 'semver/classes', 'semver/functions', 'debug/src', 'p-limit', 'hyparquet/src'].flatMap((d) =>
    readdirSync(resolve(repoRoot, 'node_modules', d)).filter((f) => /\.(js|ts)$/.test(f)).map((f) => resolve(repoRoot, 'node_modules', d, f)),
  );
  const files = [...py, ...js];
  const hit = files.filter((f) => findContamination(readFileSync(f, 'utf8'), index, 0).length > 0);
  process.stderr.write(`clean files with a hit: ${hit.length} of ${files.length}: ${hit.slice(0, 10).join(', ')}\n`);
  assert.ok(hit.length <= files.length * 0.01, `hits in ${hit.join(', ')}`);
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
