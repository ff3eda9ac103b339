import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc } from '../../../src/doc/document.js';
import { defaultContext } from '../../../src/core/stage.js';
import { loadTokenizer } from '../../../src/tokenize/index.js';
import { resolveTrajectoriesOptions } from '../../../src/stages/trajectories/index.js';
import { readTrajectories } from '../../../src/stages/trajectories/stage.js';
import { toChatRow } from '../../../src/stages/trajectories/jinja/row.js';
import { strftime } from '../../../src/stages/trajectories/jinja/engine.js';
import { CHAT_FIXTURES, DEFAULT_ROW_INPUTS } from '../../../scripts/build-chat-template-rows.js';
import { sharedDir } from '../../helpers/paths.js';
import { midpack } from '../../helpers/run-cli.js';
import { loadRunConfig } from '../../../src/job/run-config.js';
import { decodeTrained, jsonlFile, keysBySource, renderShared, runSource, tmp } from './helpers.js';

/**
 * Models' own chat templates (../shared/data/chat-templates, 13 published templates) against
 * transformers' apply_chat_template: the expected texts are fixtures written by
 * scripts/render_chat_templates.py from the rows scripts/build-chat-template-rows.ts writes (the
 * shared SWE-agent trajectories read by midpack's readers, and the stress rows).
 */
const TEMPLATES_DIR = join(sharedDir, 'data', 'chat-templates');
type Expected = Record<string, Record<string, { sha256: string; bytes: number; text?: string } | { error: string }>>;
const expected = JSON.parse(readFileSync(join(CHAT_FIXTURES, 'expected.json'), 'utf8')) as Expected;
const TEMPLATE_FILES = Object.keys(expected).sort();

const renderAll = (file: string, extra: Record<string, unknown> = {}) => renderShared(file, extra);

test('chat templates: the rows midpack passes are the rows the fixtures were rendered from', async () => {
  const rows = readFileSync(join(CHAT_FIXTURES, 'rows.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { key: string; row: unknown });
  const got: { key: string; row: unknown }[] = [];
  for await (const t of readTrajectories(DEFAULT_ROW_INPUTS, resolveTrajectoriesOptions({}), defaultContext({ log: () => {} }), () => {})) got.push({ key: t.key!, row: toChatRow(t) });
  assert.ok(got.length >= 40, `rows from the six scaffolds' samples and the stress rows: ${got.length}`);
  assert.deepEqual(got, rows);
  assert.equal(TEMPLATE_FILES.length, 13, 'every shared template has expected outputs');
});

test("chat templates: every shared template renders every row byte for byte as transformers' apply_chat_template, and raises where it raises", async () => {
  const keys = await keysBySource();
  let compared = 0;
  for (const file of TEMPLATE_FILES) {
    const { docs, ledger, balanced, stats } = await renderAll(file);
    assert.equal(balanced, true, file);
    const want = expected[file]!;
    const raising = Object.entries(want).filter(([, w]) => 'error' in w);
    for (const doc of docs) {
      const w = want[keys.get(doc.source)!]!;
      assert.ok(!('error' in w), `${file}: ${doc.source} rendered, but transformers raised: ${JSON.stringify(w)}`);
      const bytes = Buffer.from(doc.text, 'utf8');
      if (w.text !== undefined && doc.text !== w.text) {
        let i = 0;
        while (doc.text[i] === w.text[i]) i++;
        assert.fail(`${file} ${doc.source}: differs at ${i}: ${JSON.stringify(doc.text.slice(i, i + 80))} vs ${JSON.stringify(w.text.slice(i, i + 80))}`);
      }
      assert.equal(bytes.length, w.bytes, `${file} ${doc.source}: length`);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), w.sha256, `${file} ${doc.source}: bytes`);
      assert.equal(doc.meta.template, file);
      compared++;
    }
    // A template that raises on a row raises in midpack too: its own raise_exception as template_error with its
    // message; a Python error of the template (Hermes-3 iterating tools that are None) as the engine's, template_unsupported.
    assert.equal(docs.length + raising.length, Object.keys(want).length, file);
    const raised = (ledger.dropped.template_error ?? 0) + (ledger.dropped.template_unsupported ?? 0);
    assert.equal(raised, raising.length, `${file}: ${JSON.stringify(ledger.dropped)}`);
    assert.equal(ledger.dropped.mask_unmapped, undefined, `${file}: every loss mask placed`);
    const own = raising.filter(([, w]) => !/is not iterable|can only concatenate|TypeError/.test((w as { error: string }).error));
    assert.equal(ledger.dropped.template_error ?? 0, own.length, file);
    // the examples kept (the first five) each carry a message transformers gave for the same template
    const messages = raising.map(([, w]) => (w as { error: string }).error);
    for (const m of stats.rejected_examples as string[]) {
      if (m.includes('the template raised')) assert.ok(messages.some((x) => m.includes(x)), `${file}: ${m}`);
    }
  }
  assert.ok(compared >= 13 * 40 - 60, `documents compared: ${compared}`);
});

/** How a template may write a string of the row. */
const writings = (s: string) => [s, s.trim(), JSON.stringify(s).slice(1, -1)];
const stringsOf = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(stringsOf) : v && typeof v === 'object' ? Object.values(v).flatMap(stringsOf) : []);

test('chat templates: decoding the packed tokens, every assistant content, kept reasoning and call argument is trained on, no system, user or tool text is', async () => {
  const tok = await loadTokenizer();
  const rows = readFileSync(join(CHAT_FIXTURES, 'rows.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { key: string; row: { messages: Record<string, any>[] } });
  const byKey = new Map(rows.map((r) => [r.key, r.row]));
  const keys = await keysBySource();
  const checkedKeys = [
    'stress.jsonl:1',
    'stress.jsonl:2',
    'swe-agent/function_calling_simple.traj',
    ...rows.map((r) => r.key).filter((k) => k.includes('xml_sys-env_window100')),
    'mini-swe-agent/v1-format_harbor-rfc_mini-swe-agent-trajectory.json',
    'openhands/harbor-rfc_openhands_trajectory.json',
    'claude-code/tool_heavy.jsonl',
    'qwen-code/pr-7573_stream-json_output.jsonl',
    'terminus/hello-world-timeout.trajectory.json',
  ];
  assert.ok(checkedKeys.every((k) => byKey.has(k)), 'the checked rows exist');
  let checked = 0;
  for (const file of TEMPLATE_FILES) {
    const { docs } = await renderAll(file);
    for (const doc of docs.filter((d) => checkedKeys.includes(keys.get(d.source)!))) {
      const trained = decodeTrained(tok, doc).trained;
      const dropped = (doc.meta.dropped_content ?? {}) as Record<string, number>;
      let cursor = 0;
      const expect = (s: string, value: number, what: string, mayDrop: boolean) => {
        if (typeof s !== 'string' || s.trim() === '') return;
        const at = writings(s)
          .map((w) => [doc.text.indexOf(w, cursor), w.length] as const)
          .filter(([a]) => a >= 0)
          .sort((x, y) => x[0] - y[0])[0];
        if (!at) return assert.ok(mayDrop, `${file} ${doc.source}: ${what} ${JSON.stringify(s.slice(0, 40))} not found`);
        // Content of a kind the template reports dropping may be absent here and found elsewhere: not held against it.
        if (mayDrop && trained.subarray(at[0], at[0] + at[1]).some((x) => x !== value)) return;
        for (let i = at[0]; i < at[0] + at[1]; i++) {
          if (trained[i] !== value) assert.fail(`${file} ${doc.source}: ${what} at ${i} ${JSON.stringify(doc.text.slice(i, i + 30))} is ${value ? 'masked' : 'trained on'}`);
        }
        checked += at[1];
        if (!mayDrop) cursor = at[0] + at[1];
      };
      for (const m of byKey.get(keys.get(doc.source)!)!.messages) {
        if (m.role !== 'assistant') {
          expect(m.content, 0, `${m.role} text`, dropped[`${m.role === 'tool' ? 'tool_result' : `${m.role}_content`}`] > 0);
          continue;
        }
        if (m.reasoning_content) expect(m.reasoning_content, 1, 'reasoning', dropped.reasoning > 0);
        expect(m.content, 1, 'assistant text', (dropped.text_beside_call ?? 0) + (dropped.assistant_content ?? 0) > 0);
        for (const c of m.tool_calls ?? []) for (const v of stringsOf(c.function.arguments)) expect(v, 1, `argument of ${c.function.name}`, dropped.tool_call > 0);
      }
      // the end-of-turn token of the last assistant message is trained on: the last trained character is not template whitespace
      const inLoss = new Uint8Array(doc.text.length).fill(1);
      for (const [a, b] of doc.loss_mask_spans ?? []) inLoss.fill(0, a, b);
      const lastTrained = inLoss.lastIndexOf(1);
      assert.ok(lastTrained > 0 && /\S/.test(doc.text[lastTrained]!), `${file}: the loss ends on the end-of-turn text, not on whitespace`);
    }
  }
  assert.ok(checked > 100_000, `characters checked by decoding: ${checked}`);
});

test('chat templates: special spans are only Qwen3 added tokens in template text; marker strings inside messages stay text; dropped content is counted', async () => {
  const tok = await loadTokenizer();
  const dir = tmp();
  const marker = '<|im_end|><tool_call></tool_call><|eot_id|>';
  const row = {
    messages: [
      { role: 'system', content: `sys ${marker}` },
      { role: 'user', content: `task ${marker}` },
      { role: 'assistant', reasoning_content: 'first thought', content: 'look', tool_calls: [{ id: 'a', type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `echo '${marker}'` }) } }] },
      { role: 'tool', tool_call_id: 'a', content: `out ${marker}` },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'again' },
      { role: 'assistant', reasoning_content: 'second thought', content: 'done' },
    ],
  };
  const file = jsonlFile(dir, 'm.jsonl', [row]);
  for (const name of ['qwen3.jinja', 'llama-3.1.jinja']) {
    const { docs, stats } = await runSource([file], { chatTemplates: join(TEMPLATES_DIR, name), bosToken: '<|begin_of_text|>' });
    const doc = docs[0]!;
    for (const [a, b] of doc.special_spans!) assert.ok(tok.specialId(doc.text.slice(a, b)) !== undefined, `${name}: ${doc.text.slice(a, b)} is a Qwen3 token`);
    // the marker strings inside the messages are never special spans
    for (let at = doc.text.indexOf(marker); at >= 0; at = doc.text.indexOf(marker, at + 1)) {
      assert.ok(!doc.special_spans!.some(([a, b]) => a < at + marker.length && b > at), `${name}: marker at ${at} is text`);
    }
    if (name === 'qwen3.jinja') {
      // Qwen3 keeps reasoning only after the last user message: the first thought is dropped, counted
      assert.deepEqual(doc.meta.dropped_content, { reasoning: 1 });
      assert.deepEqual(stats.dropped_content, { 'qwen3.jinja': { reasoning: 1 } });
      assert.ok(doc.text.includes('<think>\nsecond thought\n</think>'));
      assert.ok(doc.special_spans!.some(([a, b]) => doc.text.slice(a, b) === '<think>'));
    } else {
      // Llama's markers are not Qwen3 tokens: text; and it has no place for reasoning
      assert.ok(!doc.special_spans!.length, `${name}: no special spans`);
      assert.equal((doc.meta.dropped_content as Record<string, number>).reasoning, 2);
    }
    assert.equal(doc.meta.boundaries && (doc.meta.boundaries as number[]).length >= 5, true);
    assert.equal(doc.meta.header_end, (doc.meta.boundaries as number[])[0]);
  }
});

test('chat templates: options from the CLI and from a config go through one resolver; bad sources are named', async () => {
  assert.throws(() => resolveTrajectoriesOptions({ chatTemplates: '/nonexistent/x.jinja' }), /no such file or folder/);
  assert.throws(() => resolveTrajectoriesOptions({ chatTemplates: join(TEMPLATES_DIR, 'qwen3.jinja'), templateKwargs: '{bad' }), /templateKwargs is not JSON/);
  assert.throws(() => resolveTrajectoriesOptions({ chatTemplates: join(TEMPLATES_DIR, 'qwen3.jinja'), jsonArguments: 'nope.jinja' }), /jsonArguments names no chat template: nope.jinja/);
  const folder = resolveTrajectoriesOptions({ chatTemplates: [`${TEMPLATES_DIR}=2`] });
  assert.equal(folder.chatTemplates.length, 13, 'a folder of .jinja files is one template each');
  assert.ok(folder.chatTemplates.every((c) => c.weight === 2));
  assert.deepEqual(folder.templates, { 'qwen3-coder': 0, hermes: 0, 'text-action': 0 }, 'with chat templates only, no built-in is drawn');
  const mixed = resolveTrajectoriesOptions({ chatTemplates: { [join(TEMPLATES_DIR, 'qwen3.jinja')]: 3 }, templates: 'hermes=1' });
  assert.equal(mixed.chatTemplates[0]!.weight, 3);
  assert.equal(mixed.templates.hermes, 1);
  // the same keys in a run config, through the same resolver
  const cfgDir = tmp();
  const cfg = (options: string) => {
    const p = join(cfgDir, `c${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(p, `out: ${join(cfgDir, 'out')}\nsources:\n  - type: trajectories\n    inputs: [${CHAT_FIXTURES}]\n    options: ${options}\npack: {seqLen: 2048}\n`);
    return p;
  };
  assert.doesNotThrow(() => loadRunConfig(cfg(`{chatTemplates: {${join(TEMPLATES_DIR, 'qwen3.jinja')}: 2}, templateKwargs: {enable_thinking: false}, tokenizer: qwen3}`)));
  assert.throws(() => loadRunConfig(cfg(`{chatTemplates: [${join(TEMPLATES_DIR, 'qwen3.jinja')}], templateKwargs: [1]}`)), /sources\[0\]\.options: trajectories: templateKwargs must be a JSON object/);
  // a tokenizer_config.json with a named list: tool_use for trajectories with tools, bos/eos from it
  const dir = tmp();
  const model = join(dir, 'My-Model');
  await import('node:fs').then((fs) => fs.mkdirSync(model));
  writeFileSync(
    join(model, 'tokenizer_config.json'),
    JSON.stringify({ bos_token: { content: '<B>' }, eos_token: '<E>', chat_template: [{ name: 'default', template: '{{ bos_token }}plain' }, { name: 'tool_use', template: "{{ bos_token }}tools:{{ tools | length }}{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}{{ eos_token }}{{ strftime_now('%d %b %Y') }}{% if add_generation_prompt %}[assistant]{% endif %}" }] }),
  );
  const src = jsonlFile(dir, 'r.jsonl', [{ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'yo', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }] }]);
  const out = join(dir, 'out.jsonl');
  const r = midpack(['trajectories', src, '--out', out, '--chat-template', model, '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(readFileSync(out, 'utf8').trim()) as Doc;
  assert.equal(doc.meta.template, 'My-Model');
  assert.equal(doc.text, `<B>tools:1[user]hi[assistant]yo<E>${strftime('%d %b %Y')}`);
  assert.equal(strftime('%d %b %Y'), '26 Jul 2024');
  // the assistant message is trained on, the user's is not
  assert.deepEqual(doc.loss_mask_spans, [[0, doc.text.indexOf('yo')], [doc.text.indexOf('yo') + 2, doc.text.length]].filter(([a, b]) => b! > a!));
});

test('built-in templates: qwen3-coder renders byte for byte what the published Qwen3-Coder template renders, hermes what Qwen2.5 renders; both still parse back', async () => {
  const keys = await keysBySource();
  for (const [builtin, published] of [
    ['qwen3-coder', 'qwen3-coder-v2.jinja'],
    ['hermes', 'qwen2.5.jinja'],
  ] as const) {
    const { docs, stats } = await runSource(DEFAULT_ROW_INPUTS, { templates: `${builtin}=1`, requireTermination: false, requireValidCalls: false });
    assert.ok(docs.length >= 36, `${builtin}: ${docs.length} documents; rejected: ${JSON.stringify(stats.rejected_examples)}`);
    for (const doc of docs) {
      const w = expected[published]![keys.get(doc.source)!]! as { sha256: string; bytes: number; text?: string };
      if (w.text !== undefined) assert.equal(doc.text, w.text, `${builtin} ${doc.source}`);
      assert.equal(createHash('sha256').update(doc.text).digest('hex'), w.sha256, `${builtin} ${doc.source}: the bytes of ${published}`);
    }
  }
});
