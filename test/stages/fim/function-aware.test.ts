import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync, statSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { parser as pyParser } from '@lezer/python';
import { parser as jsParser } from '@lezer/javascript';
import type { Tree } from '@lezer/common';
import { collect, defaultContext, fromArray } from '../../../src/core/stage.js';
import type { Doc } from '../../../src/doc/document.js';
import { formatRepoDocument, parseRepoDocument } from '../../../src/stages/repos/format.js';
import { serializeRepos } from '../../../src/stages/repos/serialize.js';
import { reconstructFim, verifySrFim } from '../../../src/stages/fim/fim-sample.js';
import { chatTurns } from '../../../src/stages/fim/text.js';
import { DEFAULT_FIM_OPTIONS, fimStage, type FimOptions, type FimStats } from '../../../src/stages/fim/stage.js';
import { repoRoot } from '../../helpers/paths.js';
import { slow } from '../../helpers/tiers.js';

/** A real Python repository outside data-samples: PyYAML as Debian's python3-yaml installs it, else the standard library's json. */
function pythonRepo(): { name: string; dir: string } {
  const debian = '/usr/lib/python3/dist-packages/yaml';
  if (existsSync(join(debian, 'constructor.py'))) return { name: 'yaml', dir: debian };
  const py = spawnSync('python3', ['-c', 'import json, os; print(os.path.dirname(json.__file__))'], { encoding: 'utf8' });
  return { name: 'json', dir: py.stdout.trim() };
}

function pythonRepoDoc(): Doc {
  const { name, dir } = pythonRepo();
  const files = readdirSync(dir).filter((f) => f.endsWith('.py') && statSync(join(dir, f)).isFile()).sort().map((f) => ({ path: `${name}/${f}`, content: readFileSync(join(dir, f), 'utf8') }));
  const r = formatRepoDocument(name, files);
  return { id: `python:${name}`, kind: 'repo', source: dir, text: r.text, special_spans: r.special_spans, meta: { repo: name, boundaries: r.boundaries } };
}

async function dataSampleRepoDocs(): Promise<Doc[]> {
  return collect(serializeRepos([join(repoRoot, 'data-samples/repos')], {}, defaultContext({ seed: 0 })));
}

const opts = (format: 'fim' | 'chat_fim' | 'sr_fim', extra: Partial<FimOptions['functionAware']> = {}): FimOptions => ({
  ...DEFAULT_FIM_OPTIONS,
  fimRate: 1,
  formats: { fim: 0, chat_fim: 0, sr_fim: 0, [format]: 1 },
  spans: { char: 0, line: 0, unit: 0, 'function-aware': 1 },
  functionAware: { ...DEFAULT_FIM_OPTIONS.functionAware, ...extra },
});

function hasError(tree: Tree): boolean {
  let bad = false;
  tree.iterate({ enter: (n) => void (n.type.isError && (bad = true)) });
  return bad;
}

/** The top-level node names of a parse (comments aside). */
function topNames(tree: Tree): string[] {
  const out: string[] = [];
  for (let c = tree.topNode.firstChild; c; c = c.nextSibling) if (!c.name.endsWith('Comment')) out.push(c.name);
  return out;
}

/** The test's own check that a middle, parsed alone, is exactly one function. */
function assertOneFunction(middle: string, file: string, source: string, at: number, where: string): void {
  if (file.endsWith('.py')) {
    const indent = source.slice(source.lastIndexOf('\n', at - 1) + 1, at);
    const dedented = middle.split('\n').map((l, i) => (i > 0 && l.startsWith(indent) ? l.slice(indent.length) : l)).join('\n');
    const tree = pyParser.parse(dedented);
    assert.ok(!hasError(tree), `${where}: the middle parses alone without error`);
    assert.deepEqual(topNames(tree), ['FunctionDefinition'], `${where}: exactly one function`);
    return;
  }
  const p = /\.tsx?$/.test(file) ? jsParser.configure({ dialect: 'ts' }) : jsParser;
  const candidates = [middle, `class _ {\n${middle}\n}`, `({\n${middle}\n})`, `(${middle})`];
  const ok = candidates.some((t, i) => {
    const tree = p.parse(t);
    if (hasError(tree)) return false;
    if (i === 0) return topNames(tree).join() === 'FunctionDeclaration';
    const text = tree.topNode.firstChild;
    if (i === 1) return text?.name === 'ClassDeclaration' && text.getChild('ClassBody')!.getChildren('MethodDeclaration').length === 1 && text.getChild('ClassBody')!.lastChild!.from === t.length - 1;
    const paren = text?.firstChild;
    if (i === 2) return paren?.getChild('ObjectExpression')?.getChildren('Property').length === 1;
    return paren?.name === 'ParenthesizedExpression' && ['ArrowFunction', 'FunctionExpression'].includes(paren.firstChild!.nextSibling!.name) && paren.firstChild!.nextSibling!.to === t.length - 1;
  });
  assert.ok(ok, `${where}: the middle parses alone as exactly one function`);
}

/** The file as the sample holds it, rebuilt from the sample alone; and the context the model sees. */
function readBack(s: Doc): { rebuilt: string; context: string } {
  const format = s.meta.format as string;
  if (format === 'sr_fim') {
    const user = chatTurns(s).find((t) => t.role === 'user')!;
    return { rebuilt: '', context: s.text.slice(user.start, user.end) };
  }
  const chat = format === 'chat_fim';
  const order = (chat ? s.meta.fim_order : format) as 'psm' | 'spm';
  const rebuilt = reconstructFim(s, order, chat);
  const [a, b] = s.meta.span as [number, number];
  const middleLength = b - a;
  const context = chat ? s.text.slice(chatTurns(s).find((t) => t.role === 'user')!.start, chatTurns(s).find((t) => t.role === 'user')!.end) : s.text.slice(0, s.text.length - middleLength);
  return { rebuilt, context };
}

async function checkSamples(docs: Doc[], label: string): Promise<FimStats> {
  const seen = new Set<string>();
  let stats: FimStats | undefined;
  const files = docs.flatMap((d) => parseFiles(d)); // parsed once, not once per sample
  for (const format of ['fim', 'chat_fim', 'sr_fim'] as const) {
    for (const seed of [1, 2]) {
      const ctx = defaultContext({ seed });
      const out = await collect(fimStage(opts(format))(fromArray(docs), ctx));
      stats = ctx.stats.fim as FimStats;
      assert.deepEqual(stats.verify_failed, {}, `${label}: no verification failure`);
      for (const s of out.filter((d) => d.meta.function)) {
        const fn = s.meta.function as Record<string, any>;
        const source = files.find((f) => f.path === fn.file && (s.meta.repo === undefined || f.repo === s.meta.repo))!.content;
        const [a, b] = s.meta.span as [number, number];
        const middle = source.slice(a, b);
        const where = `${label} ${s.meta.format} ${fn.qualified_name}`;
        assertOneFunction(middle, fn.file, source, a, where);
        const { rebuilt, context } = readBack(s);
        if (s.meta.format === 'sr_fim') assert.equal(verifySrFim(s, fn.file, source), null, where);
        else assert.equal(rebuilt, source, `${where}: prefix + middle + suffix rebuilds the file byte for byte`);
        const call = new RegExp(`(?<![\\w$])(?<!def |function )${fn.name.replace(/\$/g, '\\$')}\\s*\\(`, 'u');
        assert.match(context, call, `${where}: the function is called in the context outside the middle`);
        const t = fn.thresholds;
        assert.ok(fn.complexity.statements >= t.min_statements || fn.complexity.cyclomatic >= t.min_cyclomatic, `${where}: not trivial`);
        assert.ok(fn.complexity.lines <= t.max_lines, `${where}: not unbounded`);
        assert.equal(fn.complexity.lines, middle.split('\n').length, `${where}: the line figure is the middle's`);
        assert.ok(fn.inferability.call_sites >= t.min_callers && fn.inferability.score >= t.min_inferability, `${where}: inferable`);
        seen.add(`${fn.language}:${s.meta.format}`);
      }
    }
  }
  assert.ok(seen.size >= 3, `${label}: samples of every format (${[...seen].join(', ')})`);
  return stats!;
}

function parseFiles(d: Doc): { repo: string; path: string; content: string }[] {
  if (d.kind !== 'repo') return [{ repo: String(d.meta.repo), path: String(d.meta.path), content: d.text }];
  const { repo, files } = requireRepo(d);
  return files.map((f) => ({ repo, ...f }));
}

const requireRepo = (d: Doc) => parseRepoDocument(d);

test('function-aware samples on the data-samples repositories: one whole function, byte-exact, called in the context, thresholds met', slow, async () => {
  const stats = await checkSamples(await dataSampleRepoDocs(), 'data-samples');
  const js = stats.function_aware!.languages.javascript!;
  assert.ok(js.functions > 100 && js.selected > 0);
  assert.equal(js.functions, js.candidates + Object.values(js.rejected).reduce((a, b) => a + b, 0), 'the funnel adds up');
});

test(`function-aware samples on a real Python repository (${pythonRepo().name}, not from data-samples)`, slow, async () => {
  const doc = pythonRepoDoc();
  const stats = await checkSamples([doc], pythonRepo().name);
  const py = stats.function_aware!.languages.python!;
  assert.ok(py.selected > 0 && py.rejected.too_simple! > 0, JSON.stringify(py));
  assert.ok(stats.function_aware!.calls.import! > 0, 'calls resolved through imports');
  // --middle body: the middle is the body only, and the signature stays in the prefix.
  const ctx = defaultContext({ seed: 3 });
  const [s] = await collect(fimStage(opts('fim', { middle: 'body' }))(fromArray([doc]), ctx));
  const fn = s!.meta.function as Record<string, any>;
  assert.equal(fn.middle, 'body');
  const source = requireRepo(doc).files.find((f) => f.path === fn.file)!.content;
  const [a, b] = s!.meta.span as [number, number];
  assert.doesNotMatch(source.slice(a, b), new RegExp(`def ${fn.name}\\s*\\(`));
  assert.match(source.slice(0, a).split('\n').slice(-4).join('\n'), new RegExp(`def ${fn.name}\\s*\\(`), 'the signature ends the prefix');
  assert.equal(reconstructFim(s!, s!.meta.format as 'psm' | 'spm', false), source);
});

test('file rows carrying their repository are grouped into one graph; rows stay one sample each', async () => {
  const repo = pythonRepoDoc();
  const rows: Doc[] = requireRepo(repo).files.map((f) => ({ id: f.path, kind: 'text', source: f.path, text: f.content, meta: { repo: 'yaml-rows', path: f.path } }));
  const ctx = defaultContext({ seed: 5 });
  const out = await collect(fimStage(opts('fim'))(fromArray(rows), ctx));
  assert.equal(out.length, rows.length);
  const samples = out.filter((d) => d.meta.function);
  assert.ok(samples.length > 0);
  for (const s of samples) {
    assert.equal((s.meta.function as { file: string }).file, s.meta.path, 'the row\'s own file holds the function');
    assert.ok(s.text.startsWith('<|repo_name|>yaml-rows\n'), 'a repository-level sample');
  }
  const fa = (ctx.stats.fim as FimStats).function_aware!;
  assert.equal(fa.graphs, 1, 'one graph for the whole group');
  // Bounded memory: a tiny group limit splits the group and says so.
  const small = defaultContext({ seed: 5 });
  await collect(fimStage({ ...opts('fim'), functionAware: { ...DEFAULT_FIM_OPTIONS.functionAware, repoGroupChars: 20_000 } })(fromArray(rows), small));
  assert.ok((small.stats.fim as FimStats).function_aware!.repo_groups_split > 0);
});

test('same seed, same samples; a lone file without its repository passes through, counted', async () => {
  const docs = [pythonRepoDoc()];
  const run = async () => JSON.stringify(await collect(fimStage(opts('chat_fim'))(fromArray(docs), defaultContext({ seed: 9 }))));
  assert.equal(await run(), await run());
  const ctx = defaultContext({ seed: 1 });
  const lone: Doc = { id: 'x', kind: 'text', source: 'x.py', text: 'def f():\n    pass\n', meta: { path: 'x.py' } };
  const [out] = await collect(fimStage(opts('fim'))(fromArray([lone]), ctx));
  assert.equal(out, lone);
  assert.equal((ctx.stats.fim as FimStats).skipped.function_aware_without_repository, 1);
});

test('midpack fim --spans function-aware writes the funnel into OUT.manifest.json', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-fa-'));
  const out = join(dir, 'fim.jsonl');
  const r = spawnSync(process.execPath, [join(repoRoot, 'dist/src/cli/main.js'), 'fim', join(repoRoot, 'data-samples/repos/commander/lib'), '--out', out, '--fim-rate', '1', '--spans', 'function-aware', '--quiet'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'));
  assert.ok(JSON.stringify(manifest).includes('"function_aware"'), 'the funnel is in the manifest');
  const bad = spawnSync(process.execPath, [join(repoRoot, 'dist/src/cli/main.js'), 'fim', 'x', '--out', out, '--middle', 'whole'], { encoding: 'utf8' });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /middle: "whole" is not one of function, body/);
});
