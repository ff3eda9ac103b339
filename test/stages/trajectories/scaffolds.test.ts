import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultContext } from '../../../src/core/stage.js';
import { firstDifference, type ToolDef, type Trajectory } from '../../../src/stages/trajectories/model.js';
import { checkCalls, filteredTrajectories, resolveTrajectoriesOptions, toOpenaiRow } from '../../../src/stages/trajectories/index.js';
import { readOpenaiRow } from '../../../src/stages/trajectories/readers.js';
import { TrajectoryStats } from '../../../src/stages/trajectories/stats.js';
import { sharedDir } from '../../helpers/paths.js';
import { midpack } from '../../helpers/run-cli.js';
import { sweAgentDir, tmp } from './helpers.js';
import { slow } from '../../helpers/tiers.js';

/** The scaffolds' own files (provenance and format notes in each folder's SOURCE.md). */
const data = join(sharedDir, 'data', 'trajectories');
const dir = (scaffold: string) => join(data, scaffold);
const base = (source: string) => source.slice(source.lastIndexOf('/') + 1);

/** Every trajectory of the inputs, read with the given options: the kept ones, the ledger and the stats. */
async function read(inputs: string[], raw: Record<string, unknown> = {}) {
  const ctx = defaultContext({ seed: 0, log: () => {} });
  const stats = new TrajectoryStats();
  const kept: Trajectory[] = [];
  for await (const t of filteredTrajectories(inputs, resolveTrajectoriesOptions(raw), ctx, stats)) {
    stats.trajectory(t);
    kept.push(t);
  }
  return { kept, ledger: ctx.ledger.toJSON(), stats: stats.json as Record<string, any> };
}

const unfiltered = { requireTermination: false, requireValidCalls: false };

test('scaffolds: every shared sample is read, told by its content, with its scaffold and format', async () => {
  const { kept, ledger, stats } = await read([data], unfiltered);
  const byFile = kept.map((t) => `${base(t.source)} ${t.scaffold} ${t.format}`).sort();
  assert.deepEqual(byFile, [
    '4d5611e5_subagents_agent-a2898e3.jsonl claude-code claude-code',
    '4d5611e5_subagents_agent-acompact-e1f845.jsonl claude-code claude-code',
    'astropy__astropy-12907.traj.json mini-swe-agent mini-swe-agent',
    'contract-fixture_chat-records.jsonl qwen-code qwen-code-chat',
    'django__django-13660.traj.json mini-swe-agent mini-swe-agent',
    'function_calling_simple.traj swe-agent swe-agent',
    'harbor-rfc_openhands_trajectory.json openhands openhands',
    'hello-world-context-summarization.traces.json[2] terminus terminus-traces',
    'hello-world-context-summarization.traces.json[6] terminus terminus-traces',
    'hello-world-context-summarization.traces.json[7] terminus terminus-traces',
    'hello-world-context-summarization.traces.json[8] terminus terminus-traces',
    'hello-world-context-summarization.traces.json[9] terminus terminus-traces',
    'hello-world-context-summarization.trajectory.json terminus atif',
    'hello-world-context-summarization.trajectory.summarization-1-summary.json terminus atif',
    'hello-world-invalid-json.traces.json[3] terminus terminus-traces',
    'hello-world-invalid-json.trajectory.json terminus atif',
    'hello-world-timeout.trajectory.json terminus atif',
    'humanevalfix-python-0.traj swe-agent swe-agent',
    ...Array(8).fill('marshmallow-code__marshmallow-1867.traj swe-agent swe-agent'),
    'multi_swe_bench_example_output.jsonl:1 openhands openhands',
    'multi_swe_bench_example_output.jsonl:2 openhands openhands',
    'multi_swe_bench_example_output.jsonl:3 openhands openhands',
    'pr-12688_realmodel_base-1.stream.jsonl qwen-code stream-json',
    'pr-7573_stream-json_output.jsonl qwen-code stream-json',
    'resolver_mock_output.jsonl:1 openhands openhands-legacy',
    'resolver_mock_output.jsonl:2 openhands openhands-legacy',
    'runtime_replay_basic.json openhands openhands',
    'short.jsonl claude-code claude-code',
    'subagent.jsonl claude-code claude-code',
    'tool_heavy.jsonl claude-code claude-code',
    'v1-format_harbor-rfc_mini-swe-agent-trajectory.json mini-swe-agent mini-swe-agent',
    'voice-chat-session-written-by-daemon.jsonl qwen-code qwen-code-chat',
  ]);
  // A traces episode that is a prefix of a later one is counted, not read twice; the SWE-bench reports are not trajectories.
  assert.deepEqual(ledger.dropped, { episode_prefix: 8 });
  assert.equal(ledger.records_in, 47);
  assert.deepEqual(Object.keys(stats.skipped_files).map(base).sort(), ['astropy__astropy-12907.report.json', 'deepseek__deepseek-chat.deepseek_chat_test_1-100.json', 'django__django-13660.report.json']);
});

test('scaffolds: the default filters, counted by scaffold and by reason', async () => {
  const { kept, ledger, stats } = await read([data]);
  assert.deepEqual(ledger.dropped, { episode_prefix: 8, no_termination: 2, rejected_call: 1, unparsed_text_action: 2 });
  assert.equal(ledger.records_in, 47);
  assert.equal(kept.length, 47 - 13);
  assert.deepEqual(stats.by_scaffold, {
    'claude-code': { read: 5, kept: 5, dropped: {} },
    'mini-swe-agent': { read: 3, kept: 3, dropped: {} },
    openhands: { read: 7, kept: 5, dropped: { no_termination: 1, rejected_call: 1 } },
    'qwen-code': { read: 4, kept: 4, dropped: {} },
    'swe-agent': { read: 10, kept: 10, dropped: {} },
    terminus: { read: 10, kept: 7, dropped: { no_termination: 1, unparsed_text_action: 2 } },
  });
  const examples = ledger.examples;
  assert.match(examples.no_termination![0]!, /multi_swe_bench_example_output\.jsonl:3: the run did not end by itself \(RuntimeError: Agent reached maximum iteration/);
  assert.match(examples.no_termination![1]!, /hello-world-timeout\.trajectory\.json: the run did not end by itself \(no confirmed task completion\)/);
  assert.match(examples.rejected_call![0]!, /multi_swe_bench_example_output\.jsonl:2: history\[28\]: OpenHands refused a call .*Parameter 'command' is expected to be one of/);
  assert.match(examples.unparsed_text_action![0]!, /hello-world-invalid-json\.traces\.json\[3\]: conversations\[1\]: Terminus could not parse the reply/);
  assert.match(examples.unparsed_text_action![1]!, /hello-world-invalid-json\.trajectory\.json: steps\[1\]: Terminus could not parse the reply \(ERROR: Missing required fields: analysis, plan\)/);
});

test('scaffolds: the outcome join keeps resolved instances and drops the unresolved (SWE-bench reports of the same run)', async () => {
  const mini = dir('mini-swe-agent');
  const reports = [join(mini, 'astropy__astropy-12907.report.json'), join(mini, 'django__django-13660.report.json')];
  const joined = await read([mini], { outcomes: reports });
  assert.deepEqual(joined.kept.map((t) => [base(t.source), t.instanceId, t.resolved]), [['astropy__astropy-12907.traj.json', 'astropy__astropy-12907', true]]);
  assert.deepEqual(joined.ledger.dropped, { unresolved: 1, no_outcome: 1 });
  assert.match(joined.ledger.examples.unresolved![0]!, /django__django-13660\.traj\.json: instance django__django-13660 is not resolved/);
  assert.match(joined.ledger.examples.no_outcome![0]!, /v1-format_harbor-rfc_mini-swe-agent-trajectory\.json: no instance id to join an outcome by/);
  // The run summary gives the same outcomes; --require any keeps every outcome and records the joined one.
  const summaryFile = join(mini, 'deepseek__deepseek-chat.deepseek_chat_test_1-100.json');
  assert.deepEqual((await read([mini], { outcomes: summaryFile })).ledger.dropped, { unresolved: 1, no_outcome: 1 });
  const any = await read([mini], { outcomes: summaryFile, require: 'any' });
  assert.deepEqual(any.kept.map((t) => [base(t.source), t.resolved]), [
    ['astropy__astropy-12907.traj.json', true],
    ['django__django-13660.traj.json', false],
    ['v1-format_harbor-rfc_mini-swe-agent-trajectory.json', undefined],
  ]);
  assert.deepEqual(any.ledger.dropped, {});
  // The record's own label joins too (OpenHands resolver `success`, Terminus traces reward).
  const own = await read([dir('openhands'), dir('terminus')], { ...unfiltered, require: 'resolved' });
  assert.deepEqual(own.kept.map((t) => base(t.source)).sort(), [
    'hello-world-context-summarization.traces.json[2]',
    'hello-world-context-summarization.traces.json[6]',
    'hello-world-context-summarization.traces.json[7]',
    'hello-world-context-summarization.traces.json[8]',
    'hello-world-context-summarization.traces.json[9]',
    'hello-world-invalid-json.traces.json[3]',
    'resolver_mock_output.jsonl:1',
    'resolver_mock_output.jsonl:2',
  ]);
  assert.deepEqual(own.ledger.dropped, { episode_prefix: 8, no_outcome: 9 });
  assert.throws(() => resolveTrajectoriesOptions({ require: 'solved' }), /require must be one of resolved, any, got "solved"/);
  const bad = join(tmp(), 'bad.json');
  writeFileSync(bad, JSON.stringify({ x: { tests: 1 } }));
  await assert.rejects(read([mini], { outcomes: bad }), /--outcomes .*bad\.json: "x" has no boolean "resolved"/);
});

/** The one trajectory read from a file (filters off). */
async function one(file: string): Promise<Trajectory> {
  const { kept, ledger } = await read([file], unfiltered);
  assert.equal(kept.length, 1, JSON.stringify(ledger));
  return kept[0]!;
}

const summary = (t: Trajectory) => t.messages.map((m) => `${m.role}${m.calls ? `[${m.calls.map((c) => c.name).join(',')}]` : ''}${m.reasoning ? '+r' : ''}`);

test('scaffolds: Claude Code sessions keep thinking, calls and results in file order, parallel replies matched by id', async () => {
  const short = await one(join(dir('claude-code'), 'short.jsonl'));
  assert.deepEqual(summary(short), ['system', 'user', 'assistant[Bash,Glob]+r', 'tool', 'tool', 'user']);
  assert.equal(short.messages[1]!.content, 'mix phx.server doesnt seem to start');
  assert.deepEqual(short.messages[2]!.calls![0], { name: 'Bash', id: 'toolu_0116Hyi5v8ut7Ffb7d8qV1Sc', arguments: { command: 'mix phx.server 2>&1 | head -80', timeout: 30000 } });
  assert.deepEqual(short.messages.slice(3, 5).map((m) => m.toolCallId), short.messages[2]!.calls!.map((c) => c.id));
  assert.equal(short.messages[5]!.content, '[Request interrupted by user for tool use]');
  assert.equal(short.termination, undefined);
  // Four parallel calls of one reply; their results come back in completion order.
  const parent = await one(join(dir('claude-code'), 'subagent.jsonl'));
  const fanOut = parent.messages.findIndex((m) => m.calls?.length === 4);
  assert.deepEqual(parent.messages[fanOut]!.calls!.map((c) => c.name), ['WebFetch', 'WebSearch', 'WebSearch', 'WebSearch']);
  const ids = parent.messages[fanOut]!.calls!.map((c) => c.id!);
  const answered = parent.messages.slice(fanOut + 1, fanOut + 5).map((m) => m.toolCallId!);
  assert.deepEqual([...answered].sort(), [...ids].sort());
  assert.notDeepEqual(answered, ids);
  assert.equal(parent.subagent, undefined);
  const sub = await one(join(dir('claude-code'), '4d5611e5_subagents_agent-a2898e3.jsonl'));
  assert.equal(sub.subagent, true);
  assert.equal(sub.messages.reduce((n, m) => n + (m.calls?.length ?? 0), 0), 33);
});

test('scaffolds: Qwen Code chat records and stream-json', async () => {
  const chat = await one(join(dir('qwen-code'), 'contract-fixture_chat-records.jsonl'));
  assert.deepEqual(chat.messages, [
    { role: 'system', content: '' },
    { role: 'user', content: 'Inspect the contract' },
    { role: 'assistant', content: 'The contract is stable.', reasoning: 'Checking identity', calls: [{ name: 'read_file', id: 'read-1', arguments: { path: '/workspace/project/src/index.ts' } }] },
    { role: 'tool', content: 'hidden raw output', toolCallId: 'read-1' },
  ]);
  const stream = await one(join(dir('qwen-code'), 'pr-12688_realmodel_base-1.stream.jsonl'));
  assert.deepEqual(stream.termination, { status: 'success', completed: true });
  const calls = stream.messages.flatMap((m) => m.calls ?? []).map((c) => c.name);
  assert.deepEqual(calls, ['read_file', 'read_file', 'read_file', 'run_shell_command', 'edit', 'edit', 'run_shell_command', 'run_shell_command', 'run_shell_command', 'update_goal']);
  assert.ok(stream.declaredNames!.includes('run_shell_command'));
  assert.equal(stream.messages.at(-1)!.role, 'assistant');
  assert.match(stream.messages.at(-1)!.content, /^Done\. `node --test` reports \*\*9 tests, 9 pass, 0 fail\*\*/);
});

test('scaffolds: mini-SWE-agent v2 tool calls and v1 text actions, with the exit status and instance id', async () => {
  const v2 = await one(join(dir('mini-swe-agent'), 'astropy__astropy-12907.traj.json'));
  assert.deepEqual([v2.instanceId, v2.termination, v2.callsFromText], ['astropy__astropy-12907', { status: 'Submitted', completed: true }, false]);
  assert.ok(!v2.messages.some((m) => (m.role as string) === 'exit'));
  const last = v2.messages.filter((m) => m.calls).at(-1)!;
  assert.deepEqual(last.calls![0]!.arguments, { command: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt' });
  const v1 = await one(join(dir('mini-swe-agent'), 'v1-format_harbor-rfc_mini-swe-agent-trajectory.json'));
  assert.equal(v1.callsFromText, true);
  assert.deepEqual(v1.messages.flatMap((m) => m.calls ?? []).map((c) => c.arguments.command), ['echo "Hello, world!" > hello.txt', 'cat hello.txt', 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT']);
  assert.match(v1.messages[2]!.content, /^THOUGHT: To create a file called hello\.txt .*redirect its output to the file\. This is a simple and direct way to create a file with specific content\.$/s);
});

test('scaffolds: OpenHands calls exactly as the model returned them, the declared tools, and the older resolver records', async () => {
  const rfc = await one(join(dir('openhands'), 'harbor-rfc_openhands_trajectory.json'));
  assert.deepEqual(rfc.tools.map((t) => t.name), ['execute_bash', 'think', 'finish', 'execute_ipython_cell', 'task_tracker', 'str_replace_editor']);
  assert.equal(rfc.toolsFrom, 'input');
  assert.deepEqual(summary(rfc), ['system', 'user', 'assistant[execute_bash]', 'tool', 'assistant[finish]']);
  assert.deepEqual(rfc.messages[2]!.calls![0]!.arguments, {
    command: 'printf \'Hello, world!\\n\' > hello.txt && echo "Created $(pwd)/hello.txt" && echo "Size: $(wc -c < hello.txt) bytes" && printf \'Content: \' && cat hello.txt',
    timeout: 120,
    security_risk: 'MEDIUM',
  });
  assert.match(rfc.messages[0]!.content, /^You are OpenHands agent/);
  const resolver = (await read([join(dir('openhands'), 'resolver_mock_output.jsonl')], unfiltered)).kept[0]!;
  assert.deepEqual(summary(resolver).slice(0, 4), ['system', 'user', 'assistant[execute_bash]', 'tool']);
  assert.deepEqual([resolver.resolved, resolver.termination?.status], [true, 'finish']);
});

test('scaffolds: Terminus ATIF steps become calls and results; the double completion is the termination', async () => {
  const t = await one(join(dir('terminus'), 'hello-world-context-summarization.trajectory.json'));
  assert.deepEqual(t.termination, { status: 'task_complete', completed: true });
  const calls = t.messages.flatMap((m) => m.calls ?? []);
  assert.deepEqual(calls[0], { name: 'bash_command', id: 'call_0_1', arguments: { keystrokes: 'mkdir test_dir\n', duration: 0.1 } });
  assert.deepEqual(calls.slice(-2).map((c) => c.name), ['mark_task_complete', 'mark_task_complete']);
  // The hand-off step that only points at sub-trajectories is not a turn; the answers after it are.
  assert.ok(!t.messages.some((m) => m.content === 'Performed context summarization and handoff to continue task.'));
  assert.ok(t.messages.some((m) => m.role === 'user' && m.content.startsWith('Here are the answers the other agent provided.')));
  const invalid = await one(join(dir('terminus'), 'hello-world-invalid-json.trajectory.json'));
  assert.deepEqual(invalid.problems!.map((p) => p.reason), ['unparsed_text_action']);
  assert.match(invalid.messages[2]!.reasoning!, /^The task is straightforward/);
});

/** A shared sample edited in memory and written to a temporary folder under `name`. */
function edited(sample: string, name: string, edit: (text: string) => string): string {
  const p = join(tmp(), name);
  writeFileSync(p, edit(readFileSync(sample, 'utf8')));
  return p;
}

test('scaffolds: each malformed-call reason is counted, with a message naming the file and call; the other trajectories are kept', async () => {
  const rfc = join(dir('openhands'), 'harbor-rfc_openhands_trajectory.json');
  const stream = join(dir('qwen-code'), 'pr-12688_realmodel_base-1.stream.jsonl');
  const v1 = join(dir('mini-swe-agent'), 'v1-format_harbor-rfc_mini-swe-agent-trajectory.json');
  const cases: [reason: string, file: string, message: RegExp][] = [
    // Qwen Code's stream declares its tools by name in `init`: a call of one it does not list.
    ['undeclared_tool', edited(stream, 's.jsonl', (s) => s.replace('"update_goal",', '')), /s\.jsonl: message \d+: call of "update_goal": the tool is not declared/],
    // OpenHands declares execute_bash with `command` and `security_risk` required.
    ['missing_required_argument', edited(rfc, 'm.json', (s) => s.replace(',\\"security_risk\\":\\"MEDIUM\\"', '')), /m\.json: message 2: call of "execute_bash": required argument "security_risk" is missing/],
    ['argument_type_mismatch', edited(rfc, 't.json', (s) => s.replace('\\"timeout\\": 120', '\\"timeout\\": \\"120\\"')), /t\.json: message 2: call of "execute_bash": argument "timeout" is string, the schema says number/],
    // mini 1.x accepts exactly one ```bash block per reply.
    ['unparsed_text_action', edited(v1, 'u.json', (s) => s.replace('```bash\\ncat hello.txt\\n```', '```bash\\ncat hello.txt\\n```\\n\\n```bash\\nls\\n```')), /u\.json: messages\[4\]: the reply does not hold exactly one action block/],
  ];
  for (const [reason, file, message] of cases) {
    const { kept, ledger } = await read([file, sweAgentDir]);
    assert.deepEqual(ledger.dropped, { [reason]: 1 }, reason);
    assert.match(ledger.examples[reason]![0]!, message);
    assert.equal(kept.length, 10, reason);
    const off = await read([file], { requireValidCalls: false });
    assert.equal(off.kept.length, 1, `${reason} with --no-require-valid-calls`);
  }
});

test('scaffolds: the termination filter reads each format\'s own end; --no-require-termination keeps them', async () => {
  const astropy = join(dir('mini-swe-agent'), 'astropy__astropy-12907.traj.json');
  const limits = edited(astropy, 'astropy__astropy-12907.traj.json', (s) => s.replace('"exit_status": "Submitted"', '"exit_status": "LimitsExceeded"'));
  const stream = join(dir('qwen-code'), 'pr-7573_stream-json_output.jsonl');
  const cut = edited(stream, 'cut.jsonl', (s) => s.trimEnd().split('\n').slice(0, -1).join('\n') + '\n');
  const errored = edited(stream, 'err.jsonl', (s) => s.replace('"subtype":"success","uuid"', '"subtype":"error_max_turns","uuid"'));
  const { kept, ledger } = await read([limits, cut, errored]);
  assert.equal(kept.length, 0);
  assert.deepEqual(ledger.dropped, { no_termination: 3 });
  assert.deepEqual(ledger.examples.no_termination!.map((m) => m.replace(/^.*\//, '')), [
    'astropy__astropy-12907.traj.json: the run did not end by itself (LimitsExceeded)',
    'cut.jsonl: the run did not end by itself (no result event (the stream was cut off))',
    'err.jsonl: the run did not end by itself (error_max_turns)',
  ]);
  assert.equal((await read([limits, cut, errored], { requireTermination: false })).kept.length, 3);
});

test('scaffolds: a bad line of a session costs only itself; the session is read without it', async () => {
  const sample = join(dir('claude-code'), 'short.jsonl');
  const whole = await one(sample);
  const broken = edited(sample, 'short.jsonl', (s) => {
    const lines = s.split('\n');
    lines.splice(4, 0, '{"type": "user", "message": ');
    return lines.join('\n');
  });
  // A bad first line too: the file is still told as a session, not read as rows.
  const brokenFirst = edited(broken, 'first.jsonl', (s) => `{"type": "user", "mess\n${s}`);
  for (const [file, lines] of [[broken, ['short.jsonl:5']], [brokenFirst, ['first.jsonl:1', 'first.jsonl:6']]] as const) {
    const { kept, ledger } = await read([file], unfiltered);
    assert.deepEqual(ledger.dropped, { malformed_json: lines.length });
    assert.deepEqual(ledger.examples.malformed_json!.map((m) => /[\w.]+:\d+/.exec(m.slice(m.lastIndexOf('/')))![0]), lines);
    assert.equal(ledger.records_in, 1 + lines.length);
    assert.deepEqual(kept[0]!.messages, whole.messages);
  }
  // A session over the size limit is dropped whole, read no further.
  const small = await read([sample], { ...unfiltered, maxTrajectoryBytes: 4000 });
  assert.deepEqual(small.ledger.dropped, { too_large: 1 });
  assert.match(small.ledger.examples.too_large![0]!, /short\.jsonl: the session is over the limit of 4000 bytes at line \d+/);
});

test('scaffolds: every read trajectory exports as an OpenAI row that reads back to the same messages, reasoning and call ids', async () => {
  const { kept } = await read([data], unfiltered);
  assert.equal(kept.length, 39);
  for (const t of kept) {
    const row = JSON.parse(JSON.stringify(toOpenaiRow(t))) as Record<string, unknown>;
    const back = readOpenaiRow(row, t.source);
    assert.equal(firstDifference(t.messages, back.messages), undefined, t.source);
    assert.deepEqual(back.messages.map((m) => m.reasoning), t.messages.map((m) => m.reasoning), t.source);
    assert.deepEqual(back.tools, t.tools, t.source);
    assert.equal(back.instanceId, t.instanceId, t.source);
    assert.equal((row.meta as Record<string, unknown>).scaffold, t.scaffold, t.source);
    for (const [i, m] of t.messages.entries()) {
      for (const [k, c] of (m.calls ?? []).entries()) if (c.id) assert.equal(back.messages[i]!.calls![k]!.id, c.id);
    }
  }
});

test('midpack trajectories: --outcomes, --require and --format openai on the CLI; the same options in a run config', slow, () => {
  const out = join(tmp(), 'rows.jsonl');
  const mini = dir('mini-swe-agent');
  const r = midpack(['trajectories', mini, '--out', out, '--format', 'openai', '--outcomes', join(mini, 'astropy__astropy-12907.report.json'), '--outcomes', join(mini, 'django__django-13660.report.json')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /django__django-13660\.traj\.json: instance django__django-13660 is not resolved/);
  assert.match(r.stderr, /wrote 1 OpenAI rows/);
  const rows = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  assert.deepEqual(rows.map((x) => x.meta), [{ format: 'mini-swe-agent', tools_from: 'derived', scaffold: 'mini-swe-agent', instance_id: 'astropy__astropy-12907', termination: 'Submitted', resolved: true }]);
  assert.deepEqual(rows[0]!.tools.map((t: any) => t.function.name), ['bash']);
  const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'));
  assert.deepEqual(manifest.ledger.dropped, { unresolved: 1, no_outcome: 1 });
  assert.deepEqual(manifest.stats.trajectories.by_scaffold, { 'mini-swe-agent': { read: 3, kept: 1, dropped: { unresolved: 1, no_outcome: 1 } } });
  // In a run config: the same keys, through the same resolver.
  const work = tmp();
  const config = join(work, 'run.yaml');
  const summary = join(mini, 'deepseek__deepseek-chat.deepseek_chat_test_1-100.json');
  writeFileSync(config, `out: ${join(work, 'out')}\nsources:\n  - type: trajectories\n    inputs: [${mini}, ${dir('terminus')}]\n    options: {outcomes: [${summary}], require: any, requireValidCalls: false}\npack: {seqLen: 4096}\n`);
  const run = midpack(['run', config, '--no-progress', '--workers', '1']);
  assert.equal(run.status, 0, run.stderr);
  const stage = JSON.parse(readFileSync(join(work, 'out', 'manifest.json'), 'utf8')).stages.trajectories;
  assert.deepEqual(stage.ledger.dropped, { episode_prefix: 8, no_termination: 1 });
  assert.equal(stage.ledger.records_out, 12);
});

test('scaffolds: Claude Code lines that are not the model\'s (API error notices, sidechains in a parent file) are not turns', async () => {
  const sample = join(dir('claude-code'), 'short.jsonl');
  const whole = await one(sample);
  const subLines = readFileSync(join(dir('claude-code'), '4d5611e5_subagents_agent-a2898e3.jsonl'), 'utf8').split('\n').slice(0, 6);
  const mixed = edited(sample, 'short.jsonl', (s) => {
    const lines = s.trimEnd().split('\n');
    const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    const apiError = { ...last, type: 'assistant', isApiErrorMessage: true, message: { model: '<synthetic>', role: 'assistant', content: [{ type: 'text', text: 'API Error: 529 overloaded' }] } };
    return [...lines.slice(0, 3), ...subLines, ...lines.slice(3), JSON.stringify(apiError)].join('\n') + '\n';
  });
  const t = await one(mixed);
  assert.deepEqual(t.messages, whole.messages);
  assert.equal(t.subagent, undefined);
});

test('checkCalls: JSON types against the declared schema (an integer is a number, a list of types, no type is not judged)', () => {
  const tool: ToolDef = {
    name: 'edit',
    parameters: { type: 'object', properties: { path: { type: 'string' }, line: { type: 'number' }, n: { type: 'integer' }, tags: { type: ['array', 'null'] }, any: {} }, required: ['path'] },
  };
  const reasons = (args: Record<string, unknown>, name = 'edit') => checkCalls([{ role: 'assistant', content: '', calls: [{ name, arguments: args }] }], [tool], undefined, 'f').map((p) => p.reason);
  assert.deepEqual(reasons({ path: 'a', line: 3, n: 2, tags: null, any: [1] }), []);
  assert.deepEqual(reasons({ path: 'a', line: 2.5, tags: ['x'] }), []);
  assert.deepEqual(reasons({ path: 'a', n: 2.5 }), ['argument_type_mismatch']);
  assert.deepEqual(reasons({ path: 7, tags: 'x' }), ['argument_type_mismatch', 'argument_type_mismatch']);
  assert.deepEqual(reasons({ line: 1 }), ['missing_required_argument']);
  assert.deepEqual(reasons({}, 'bash'), ['undeclared_tool']);
  // Nothing declared: nothing to check against.
  assert.deepEqual(checkCalls([{ role: 'assistant', content: '', calls: [{ name: 'bash', arguments: {} }] }], [], undefined, 'f'), []);
});
