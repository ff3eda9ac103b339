import { createHash } from 'node:crypto';
import { CALL_REASONS, CallMatcher, REASONS, TrajectoryError, type CallProblem, type Message, type Scaffold, type ToolCall, type Trajectory } from '../model.js';
import { asObject, assistantMessage, contentText, fail, finish, role, toolMessage, type TrajectoryFacts } from '../readers.js';
import { parseArguments } from '../model.js';

/**
 * Terminus-2 (Terminal-Bench's agent, run by Harbor) writes two files per trial.
 *
 * `trajectory.json`, Harbor's ATIF ({schema_version: "ATIF-v1.x", agent, steps}): `user` and
 * `system` steps are user messages (a system step that only hands off to sub-trajectories is
 * skipped); each `agent` step is an assistant message (`message`, `reasoning_content`,
 * `tool_calls` {tool_call_id, function_name, arguments}) followed by its observation's results:
 * tool messages answering the calls (by `source_call_id`, else in order: Terminus answers a batch
 * of keystrokes with one terminal screen, the first call's result); a result beyond the calls, or
 * after a step without any, is a user message. A reply the scaffold could not parse is the step whose observation is
 * Terminus' "Previous response had parsing errors" (`unparsed_text_action`). Completion is the
 * scaffold's double confirmation: the last two agent steps call `mark_task_complete`; a run cut
 * off by a timeout just stops, which is no termination. Sub-trajectories of a context
 * summarisation (agent `…-summarization-…`) are subagent conversations, with no termination.
 * The scaffold is read from `agent.name` (ATIF is Harbor's format for every agent it runs).
 *
 * `traces.json`, the per-episode chat export: a list of {conversations [{role, content}],
 * episode, trace_source, result, ...}. Each episode holds the whole chat up to its reply, so an
 * episode whose conversation is a prefix of a later one of the same trace is that later one's
 * text (`episode_prefix`, found by hashing each prefix once); the others are read, the assistant text as the model wrote it (its
 * JSON reply, a leading `<think>` block as the reasoning). `result` is the trial's reward:
 * resolved when it is at least 1.
 */
const PARSE_ERROR = /^Previous response had parsing errors/;

export const isAtif = (v: Record<string, unknown>): boolean => typeof v.schema_version === 'string' && v.schema_version.startsWith('ATIF') && Array.isArray(v.steps);

export const isTerminusTraces = (v: unknown): boolean =>
  Array.isArray(v) && v.length > 0 && v.every((r) => r !== null && typeof r === 'object' && Array.isArray((r as { conversations?: unknown }).conversations) && 'episode' in r);

function scaffoldOf(agentName: unknown): Scaffold | undefined {
  const name = typeof agentName === 'string' ? agentName.toLowerCase() : '';
  if (name.startsWith('terminus')) return 'terminus';
  if (name.includes('mini-swe-agent')) return 'mini-swe-agent';
  if (name.includes('swe-agent')) return 'swe-agent';
  if (name.includes('openhands')) return 'openhands';
  if (name.includes('claude-code')) return 'claude-code';
  if (name.includes('qwen')) return 'qwen-code';
  return undefined;
}

export function readAtif(value: unknown, source: string): Trajectory {
  const traj = asObject(value, source);
  const agent = (traj.agent ?? {}) as Record<string, unknown>;
  const steps = traj.steps as unknown[];
  const matcher = new CallMatcher(source);
  const messages: Message[] = [];
  const problems: CallProblem[] = [];
  const completes: boolean[] = [];
  steps.forEach((raw, i) => {
    const at = `${source}: steps[${i}]`;
    const s = asObject(raw, at);
    const results = observationResults(s, at);
    if (s.source !== 'agent') {
      const content = contentText(s.message, at);
      if (s.source === 'system' && results.refs) return;
      return void messages.push({ role: s.source === 'system' || s.source === 'user' ? 'user' : role(s.source, at), content });
    }
    const calls = atifCalls(s.tool_calls, at);
    const reasoning = typeof s.reasoning_content === 'string' ? s.reasoning_content : undefined;
    messages.push(assistantMessage(contentText(s.message, at), calls, reasoning));
    matcher.addCalls(calls.map((c) => c.id));
    completes.push(calls.some((c) => c.name === 'mark_task_complete'));
    if (calls.length === 0 && results.texts.some((r) => PARSE_ERROR.test(r.content))) {
      problems.push({ reason: CALL_REASONS.unparsedTextAction, message: `${at}: Terminus could not parse the reply (${results.texts[0]!.content.split('\n')[1] ?? ''})` });
    }
    results.texts.forEach((r, k) => {
      // A result beyond the calls (or after a step without any) is what the model was shown next: a user message.
      if (r.callId === undefined && k >= calls.length) return void messages.push({ role: 'user', content: r.content });
      const id = r.callId ?? calls[k]!.id;
      matcher.result(id, `steps[${i}] result ${k}`);
      messages.push(toolMessage(r.content, id));
    });
  });
  const summary = typeof agent.name === 'string' && agent.name.includes('summarization');
  const facts: TrajectoryFacts = { scaffold: scaffoldOf(agent.name), problems, subagent: summary || undefined };
  if (!summary && facts.scaffold === 'terminus') {
    const done = completes.length >= 2 && completes[completes.length - 1]! && completes[completes.length - 2]!;
    facts.termination = done ? { status: 'task_complete', completed: true } : { status: 'no confirmed task completion', completed: false };
  }
  return finish(source, 'atif', messages, [], false, facts);
}

function atifCalls(v: unknown, at: string): ToolCall[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(REASONS.badRecord, `${at}: "tool_calls" is not a list`);
  return v.map((raw, k) => {
    const c = asObject(raw, `${at}: tool_calls[${k}]`);
    if (typeof c.function_name !== 'string' || c.function_name === '') fail(REASONS.badRecord, `${at}: tool_calls[${k}] has no function_name`);
    const call: ToolCall = { name: c.function_name, arguments: parseArguments(c.arguments ?? {}, `${at}: tool_calls[${k}]`) };
    if (typeof c.tool_call_id === 'string' && c.tool_call_id !== '') call.id = c.tool_call_id;
    return call;
  });
}

function observationResults(s: Record<string, unknown>, at: string): { texts: { content: string; callId?: string }[]; refs: boolean } {
  const results = (s.observation as { results?: unknown } | undefined)?.results;
  if (!Array.isArray(results)) return { texts: [], refs: false };
  const texts: { content: string; callId?: string }[] = [];
  let refs = false;
  results.forEach((raw, k) => {
    const r = asObject(raw, `${at}: observation.results[${k}]`);
    if (r.subagent_trajectory_ref !== undefined) refs = true;
    if (r.content === undefined || r.content === null) return;
    texts.push({ content: contentText(r.content, `${at}: observation.results[${k}]`), ...(typeof r.source_call_id === 'string' ? { callId: r.source_call_id } : {}) });
  });
  return { texts, refs };
}

/** The traces worth reading: each episode that is not a prefix of another episode of its trace; the prefixes are counted by the caller. */
export function readTerminusTraces(value: unknown[], source: string): { trajectories: (Trajectory | TrajectoryError)[]; prefixes: string[] } {
  const rows = value.map((r, i) => ({ row: r as Record<string, unknown>, at: `${source}[${i}]` }));
  const chains = rows.map(({ row }) => prefixHashes(row));
  // Every proper prefix of every episode, by trace and length: one pass over the messages, not episode against episode.
  const longer = new Map<string, number>();
  chains.forEach((hashes, i) => hashes.slice(0, -1).forEach((h) => longer.has(h) || longer.set(h, i)));
  const prefixes: string[] = [];
  const trajectories: (Trajectory | TrajectoryError)[] = [];
  rows.forEach(({ row, at }, i) => {
    const of = longer.get(chains[i]!.at(-1)!);
    if (of !== undefined) return void prefixes.push(`${at}: episode ${String(row.episode)} is a prefix of ${rows[of]!.at} (episode ${String(rows[of]!.row.episode)})`);
    try {
      trajectories.push(readTrace(row, at));
    } catch (e) {
      if (!(e instanceof TrajectoryError)) throw e;
      trajectories.push(e);
    }
  });
  return { trajectories, prefixes };
}

/** A hash of each prefix of an episode's conversation (keyed by its trace), so equal prefixes of one trace hash alike. */
function prefixHashes(row: Record<string, unknown>): string[] {
  let h = createHash('sha256').update(`${String(row.trial_name ?? '')}\u0000${String(row.run_id ?? '')}\u0000${String(row.trace_source ?? 'main')}`).digest('hex');
  const out = [h];
  for (const m of row.conversations as unknown[]) {
    h = createHash('sha256').update(h).update(JSON.stringify(m)).digest('hex');
    out.push(h);
  }
  return out;
}

function readTrace(row: Record<string, unknown>, at: string): Trajectory {
  const problems: CallProblem[] = [];
  const conv = row.conversations as unknown[];
  const messages = conv.map((raw, i): Message => {
    const m = asObject(raw, `${at}: conversations[${i}]`);
    const r = role(m.role, `${at}: conversations[${i}]`);
    const content = contentText(m.content, `${at}: conversations[${i}]`);
    const next = conv[i + 1] as { content?: unknown } | undefined;
    if (r === 'assistant' && typeof next?.content === 'string' && PARSE_ERROR.test(next.content)) {
      problems.push({ reason: CALL_REASONS.unparsedTextAction, message: `${at}: conversations[${i}]: Terminus could not parse the reply` });
    }
    if (r !== 'assistant') return { role: r, content };
    const think = /^<think>([\s\S]*?)<\/think>\n?/.exec(content);
    return think ? assistantMessage(content.slice(think[0].length), [], think[1]) : assistantMessage(content, []);
  });
  const facts: TrajectoryFacts = { scaffold: scaffoldOf(row.agent), problems, subagent: typeof row.trace_source === 'string' && row.trace_source !== 'main' ? true : undefined };
  const reward = typeof row.result === 'string' || typeof row.result === 'number' ? Number(row.result) : NaN;
  if (!Number.isNaN(reward)) facts.resolved = reward >= 1;
  if (typeof row.task === 'string') facts.instanceId = row.task;
  return finish(at, 'terminus-traces', messages, [], false, facts);
}
