import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc } from '../../../src/doc/document.js';
import { parseTemplate, renderTemplate } from '../../../src/stages/trajectories/jinja/engine.js';
import { TemplateLimit } from '../../../src/stages/trajectories/jinja/bounds.js';
import { resolveTrajectoriesOptions, TRAJECTORIES_DEFAULTS } from '../../../src/stages/trajectories/index.js';
import { CHAT_FIXTURES } from '../../../scripts/build-chat-template-rows.js';
import { sharedDir } from '../../helpers/paths.js';
import { midpack } from '../../helpers/run-cli.js';
import { slow } from '../../helpers/tiers.js';
import { jsonlFile, readJsonlDocs, runSource, tmp } from './helpers.js';

/**
 * A chat template is input: one that runs away costs its row, not the run. Each hostile template
 * is the published Qwen2.5 template with a block that runs away on one row (the user message
 * RUNAWAY); the real rows of the same file around it must come out byte for byte as the published
 * template writes them, and the hostile row be dropped as `template_limit` naming the bound (or
 * `template_error` for a template that raises). The bounds that stop them are counted, not timed:
 * the message names steps, characters or depth, never the wall time.
 */
const QWEN = readFileSync(join(sharedDir, 'data', 'chat-templates', 'qwen2.5.jinja'), 'utf8');
const TRIGGER = "{%- if messages[0].content == 'RUNAWAY' %}";

/** The fixture rows (real trajectories of six scaffolds as OpenAI rows), with the RUNAWAY row among them. */
function rowsFile(dir: string): { file: string; rows: number } {
  const all = readFileSync(join(CHAT_FIXTURES, 'rows.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { row: unknown }).row);
  const real = [0, 12, 17, 19, 22, 24].map((k) => all[k]);
  const runaway = { messages: [{ role: 'user', content: 'RUNAWAY' }, { role: 'assistant', content: 'No.' }] };
  return { file: jsonlFile(dir, 'rows.jsonl', [...real.slice(0, 3), runaway, ...real.slice(3)]), rows: real.length };
}

/** A template file named qwen2.5.jinja in its own folder (so documents name the same template). */
function templateFile(dir: string, name: string, hostile: string): string {
  mkdirSync(join(dir, name));
  const path = join(dir, name, 'qwen2.5.jinja');
  writeFileSync(path, hostile === '' ? QWEN : `${TRIGGER}${hostile}{%- endif %}\n${QWEN}`);
  return path;
}

/** Bounds small enough for a test, far above what the real rows take (about 9,000 steps and 2.7 characters per row character). */
const BOUNDS = { templateMaxSteps: 50_000, templateStepsRatio: 1, templateMaxChars: 1 << 20, templateCharsRatio: 4, templateMaxDepth: 100 };
const OPTIONS = { requireTermination: false, requireValidCalls: false, ...BOUNDS };

const HOSTILE: { name: string; template: string; reason: string; names: RegExp }[] = [
  { name: 'range of a huge number', template: '{%- for x in range(100000000) %}{{ x }}{% endfor %}', reason: 'template_limit', names: /templateMaxSteps.*range\(\) of 100000000 items/ },
  { name: 'unbounded nested loops', template: '{%- for a in range(100000) %}{%- for b in range(100000) %}{% if b < 0 %}x{% endif %}{% endfor %}{% endfor %}', reason: 'template_limit', names: /templateMaxSteps/ },
  { name: 'loops that break at once over a long list', template: '{%- set l = range(100000)|list %}{%- for a in l %}{%- for b in l %}{% break %}{% endfor %}{% endfor %}', reason: 'template_limit', names: /templateMaxSteps/ },
  { name: 'deep recursion through macros', template: '{%- macro down(n) %}{{ down(n + 1) }}{% endmacro %}{{ down(0) }}', reason: 'template_limit', names: /templateMaxDepth: evaluations nested more than 100 deep/ },
  { name: 'mutual recursion through macros', template: '{%- macro a(n) %}{{ b(n) }}{% endmacro %}{%- macro b(n) %}{{ a(n) ~ a(n) }}{% endmacro %}{{ a(0) }}', reason: 'template_limit', names: /templateMaxDepth/ },
  { name: 'a huge string built by concatenation', template: "{%- set ns = namespace(s='x') %}{%- for i in range(64) %}{%- set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}", reason: 'template_limit', names: /templateMaxChars.*a string of \d+ characters, over 1048976/ },
  { name: 'a loop that writes without end', template: "{%- set ns = namespace(s='x') %}{%- for i in range(16) %}{%- set ns.s = ns.s ~ ns.s %}{% endfor %}{%- for i in range(40000) %}{{ ns.s }}{% endfor %}", reason: 'template_limit', names: /templateMaxChars.*a loop's text of 1114112 characters, over 1048976/ },
  { name: 'a huge join', template: "{%- set ns = namespace(s='x', l=[]) %}{%- for i in range(18) %}{%- set ns.s = ns.s ~ ns.s %}{% endfor %}{%- for i in range(300) %}{%- set ns.l = ns.l + [ns.s] %}{% endfor %}{{ ns.l | join('') }}", reason: 'template_limit', names: /templateMaxChars.*a string of 78643200 characters/ },
  { name: 'a list doubled without end', template: '{%- set ns = namespace(l=[1]) %}{%- for i in range(64) %}{%- set ns.l = ns.l + ns.l %}{% endfor %}', reason: 'template_limit', names: /templateMaxSteps/ },
  { name: 'a huge indent', template: "{{ 'a\\nb' | indent(500000000) }}", reason: 'template_limit', names: /templateMaxChars/ },
  { name: 'a template that raises', template: "{{ raise_exception('not this row') }}", reason: 'template_error', names: /the template raised: not this row/ },
];

test('hostile chat templates: each costs its row alone; the other rows of the file are written as the published template writes them', slow, async () => {
  const dir = tmp();
  const { file, rows } = rowsFile(dir);
  const plain = await runSource([file], { ...OPTIONS, chatTemplates: templateFile(dir, 'plain', '') });
  // The published template drops nothing: RUNAWAY is an ordinary row to it.
  assert.equal(plain.docs.length, rows + 1);
  assert.deepEqual(plain.ledger.dropped, {});
  const expected: Doc[] = plain.docs.filter((d) => !d.text.includes('RUNAWAY'));
  assert.equal(expected.length, rows);
  for (const [k, h] of HOSTILE.entries()) {
    const r = await runSource([file], { ...OPTIONS, chatTemplates: templateFile(dir, `h${k}`, h.template) });
    assert.equal(r.balanced, true, h.name);
    assert.equal(r.ledger.records_in, rows + 1, h.name);
    assert.equal(r.ledger.records_out, rows, h.name);
    assert.deepEqual(r.ledger.dropped, { [h.reason]: 1 }, h.name);
    const message = r.ledger.examples[h.reason]![0]!;
    assert.match(message, /rows\.jsonl:4: qwen2\.5\.jinja: /, h.name);
    assert.match(message, h.names, `${h.name}: ${message}`);
    assert.doesNotMatch(message, /templateTimeoutMs/, `${h.name}: stopped by a count, not the clock`);
    // The kept rows' bytes: the same documents as the published template's, ids, spans and meta included.
    assert.deepEqual(r.docs, expected, h.name);
  }
});

test('the bounds stop a render early: steps, characters, depth and the clock, each named', () => {
  const b = { maxSteps: 10_000, maxChars: 1000, maxDepth: 50, timeoutMs: 60_000 };
  const render = (src: string, bounds = b) => renderTemplate(parseTemplate(src), { messages: [] }, false, bounds);
  const limit = (bound: string) => (e: unknown) => e instanceof TemplateLimit && e.bound === bound;
  assert.throws(() => render('{% for x in range(10001) %}{% endfor %}'), limit('maxSteps'));
  assert.equal(render('{% for x in range(3000) %}{% endfor %}'), '', 'under the bound');
  assert.throws(() => render("{{ 'x' ~ ('y' | indent(2000)) }}"), limit('maxChars'));
  assert.equal(render('{% for x in range(400) %}{{ x % 10 }}{% endfor %}').length, 400);
  assert.throws(() => render('{% for x in range(2000) %}{{ x % 10 }}{% endfor %}'), limit('maxChars'), 'a loop is stopped as it writes');
  assert.throws(() => render('{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}'), limit('maxDepth'));
  // A break or continue leaves no depth behind: a thousand of them, far past the depth bound.
  assert.equal(render('{% for x in range(1000) %}{% if x % 2 %}{% continue %}{% endif %}{% if x > 998 %}{% break %}{% endif %}{% endfor %}ok'), 'ok');
  // The clock rides on the step counter: a render that has used its time stops at the next check.
  assert.throws(() => render('{% for x in range(5000) %}{% endfor %}', { ...b, timeoutMs: -1 }), limit('timeoutMs'));
  // Python's range with a zero step raises (it looped for ever before).
  assert.throws(() => render('{% for x in range(10, 0, 0) %}{% endfor %}'), /must not be zero/);
  // Without bounds, the engine as it is.
  assert.equal(renderTemplate(parseTemplate('{% for x in range(20000) %}{% endfor %}done'), { messages: [] }), 'done');
});

test('the bounds are options: defaults, config keys, and a refused value named', () => {
  const d = resolveTrajectoriesOptions({});
  assert.deepEqual(
    [d.templateMaxSteps, d.templateStepsRatio, d.templateMaxChars, d.templateCharsRatio, d.templateMaxDepth, d.templateTimeoutMs],
    [1_000_000, 4, 4 << 20, 8, 200, 60_000],
  );
  assert.equal(TRAJECTORIES_DEFAULTS.templateMaxSteps, 1_000_000);
  assert.equal(resolveTrajectoriesOptions({ templateMaxSteps: 5 }).templateMaxSteps, 5);
  assert.throws(() => resolveTrajectoriesOptions({ templateMaxDepth: 100_000 }), /templateMaxDepth: must be an integer in 1\.\.500/);
  assert.throws(() => resolveTrajectoriesOptions({ templateCharsRatio: -1 }), /templateCharsRatio/);
});

test('midpack trajectories: a template that loops for ever on one row; the run goes on, the drop counted in the summary and the manifest', slow, () => {
  const dir = tmp();
  const { file, rows } = rowsFile(dir);
  const template = templateFile(dir, 'loop', '{%- for x in range(100000000) %}{{ x }}{% endfor %}');
  const out = join(dir, 'out.jsonl');
  // The default bounds: the issue's template, which ran 55 s to 4.8 GB and died on V8's heap limit.
  const r = midpack(['trajectories', file, '--chat-template', template, '--no-require-termination', '--no-require-valid-calls', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /rows\.jsonl:4: qwen2\.5\.jinja: the render passed templateMaxSteps \+ templateStepsRatio × the row's characters: range\(\) of 100000000 items/);
  assert.match(r.stderr, /dropped template_limit: 1/);
  assert.equal(readJsonlDocs(out).length, rows);
  const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'));
  assert.deepEqual(manifest.ledger.dropped, { template_limit: 1 });
  assert.equal(manifest.ledger.records_out, rows);
  // A flag sets a bound; a refused value is named by its flag.
  const small = midpack(['trajectories', file, '--chat-template', template, '--no-require-termination', '--no-require-valid-calls', '--out', join(dir, 'o2.jsonl'), '--template-max-steps', '50', '--template-steps-ratio', '0']);
  assert.equal(small.status, 0, small.stderr);
  assert.match(small.stderr, /dropped template_limit: \d+/);
  const bad = midpack(['trajectories', file, '--out', join(dir, 'o3.jsonl'), '--template-max-depth', 'deep']);
  assert.equal(bad.status, 1);
  assert.equal(bad.stderr, 'midpack: error: --template-max-depth: must be an integer in 1..500, got "deep"\n');
});
