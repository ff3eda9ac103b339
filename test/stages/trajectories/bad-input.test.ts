import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { resolveTrajectoriesOptions } from '../../../src/stages/trajectories/index.js';
import { midpack } from '../../helpers/run-cli.js';
import { jsonlFile, readJsonlDocs, runSource, sweAgentDir, tmp } from './helpers.js';
import { slow } from '../../helpers/tiers.js';

const ok = {
  messages: [
    { role: 'user', content: 'list files' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'c1', function: { name: 'bash', arguments: '{"command": "ls"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'a.py' },
    { role: 'assistant', content: 'a.py' },
  ],
};
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

function variant(edit: (row: typeof ok) => unknown): unknown {
  const row = clone(ok);
  return edit(row) ?? row;
}

/** One bad record per reason, each beside good ones: the reason is counted, the good ones kept, the ledger balances. */
const CASES: [reason: string, row: unknown, message: RegExp][] = [
  ['malformed_json', '{"messages": [', /bad\.jsonl:2: /],
  ['bad_tool_arguments', variant((r) => void (r.messages[1]!.tool_calls![0]!.function.arguments = '{"command": "ls"')), /arguments are not valid JSON/],
  ['bad_tool_arguments', variant((r) => void (r.messages[1]!.tool_calls![0]!.function.arguments = '["ls"]')), /arguments are not a JSON object/],
  ['unknown_role', variant((r) => void (r.messages[0]!.role = 'critic')), /message 0: unknown role "critic"/],
  ['unknown_role', { conversations: [{ from: 'narrator', value: 'x' }] }, /turn 0: unknown "from" "narrator"/],
  ['unmatched_tool_result', variant((r) => void (r.messages[2]!.tool_call_id = 'nope')), /message 2: tool result for call "nope" has no matching call/],
  ['unmatched_tool_result', { conversations: [{ from: 'human', value: 'x' }, { from: 'observation', value: 'y' }, { from: 'gpt', value: 'z' }] }, /turn 1: tool result has no matching call/],
  ['empty_trajectory', { messages: [] }, /has no messages/],
  ['empty_trajectory', { messages: [{ role: 'system', content: 'x' }, { role: 'user', content: 'y' }] }, /has no assistant message/],
  ['bad_record', { text: 'not a trajectory' }, /not a trajectory/],
  ['bad_record', variant((r) => void ((r.messages[0] as { content: unknown }).content = 42)), /"content" is not text/],
  ['line_too_long', { messages: [{ role: 'user', content: 'x'.repeat(5000) }, { role: 'assistant', content: 'y' }] }, /over the limit/],
];

test('trajectories: each bad input is counted by its reason, with a message naming file and record; good rows are kept', async () => {
  const dir = tmp();
  for (const [reason, row, message] of CASES) {
    const file = jsonlFile(dir, 'bad.jsonl', [ok, row, ok]);
    const { docs, ledger, balanced } = await runSource([file], { templates: 'hermes', maxTrajectoryBytes: 4000 });
    assert.equal(balanced, true, reason);
    assert.deepEqual(ledger.dropped, { [reason]: 1 }, `${reason}: ${JSON.stringify(ledger.examples)}`);
    assert.match(ledger.examples[reason]![0]!, message);
    assert.match(ledger.examples[reason]![0]!, /bad\.jsonl:2/);
    assert.deepEqual(docs.map((d) => d.source), [`${file}:1`, `${file}:3`]);
  }
});

test('trajectories: a .traj that is malformed, over the size limit, or not a trajectory is counted; the others are kept', async () => {
  const dir = tmp();
  const good = join(dir, 'good.traj');
  writeFileSync(good, readFileSync(join(sweAgentDir, 'function_calling_simple.traj')));
  writeFileSync(join(dir, 'broken.traj'), '{"history": [{"role": "user", "content": "x"}');
  writeFileSync(join(dir, 'huge.traj'), JSON.stringify({ history: [{ role: 'user', content: 'x'.repeat(20000) }, { role: 'assistant', content: 'y' }] }));
  writeFileSync(join(dir, 'other.traj'), JSON.stringify({ trajectory: [] }));
  writeFileSync(join(dir, 'mixed.traj'), JSON.stringify({ history: [{ role: 'user', content: 'x' }, { role: 'assistant', content: '', action: 'ls' }, { role: 'user', content: 'a' }, { role: 'assistant', content: '', tool_calls: [{ id: 'x', function: { name: 'ls', arguments: '{}' } }] }] }));
  writeFileSync(join(dir, 'latin1.traj'), Buffer.concat([Buffer.from('{"history": [{"role": "user", "content": "caf'), Buffer.from([0xe9]), Buffer.from('"}]}')]));
  const { docs, ledger, balanced } = await runSource([dir], { maxTrajectoryBytes: 15000 });
  assert.equal(balanced, true);
  assert.deepEqual(ledger.dropped, { bad_record: 2, invalid_utf8: 1, malformed_json: 1, too_large: 1 });
  assert.match(ledger.examples.too_large![0]!, /huge\.traj: \d+ bytes, over the limit of 15000/);
  assert.match(ledger.examples.malformed_json![0]!, /broken\.traj: /);
  assert.deepEqual(docs.map((d) => d.source), [good]);
});

test('trajectories: a sample that does not parse back is counted as roundtrip_mismatch and never written', async () => {
  const dir = tmp();
  // The tools declare `line` a string, the call passes a number: qwen3-coder writes 3, reads back "3".
  const row = variant((r) => {
    (r as Record<string, unknown>).tools = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' }, line: { type: 'string' } } } } }];
    r.messages[1]!.tool_calls![0]!.function.arguments = '{"command": "ls", "line": 3}';
  });
  const file = jsonlFile(dir, 'rt.jsonl', [row]);
  // By default the call is dropped before rendering: its argument contradicts the declared type.
  const filtered = await runSource([file], { templates: 'qwen3-coder' });
  assert.deepEqual(filtered.ledger.dropped, { argument_type_mismatch: 1 });
  assert.match(filtered.ledger.examples.argument_type_mismatch![0]!, /rt\.jsonl:1: message 2: call of "bash": argument "line" is integer, the schema says string/);
  const one = await runSource([file], { templates: 'qwen3-coder', requireValidCalls: false });
  assert.equal(one.docs.length, 0);
  assert.deepEqual(one.ledger.dropped, { roundtrip_mismatch: 1 });
  assert.match(one.ledger.examples.roundtrip_mismatch![0]!, /rt\.jsonl:1: qwen3-coder: the sample does not parse back: message 2 call 0 \(bash\): arguments differ/);
  // with every template, the others are kept and the failure is counted in stats and the ledger's produced
  const all = await runSource([file], { allTemplates: true, requireValidCalls: false });
  assert.deepEqual(all.docs.map((d) => d.meta.template), ['hermes', 'text-action']);
  assert.deepEqual(all.stats.rejected, { 'qwen3-coder': { roundtrip_mismatch: 1 } });
  assert.equal(all.ledger.produced.samples_failed_verification, 1);
  assert.equal(all.balanced, true);
});

test('trajectories: options are checked by one resolver, for the CLI and the run config alike', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ template: 'hermes' }, /unknown option "template"/],
    [{ templates: 'hermez=1' }, /"hermez" is not one of qwen3-coder, hermes, text-action/],
    [{ templates: 'hermes=-1' }, /weight of "hermes" must be a number >= 0/],
    [{ templates: 'hermes=0' }, /at least one positive weight/],
    [{ lossOn: 'user' }, /lossOn must be one of assistant, all, last-assistant, got "user"/],
    [{ allTemplates: 'yes' }, /allTemplates must be true or false/],
    [{ maxTrajectoryBytes: 0 }, /maxTrajectoryBytes must be an integer >= 1, got 0/],
  ];
  for (const [raw, re] of cases) assert.throws(() => resolveTrajectoriesOptions(raw), re);
  assert.deepEqual(resolveTrajectoriesOptions({ templates: { hermes: 2 } }).templates, { 'qwen3-coder': 0, hermes: 2, 'text-action': 0 });
  const r = midpack(['trajectories', sweAgentDir, '--out', '-', '--loss-on', 'nope']);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^midpack: error: trajectories: lossOn must be one of/m);
});

test('trajectories CLI: writes OUT and OUT.manifest.json, the same bytes on a rerun; --out - writes to stdout', slow, () => {
  const dir = tmp();
  const out = join(dir, 't.jsonl');
  const run = () => midpack(['trajectories', sweAgentDir, '--out', out, '--all-templates', '--seed', '3', '--quiet']);
  assert.equal(run().status, 0);
  const first = readFileSync(out);
  assert.equal(run().status, 0);
  assert.deepEqual(readFileSync(out), first);
  const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'));
  assert.equal(manifest.stage, 'trajectories');
  assert.equal(manifest.ledger.records_in, manifest.ledger.records_out);
  const by = manifest.stats.trajectories.by_template;
  const docs = readJsonlDocs(out);
  for (const name of ['qwen3-coder', 'hermes', 'text-action']) {
    const mine = docs.filter((d) => d.meta.template === name);
    assert.equal(by[name].documents, mine.length);
    assert.equal(by[name].tool_calls, mine.reduce((n, d) => n + (d.meta.tool_calls as number), 0));
    assert.equal(by[name].chars, mine.reduce((n, d) => n + d.text.length, 0));
    assert.ok(by[name].masked_share > 0.5 && by[name].masked_share < 1);
  }
  const stdout = midpack(['trajectories', sweAgentDir, '--out', '-', '--all-templates', '--seed', '3', '--quiet']);
  assert.equal(stdout.stdout, first.toString('utf8'));
  assert.equal(existsSync(join(dir, '-.manifest.json')), false);
});
