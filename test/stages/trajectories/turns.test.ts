import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadRunConfig } from '../../../src/job/run-config.js';
import { join } from 'node:path';
import type { Doc } from '../../../src/doc/document.js';
import { defaultContext } from '../../../src/core/stage.js';
import { loadTokenizer } from '../../../src/tokenize/index.js';
import { resolveTrajectoriesOptions } from '../../../src/stages/trajectories/index.js';
import { readTrajectories } from '../../../src/stages/trajectories/stage.js';
import { toOpenaiRow } from '../../../src/stages/trajectories/export.js';
import { readRecord } from '../../../src/stages/trajectories/detect.js';
import { CHAT_FIXTURES, DEFAULT_ROW_INPUTS } from '../../../scripts/build-chat-template-rows.js';
import { sharedDir } from '../../helpers/paths.js';
import { slow } from '../../helpers/tiers.js';
import { TEMPLATES_DIR, assertTrainedTurns, jsonlFile, keysBySource, renderShared, runSource, tmp } from './helpers.js';

/**
 * `--turns faithful` against transformers: test/fixtures/trajectories/chat-templates/faithful.json
 * holds, for every shared template, every row (the shared scaffold samples and the stress rows)
 * and every assistant message i, apply_chat_template(messages[:i], add_generation_prompt=True)
 * followed by the turn's own text, derived by scripts/render_chat_templates.py --turns faithful from transformers'
 * renders alone.
 */
type Turn = { message: number; start: number; bytes: number; sha256: string; text?: string };
const faithful = JSON.parse(readFileSync(join(CHAT_FIXTURES, 'faithful.json'), 'utf8')) as Record<string, Record<string, { turns: Turn[] } | { error: string }>>;
const TEMPLATE_FILES = Object.keys(faithful).sort();

const renderAll = (file: string, turns: string, inputs = DEFAULT_ROW_INPUTS) => renderShared(file, { turns }, inputs);

/** Each document's held turns in order: the text up to the turn's end, and where the turn starts. */
function heldTurns(docs: Doc[]): { text: string; start: number }[] {
  return docs.flatMap((d) => (d.meta.turn_spans as [number, number][]).map(([s, e]) => ({ text: d.text.slice(0, e), start: s })));
}

const bySource = (docs: Doc[]) => {
  const m = new Map<string, Doc[]>();
  for (const d of docs) m.set(d.source, [...(m.get(d.source) ?? []), d]);
  return m;
};

test("turns faithful: every turn of every shared template and row is transformers' generation prompt of the messages before it followed by the turn", slow, async () => {
  const keys = await keysBySource();
  let compared = 0;
  for (const file of TEMPLATE_FILES) {
    const { docs, balanced, ledger } = await renderAll(file, 'faithful');
    assert.equal(balanced, true, file);
    const want = faithful[file]!;
    const groups = bySource(docs);
    for (const [source, group] of groups) {
      const w = want[keys.get(source)!]!;
      assert.ok(!('error' in w), `${file}: ${source} written, but transformers raised: ${JSON.stringify(w)}`);
      const got = heldTurns(group);
      assert.equal(got.length, w.turns.length, `${file} ${source}: turns`);
      got.forEach((g, k) => {
        const e = w.turns[k]!;
        if (e.text !== undefined) assert.equal(g.text, e.text, `${file} ${source}: turn ${k}`);
        const bytes = Buffer.from(g.text, 'utf8');
        assert.equal(bytes.length, e.bytes, `${file} ${source}: turn ${k} length`);
        assert.equal(createHash('sha256').update(bytes).digest('hex'), e.sha256, `${file} ${source}: turn ${k} bytes`);
        assert.equal([...g.text.slice(0, g.start)].length, e.start, `${file} ${source}: turn ${k} starts after its generation prompt`);
        compared++;
      });
    }
    const raised = Object.values(want).filter((w) => 'error' in w).length;
    assert.equal(groups.size + raised, Object.keys(want).length, `${file}: ${JSON.stringify(ledger.dropped)}`);
  }
  assert.ok(compared > 13 * 300, `turns compared: ${compared}`);
});

test('turns faithful: decoding the packed tokens, every assistant turn is trained exactly once per trajectory, and nothing else is', slow, async () => {
  const tok = await loadTokenizer();
  const stress = join(CHAT_FIXTURES, 'stress.jsonl');
  const swe = join(sharedDir, 'data', 'trajectories', 'swe-agent', 'function_calling_simple.traj');
  let checked = 0;
  for (const file of ['qwen3.jinja', 'gpt-oss.jinja', 'glm-4.6.jinja', 'kimi-k2-thinking.jinja', 'minimax-m2.jinja', 'hermes-3.jinja', 'qwen2.5.jinja']) {
    const { docs } = await renderAll(file, 'faithful', [stress, swe]);
    for (const [source, group] of bySource(docs)) {
      const held = group.flatMap((d) => d.meta.held_turns as number[]);
      const assistants = (JSON.parse(JSON.stringify(group[0]!.meta.messages)) as number) && held.length;
      assert.equal(new Set(held).size, held.length, `${file} ${source}: each turn in one sample only`);
      assert.deepEqual(held, [...held].sort((a, b) => a - b), `${file} ${source}: turns in order`);
      assert.ok(assistants > 0);
      for (const d of group) {
        assertTrainedTurns(tok, d, `${file} ${source}`);
        checked += d.text.length;
      }
    }
  }
  assert.ok(checked > 100_000, `characters checked: ${checked}`);
});

test('turns: a template stable on a row gives the whole bytes; auto writes whole there and faithful samples elsewhere', slow, async () => {
  const stress = join(CHAT_FIXTURES, 'stress.jsonl');
  const swe = join(sharedDir, 'data', 'trajectories', 'swe-agent');
  for (const file of ['qwen2.5.jinja', 'qwen3-coder.jinja', 'llama-4.jinja', 'qwen3.jinja']) {
    const whole = bySource((await renderAll(file, 'whole', [swe, stress])).docs);
    const f = await renderAll(file, 'faithful', [swe, stress]);
    const auto = bySource((await renderAll(file, 'auto', [swe, stress])).docs);
    let stable = 0;
    for (const [source, group] of bySource(f.docs)) {
      const w = whole.get(source)![0]!;
      if (group.length === 1 && group[0]!.text === w.text) {
        stable++;
        assert.deepEqual(group[0]!.loss_mask_spans, w.loss_mask_spans, `${file} ${source}: same loss`);
        assert.deepEqual(group[0]!.special_spans, w.special_spans, `${file} ${source}: same special spans`);
        assert.deepEqual(group[0]!.meta.boundaries, w.meta.boundaries, `${file} ${source}: same boundaries`);
        assert.deepEqual(auto.get(source), [w], `${file} ${source}: auto writes the whole document`);
      } else assert.deepEqual(auto.get(source), group, `${file} ${source}: auto writes the faithful samples`);
    }
    const cost = f.stats.turn_cost[file];
    if (file === 'qwen3.jinja') {
      // Qwen3 drops earlier reasoning and writes an empty think block only on the last turn: never stable here
      assert.equal(stable, 0);
      assert.ok(cost.cost_chars > 2 && cost.reasoning_kept > 0, JSON.stringify(cost));
    } else {
      assert.equal(stable, bySource(f.docs).size, `${file}: stable on every row`);
      assert.equal(cost.cost_chars, 1);
    }
  }
});

test('turns faithful: meta records the turns held and the prefix shared with the previous sample', async () => {
  const stress = join(CHAT_FIXTURES, 'stress.jsonl');
  const { docs, stats } = await renderAll('qwen3.jinja', 'faithful', [stress]);
  const group = bySource(docs).get(`${stress}:2`)!;
  // two user turns with reasoning: the tool loop of each nests, the second user message starts a sample
  assert.deepEqual(group.map((d) => d.meta.held_turns), [[2, 4], [6, 8]]);
  assert.deepEqual(group.map((d) => d.meta.sample), [0, 1]);
  assert.deepEqual(group.map((d) => d.meta.group), [group[0]!.id, group[0]!.id], 'the samples declare their trajectory as their group, for pack');
  const shared = group[1]!.meta.shared_prefix as number;
  assert.ok(shared > 0 && group[0]!.text.slice(0, shared) === group[1]!.text.slice(0, shared) && group[0]!.text[shared] !== group[1]!.text[shared]);
  assert.ok(group[0]!.text.includes('<think>\nTwo files are listed.\n</think>'), 'the reasoning whole drops is kept in its turn');
  assert.equal(new Set(docs.map((d) => d.id)).size, docs.length, 'ids are distinct');
  assert.equal(stats.turns, 'faithful');
  assert.ok(stats.turn_cost['qwen3.jinja'].reasoning_kept >= 2);
});

test('turns: options through the one resolver, from the CLI and a run config; a bad value is named', () => {
  assert.equal(resolveTrajectoriesOptions({}).turns, 'whole');
  assert.equal(resolveTrajectoriesOptions({ turns: 'auto' }).turns, 'auto');
  assert.throws(() => resolveTrajectoriesOptions({ turns: 'each' }), /turns must be one of whole, faithful, auto/);
  assert.throws(() => resolveTrajectoriesOptions({ turns: 'faithful', lossOn: 'all' }), /cannot be used with lossOn all/);
  assert.throws(() => resolveTrajectoriesOptions({ templateDate: '2024-02-30' }), /templateDate must be a date/);
  assert.equal(resolveTrajectoriesOptions({ templateDate: '2025-01-02' }).templateDate.toISOString(), '2025-01-02T00:00:00.000Z');
  // the same keys in a run config's trajectories source, through the same resolver
  const dir = tmp();
  const cfg = (options: string) => {
    const p = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(p, `out: ${join(dir, 'out')}\nsources:\n  - type: trajectories\n    inputs: [${CHAT_FIXTURES}]\n    options: ${options}\npack: {seqLen: 2048}\n`);
    return p;
  };
  assert.doesNotThrow(() => loadRunConfig(cfg(`{chatTemplates: [${join(TEMPLATES_DIR, 'qwen3.jinja')}], turns: auto, templateDate: '2025-01-02'}`)));
  assert.throws(() => loadRunConfig(cfg('{turns: each}')), /sources\[0\]\.options: trajectories: turns must be one of whole, faithful, auto/);
});

test('template date: strftime_now answers for --template-date, recorded in the manifest; a null content is printed None as transformers does, and counted', async () => {
  const dir = tmp();
  const row = {
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'bash', arguments: '{"command": "ls"}' } }] },
      { role: 'tool', tool_call_id: 'a', content: 'x' },
      { role: 'assistant', content: 'done' },
    ],
  };
  const file = jsonlFile(dir, 'r.jsonl', [row]);
  const plain = jsonlFile(dir, 'p.jsonl', [{ messages: [row.messages[0], row.messages[3]] }]);
  const llama = await runSource([plain], { chatTemplates: join(TEMPLATES_DIR, 'gpt-oss.jinja'), templateDate: '2025-01-02' });
  assert.ok(llama.docs[0]!.text.includes('Current date: 2025-01-02'), llama.docs[0]!.text.slice(0, 200));
  assert.equal(llama.stats.template_date, '2025-01-02');
  const glm = await runSource([file], { chatTemplates: join(TEMPLATES_DIR, 'glm-4.6.jinja') });
  assert.ok(glm.docs[0]!.text.includes('None'), 'GLM-4.6 writes the null content as Python does');
  assert.deepEqual(glm.stats.null_content_printed, { 'glm-4.6.jinja': 1 });
});

test('--format openai rows keep reasoning_content, the tool schemas and null contents for every scaffold', async () => {
  const ctx = defaultContext({ log: () => {} });
  const scaffolds = new Set<string>();
  let reasoning = 0;
  for await (const t of readTrajectories([join(sharedDir, 'data', 'trajectories')], resolveTrajectoriesOptions({}), ctx, () => {})) {
    const row = JSON.parse(JSON.stringify(toOpenaiRow(t)));
    const back = readRecord(row, t.source);
    scaffolds.add(t.scaffold!);
    assert.deepEqual(back.messages.map((m) => m.reasoning), t.messages.map((m) => m.reasoning), `${t.source}: reasoning`);
    assert.deepEqual(back.messages.map((m) => m.nullContent), t.messages.map((m) => m.nullContent), `${t.source}: null contents`);
    assert.deepEqual(back.tools, t.tools, `${t.source}: tool schemas`);
    assert.equal(row.meta.tools_from, t.toolsFrom);
    reasoning += t.messages.filter((m) => m.reasoning !== undefined).length;
  }
  assert.equal(scaffolds.size, 6);
  assert.ok(reasoning > 10, `reasoning strings: ${reasoning}`);
});
