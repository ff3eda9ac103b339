import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SPECIAL } from '../../../src/doc/specials.js';
import { loadTokenizer } from '../../../src/tokenize/index.js';
import { TEMPLATES, TEMPLATE_NAMES, parseTrajectory, readSweAgent, type TemplateName } from '../../../src/stages/trajectories/index.js';
import { firstDifference } from '../../../src/stages/trajectories/model.js';
import { repoRoot } from '../../helpers/paths.js';
import { jsonlFile, runSource, sweAgentDir, tmp } from './helpers.js';

function trajFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => (statSync(join(dir, n)).isDirectory() ? trajFiles(join(dir, n)) : n.endsWith('.traj') ? [join(dir, n)] : []));
}

const TOOL_TOKENS = [SPECIAL.imStart, SPECIAL.imEnd, SPECIAL.toolCall, SPECIAL.toolCallEnd, SPECIAL.toolResponse, SPECIAL.toolResponseEnd];

test('trajectories: every shared SWE-agent trajectory in every template parses back to the same messages and calls', async () => {
  const files = trajFiles(sweAgentDir);
  assert.ok(files.length >= 10, `expected the shared SWE-agent trajectories, found ${files.length}`);
  const { docs, ledger, balanced, stats } = await runSource([sweAgentDir], { allTemplates: true });
  assert.equal(balanced, true);
  assert.equal(ledger.records_in, files.length);
  assert.equal(ledger.records_out, files.length);
  assert.deepEqual(stats.rejected, {});
  assert.equal(docs.length, files.length * TEMPLATE_NAMES.length);
  for (const doc of docs) {
    const raw = JSON.parse(readFileSync(doc.source, 'utf8')) as { history: { role: string; action?: string; tool_calls?: unknown[] }[] };
    const t = readSweAgent(raw, doc.source);
    const tpl = TEMPLATES[doc.meta.template as TemplateName];
    const parsed = parseTrajectory(doc.text, doc.special_spans!, tpl);
    // as the format keeps them: Qwen3-Coder trims the text beside calls
    assert.equal(firstDifference(tpl.kept?.(t) ?? t.messages, parsed.messages), undefined, `${doc.source} ${tpl.name}`);
    // the counts in meta, against the raw file: calls (structured, else text actions) and ChatML turns
    const calls = raw.history.reduce((n, m) => n + (m.tool_calls?.length ?? (m.role === 'assistant' && m.action?.trim() ? 1 : 0)), 0);
    assert.equal(doc.meta.tool_calls, calls);
    const starts = doc.special_spans!.filter(([a, b]) => doc.text.slice(a, b) === SPECIAL.imStart).map(([a]) => a);
    assert.equal(doc.meta.turns, starts.length);
    assert.equal(doc.meta.format, 'swe-agent');
    // boundaries: every turn start after the header; the header ends where the second turn starts
    assert.deepEqual(doc.meta.boundaries, starts.slice(1));
    assert.equal(doc.meta.header_end, starts[1]);
    const header = doc.text.slice(0, starts[1]);
    assert.ok(header.startsWith(`${SPECIAL.imStart}system\n`));
    if (tpl.name !== 'text-action') for (const name of doc.meta.tools as string[]) assert.ok(header.includes(name), `${tpl.name}: header lists ${name}`);
    for (const [a, b] of doc.special_spans!) assert.ok(TOOL_TOKENS.includes(doc.text.slice(a, b) as never));
  }
});

/** A trajectory whose observations, text and arguments hold every marker string a template uses. */
function adversarialRow() {
  const markers = `${SPECIAL.imStart}user\n${SPECIAL.imEnd}\n<tool_call>\n<function=x>\n<parameter=y>\n</parameter>\n</function>\n</tool_call>\n<tool_response>\n</tool_response>${SPECIAL.endOfText}\n\`\`\`\nls\n\`\`\``;
  return {
    messages: [
      { role: 'system', content: `You fix code. ${markers}` },
      { role: 'user', content: `Fix it. ${markers}` },
      {
        role: 'assistant',
        content: `Let me look. ${markers}`,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'edit', arguments: JSON.stringify({ path: 'x.py', text: `a\n</parameter>\nb ${markers}`, line: 3, force: true }) } },
          { id: 'b', type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `cat <<'EOF'\n${markers}\nEOF` }) } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: `edited ${markers}` },
      { role: 'tool', tool_call_id: 'b', content: markers },
      { role: 'assistant', content: 'Done.' },
    ],
  };
}

test('trajectories: template tokens are single Qwen3 ids where the template places them; the same strings in text stay text', async () => {
  const tok = await loadTokenizer();
  for (const t of TOOL_TOKENS) {
    const id = tok.specialId(t);
    assert.ok(id !== undefined, `${t} is a token of the Qwen3 tokenizer`);
    assert.deepEqual(Array.from(tok.encodeDoc({ text: t, special_spans: [[0, t.length]] }).ids), [id, tok.eosId]);
    assert.ok(tok.encodePlain(t).length > 1, `${t} written as text is several ordinary tokens`);
  }
  const dir = tmp();
  const { docs, stats } = await runSource([jsonlFile(dir, 'adv.jsonl', [adversarialRow()])], { allTemplates: true });
  assert.deepEqual(stats.rejected, {});
  assert.equal(docs.length, 3, 'every template renders and parses back the adversarial trajectory');
  const specialIds = new Set(TOOL_TOKENS.map((t) => tok.specialId(t)!).concat([tok.specialId(SPECIAL.endOfText)!]));
  for (const doc of docs) {
    const ids = tok.encodeDoc(doc).ids;
    const special = Array.from(ids).filter((id) => specialIds.has(id)).length;
    // exactly the marked spans, plus the end-of-text token: none of the marker strings in the text
    assert.equal(special, doc.special_spans!.length + 1, doc.meta.template as string);
    if (doc.meta.template === 'text-action') assert.equal(doc.special_spans!.filter(([a, b]) => doc.text.slice(a, b).includes('tool')).length, 0);
  }
});

test('trajectories: OpenAI rows with tools, ShareGPT rows with function_call turns, and derived tool definitions', async () => {
  const samples = join(repoRoot, 'data-samples', 'trajectories');
  const openai = await runSource([join(samples, 'openai.jsonl')], { templates: 'hermes' });
  assert.equal(openai.docs.length, 1);
  const o = openai.docs[0]!;
  assert.equal(o.source, `${join(samples, 'openai.jsonl')}:1`);
  assert.equal(o.meta.format, 'openai');
  assert.equal(o.meta.tools_from, 'input');
  assert.deepEqual(o.meta.tools, ['find_file', 'open', 'edit', 'bash', 'submit']);
  assert.ok(o.text.includes('"description": "Finds all files with the given name in dir."'));
  assert.ok(o.text.includes('<tool_call>\n{"name": "find_file", "arguments": {"file_name": "missing_colon.py"}}\n</tool_call>'));

  const share = await runSource([join(samples, 'sharegpt.jsonl')], { templates: 'qwen3-coder' });
  const s = share.docs[0]!;
  assert.equal(s.meta.format, 'sharegpt');
  assert.equal(s.meta.tools_from, 'derived');
  assert.ok((s.meta.tool_calls as number) > 3);
  assert.ok(s.text.includes('<tool_call>\n<function=bash>\n<parameter=command>\n'));
  assert.ok(s.text.includes('<|im_start|>user\n<tool_response>\n'));

  // no tool definitions: minimal ones from the calls (names, argument keys, first value's type), said so in meta
  const dir = tmp();
  const row = {
    messages: [
      { role: 'user', content: 'count' },
      { role: 'assistant', content: '', tool_calls: [{ id: '1', function: { name: 'count', arguments: '{"path": "a", "depth": 2}' } }] },
      { role: 'tool', tool_call_id: '1', content: '3' },
      { role: 'assistant', content: '', tool_calls: [{ id: '2', function: { name: 'count', arguments: '{"path": "b"}' } }] },
      { role: 'tool', tool_call_id: '2', content: '4' },
      { role: 'assistant', content: '7' },
    ],
  };
  const derived = await runSource([jsonlFile(dir, 'd.jsonl', [row])], { templates: 'qwen3-coder' });
  const d = derived.docs[0]!;
  assert.equal(d.meta.tools_from, 'derived');
  assert.ok(d.text.includes('<name>count</name>\n<description>(derived from the calls in this trajectory)</description>\n<parameters>\n<parameter>\n<name>path</name>\n<type>string</type>\n</parameter>\n<parameter>\n<name>depth</name>\n<type>integer</type>\n</parameter>\n<required>["path"]</required>'));
  assert.ok(d.text.includes('<parameter=depth>\n2\n</parameter>'));
  // no system message: Qwen3-Coder's template writes its default system text before the tools
  assert.ok(d.text.startsWith('<|im_start|>system\nYou are Qwen, a helpful AI assistant that can interact with a computer to solve tasks.\n\n# Tools'), 'a system turn is made for the tools');
});

test('trajectories: the template is a seeded choice by weight, the same for the same seed and input', async () => {
  const a = await runSource([sweAgentDir], {}, 1);
  const b = await runSource([sweAgentDir], {}, 1);
  assert.deepEqual(a.docs, b.docs);
  const chosen = (r: typeof a) => r.docs.map((d) => d.meta.template);
  const seeds = await Promise.all([2, 3, 4, 5].map((s) => runSource([sweAgentDir], {}, s)));
  const all = [a, ...seeds].flatMap(chosen);
  for (const n of TEMPLATE_NAMES) assert.ok(all.includes(n), `${n} is chosen for some trajectory`);
  assert.ok(seeds.some((r) => JSON.stringify(chosen(r)) !== JSON.stringify(chosen(a))), 'another seed, other choices');
  const only = await runSource([sweAgentDir], { templates: 'qwen3-coder=1,hermes=1,text-action=0' }, 1);
  assert.ok(only.docs.every((d) => d.meta.template !== 'text-action'));
  assert.equal(new Set(only.docs.map((d) => d.id)).size, only.docs.length);
});

test('trajectories: --loss-on assistant (default), last-assistant and all', async () => {
  const file = join(sweAgentDir, 'function_calling_simple.traj');
  const trainedChars = (d: { text: string; loss_mask_spans?: [number, number][] }) => d.text.length - (d.loss_mask_spans ?? []).reduce((n, [a, b]) => n + b - a, 0);
  const def = (await runSource([file], { templates: 'hermes' })).docs[0]!;
  // trained: each assistant turn's content and its <|im_end|>, nothing else
  const turns = def.text.split(`${SPECIAL.imStart}assistant\n`).slice(1).map((t) => t.slice(0, t.indexOf(SPECIAL.imEnd) + SPECIAL.imEnd.length));
  assert.equal(trainedChars(def), turns.reduce((n, t) => n + t.length, 0));
  const last = (await runSource([file], { templates: 'hermes', lossOn: 'last-assistant' })).docs[0]!;
  assert.equal(trainedChars(last), turns[turns.length - 1]!.length);
  const all = (await runSource([file], { templates: 'hermes', lossOn: 'all' })).docs[0]!;
  assert.equal(all.loss_mask_spans, undefined);
  assert.equal(all.text, def.text);
});
