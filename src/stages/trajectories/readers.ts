import { basename } from 'node:path';
import { checkCalls } from './filters.js';
import {
  CallMatcher,
  REASONS,
  TrajectoryError,
  checkNotEmpty,
  completeTools,
  parseArguments,
  withSystem,
  type Message,
  SCAFFOLDS,
  type Role,
  type Scaffold,
  type ToolCall,
  type ToolDef,
  type Trajectory,
} from './model.js';

/**
 * One reader per input format, each turning a parsed record into a Trajectory or throwing a
 * TrajectoryError with the reason it is unusable:
 *
 *   swe-agent  a `.traj` file: `history` of {role, content, thought, action, tool_calls, tool_call_ids}
 *   openai     a JSONL row: `messages` of {role, content, tool_calls, tool_call_id}, optional `tools`
 *   sharegpt   a JSONL row: `conversations` of {from, value}, optional `tools`
 *
 * The scaffolds' own files (mini-SWE-agent, OpenHands, Claude Code, Qwen Code, Terminus) are read
 * in scaffolds/, with the helpers exported here; detect.ts picks the reader by content.
 */
/** One line of a session file (a JSONL whose lines together are one trajectory: scaffolds/session.ts). */
export interface SessionRecord {
  lineNo: number;
  value: unknown;
}

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];

export function fail(reason: string, message: string): never {
  throw new TrajectoryError(reason, message);
}

export function asObject(v: unknown, where: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(REASONS.badRecord, `${where}: not a JSON object`);
  return v as Record<string, unknown>;
}

/** Message content: a string, null, or OpenAI's list of text parts. */
export function contentText(v: unknown, where: string): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((p) => p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string')) {
    return v.map((p) => (p as { text: string }).text).join('');
  }
  return fail(REASONS.badRecord, `${where}: "content" is not text`);
}

export function role(v: unknown, where: string): Role {
  if (typeof v === 'string' && (ROLES as readonly string[]).includes(v)) return v as Role;
  return fail(REASONS.unknownRole, `${where}: unknown role ${JSON.stringify(v)}`);
}

/** OpenAI `tool_calls`: [{id, function: {name, arguments}}]. */
export function openaiCalls(v: unknown, where: string): { calls: ToolCall[]; ids: (string | undefined)[] } {
  if (!Array.isArray(v)) fail(REASONS.badRecord, `${where}: "tool_calls" is not a list`);
  const calls: ToolCall[] = [];
  const ids: (string | undefined)[] = [];
  v.forEach((c, k) => {
    const at = `${where} call ${k}`;
    const fn = asObject(asObject(c, at).function, `${at}: "function"`);
    if (typeof fn.name !== 'string' || fn.name === '') fail(REASONS.badRecord, `${at}: "function.name" is missing`);
    const id = (c as { id?: unknown }).id;
    const call: ToolCall = { name: fn.name, arguments: parseArguments(fn.arguments ?? {}, at) };
    if (typeof id === 'string' && id !== '') call.id = id;
    calls.push(call);
    ids.push(call.id);
  });
  return { calls, ids };
}

/** `tools`: OpenAI [{type: 'function', function: {...}}] or bare function objects, or a JSON string of either. */
export function readTools(v: unknown, where: string): ToolDef[] {
  if (v === undefined || v === null || v === '') return [];
  let list = v;
  if (typeof v === 'string') {
    try {
      list = JSON.parse(v);
    } catch (e) {
      fail(REASONS.badRecord, `${where}: "tools" is not valid JSON (${(e as Error).message})`);
    }
  }
  if (!Array.isArray(list)) fail(REASONS.badRecord, `${where}: "tools" is not a list`);
  return list.map((t, k) => {
    const o = asObject(t, `${where}: tools[${k}]`);
    const fn = asObject(o.function ?? o, `${where}: tools[${k}]`);
    if (typeof fn.name !== 'string' || fn.name === '') fail(REASONS.badRecord, `${where}: tools[${k}] has no name`);
    const params = fn.parameters === undefined ? { type: 'object', properties: {} } : asObject(fn.parameters, `${where}: tools[${k}].parameters`);
    const def: ToolDef = { name: fn.name, parameters: { ...params, type: 'object', properties: (params.properties as ToolDef['parameters']['properties']) ?? {} } };
    if (typeof fn.description === 'string') def.description = fn.description;
    return def;
  });
}

/** What a reader knows besides the messages: the scaffold, the task id, the termination, problems met. */
export type TrajectoryFacts = Partial<Pick<Trajectory, 'scaffold' | 'instanceId' | 'termination' | 'resolved' | 'subagent' | 'declaredNames' | 'problems'>>;

/**
 * The trajectory a reader returns: the system message added when missing, refused when empty, tools
 * completed, and its calls checked against the tools the input declares (filters.ts checkCalls).
 */
export function finish(source: string, format: Trajectory['format'], messages: Message[], given: ToolDef[], callsFromText: boolean, facts: TrajectoryFacts = {}): Trajectory {
  const all = withSystem(messages);
  checkNotEmpty(all, source);
  const known = Object.fromEntries(Object.entries(facts).filter(([k, v]) => v !== undefined && k !== 'problems')) as TrajectoryFacts;
  const t: Trajectory = { source, format, messages: all, callsFromText, ...completeTools(given, all, callsFromText), ...known };
  const problems = [...(facts.problems ?? []), ...checkCalls(all, given, facts.declaredNames, source)];
  if (problems.length) t.problems = problems;
  if (all !== messages) t.noSystem = true;
  return t;
}

/** A tool message answering a call: its id kept when the input gives one. */
export function toolMessage(content: string, toolCallId: string | undefined): Message {
  return toolCallId === undefined ? { role: 'tool', content } : { role: 'tool', content, toolCallId };
}

/** An assistant message with only the parts it has (no empty `calls`, no empty `reasoning`). */
export function assistantMessage(content: string, calls: ToolCall[], reasoning?: string): Message {
  const m: Message = { role: 'assistant', content };
  if (calls.length) m.calls = calls;
  if (reasoning) m.reasoning = reasoning;
  return m;
}

/** The message with `nullContent` when the input's content was null (OpenAI's tool-call messages). */
export function keepNull(m: Message, raw: unknown): Message {
  if (raw === null) m.nullContent = true;
  return m;
}

/** An OpenAI chat-format row. */
export function readOpenaiRow(value: unknown, source: string): Trajectory {
  const row = asObject(value, source);
  if (!Array.isArray(row.messages)) fail(REASONS.badRecord, `${source}: "messages" is not a list`);
  const matcher = new CallMatcher(source);
  const messages = row.messages.map((raw, i): Message => {
    const at = `message ${i}`;
    const m = asObject(raw, `${source}: ${at}`);
    const r = role(m.role, `${source}: ${at}`);
    const content = contentText(m.content, `${source}: ${at}`);
    if (r === 'tool') {
      const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : undefined;
      matcher.result(id, at);
      return toolMessage(content, id);
    }
    if (r !== 'assistant') return { role: r, content };
    const reasoning = typeof m.reasoning_content === 'string' ? m.reasoning_content : undefined;
    if (m.tool_calls === undefined || m.tool_calls === null) return keepNull(assistantMessage(content, [], reasoning), m.content);
    const { calls, ids } = openaiCalls(m.tool_calls, `${source}: ${at}`);
    matcher.addCalls(ids);
    return keepNull(assistantMessage(content, calls, reasoning), m.content);
  });
  return finish(source, 'openai', messages, readTools(row.tools, source), false, rowFacts(row));
}

/** An exported row's own facts (`midpack trajectories --format openai` writes them under `meta`), and a SWE-bench-style `instance_id`. */
function rowFacts(row: Record<string, unknown>): TrajectoryFacts {
  const meta = row.meta !== null && typeof row.meta === 'object' ? (row.meta as Record<string, unknown>) : {};
  const id = row.instance_id ?? meta.instance_id;
  const facts: TrajectoryFacts = typeof id === 'string' && id !== '' ? { instanceId: id } : {};
  if ((SCAFFOLDS as readonly unknown[]).includes(meta.scaffold)) facts.scaffold = meta.scaffold as Scaffold;
  return facts;
}

const SHAREGPT_ROLES: Record<string, Role | 'call'> = {
  system: 'system',
  human: 'user',
  user: 'user',
  gpt: 'assistant',
  assistant: 'assistant',
  function_call: 'call',
  observation: 'tool',
  tool: 'tool',
};

/** A ShareGPT row; `function_call` turns (LLaMA-Factory's layout) are calls of the assistant turn before them. */
export function readSharegptRow(value: unknown, source: string): Trajectory {
  const row = asObject(value, source);
  if (!Array.isArray(row.conversations)) fail(REASONS.badRecord, `${source}: "conversations" is not a list`);
  const matcher = new CallMatcher(source);
  const messages: Message[] = [];
  row.conversations.forEach((raw, i) => {
    const at = `turn ${i}`;
    const t = asObject(raw, `${source}: ${at}`);
    const r = typeof t.from === 'string' ? SHAREGPT_ROLES[t.from] : undefined;
    if (!r) fail(REASONS.unknownRole, `${source}: ${at}: unknown "from" ${JSON.stringify(t.from)}`);
    const value = contentText(t.value, `${source}: ${at}`);
    if (r === 'tool') matcher.result(undefined, at);
    if (r !== 'call') return void messages.push({ role: r, content: value });
    const calls = sharegptCalls(value, `${source}: ${at}`);
    matcher.addCalls(calls.map(() => undefined));
    const prev = messages[messages.length - 1];
    if (prev?.role === 'assistant' && !prev.calls) prev.calls = calls;
    else messages.push({ role: 'assistant', content: '', calls });
  });
  return finish(source, 'sharegpt', messages, readTools(row.tools, source), false);
}

/** A `function_call` value: one {name, arguments} object or a list of them, as JSON. */
function sharegptCalls(value: string, where: string): ToolCall[] {
  let v: unknown;
  try {
    v = JSON.parse(value);
  } catch (e) {
    fail(REASONS.badToolArguments, `${where}: function_call is not valid JSON (${(e as Error).message})`);
  }
  return (Array.isArray(v) ? v : [v]).map((c, k) => {
    const o = asObject(c, `${where} call ${k}`);
    if (typeof o.name !== 'string' || o.name === '') fail(REASONS.badRecord, `${where} call ${k}: "name" is missing`);
    return { name: o.name, arguments: parseArguments(o.arguments ?? {}, `${where} call ${k}`) };
  });
}

/**
 * A SWE-agent trajectory (`history`). With function calling, an assistant message has
 * `tool_calls` and results come back as `tool` messages with `tool_call_ids`. A text-action
 * agent writes its command in `action`: it is read as a call of the shell tool, and the
 * observation that follows it (a `user` message) as that call's result.
 */
export function readSweAgent(value: unknown, source: string): Trajectory {
  const traj = asObject(value, source);
  if (!Array.isArray(traj.history)) fail(REASONS.badRecord, `${source}: "history" is not a list`);
  const matcher = new CallMatcher(source);
  const messages: Message[] = [];
  let textCalls = 0;
  let structured = 0;
  let awaitingObservation = false;
  traj.history.forEach((raw, i) => {
    const at = `history[${i}]`;
    const m = asObject(raw, `${source}: ${at}`);
    const r = role(m.role, `${source}: ${at}`);
    if (r === 'tool' || (r === 'user' && awaitingObservation)) {
      const ids = Array.isArray(m.tool_call_ids) ? m.tool_call_ids.filter((x): x is string => typeof x === 'string') : [];
      if (ids.length) for (const id of ids) matcher.result(id, at);
      else matcher.result(undefined, at);
      awaitingObservation = false;
      return void messages.push(toolMessage(contentText(m.content, `${source}: ${at}`), ids.length === 1 ? ids[0] : undefined));
    }
    awaitingObservation = false;
    if (r !== 'assistant') return void messages.push({ role: r, content: contentText(m.content, `${source}: ${at}`) });
    const text = typeof m.thought === 'string' ? m.thought : contentText(m.content, `${source}: ${at}`);
    if (Array.isArray(m.tool_calls) && m.tool_calls.length) {
      const { calls, ids } = openaiCalls(m.tool_calls, `${source}: ${at}`);
      matcher.addCalls(ids);
      structured += calls.length;
      return void messages.push({ role: r, content: text, calls });
    }
    if (typeof m.action === 'string' && m.action.trim() !== '') {
      matcher.addCalls([undefined]);
      textCalls++;
      awaitingObservation = true;
      return void messages.push({ role: r, content: text, calls: [{ name: 'bash', arguments: { command: m.action } }] });
    }
    messages.push({ role: r, content: text });
  });
  if (textCalls && structured) fail(REASONS.badRecord, `${source}: mixes function calls and text actions`);
  return finish(source, 'swe-agent', messages, readTools(traj.tools, source), textCalls > 0, { scaffold: 'swe-agent', ...runFacts(traj, source, /\.traj$/) });
}

/**
 * A SWE-bench run's facts: `info.exit_status` (completed when `submitted`: SWE-agent and mini-SWE-agent
 * write `submitted`/`Submitted`; an auto-submission such as `submitted (exit_cost)` is not the agent's
 * own end), and the instance id (`instance_id`, else the file name, which both scaffolds name by it).
 */
export function runFacts(traj: Record<string, unknown>, source: string, fileSuffix: RegExp): TrajectoryFacts {
  const facts: TrajectoryFacts = {};
  const info = traj.info !== null && typeof traj.info === 'object' ? (traj.info as Record<string, unknown>) : {};
  if (typeof info.exit_status === 'string') facts.termination = { status: info.exit_status, completed: info.exit_status.toLowerCase() === 'submitted' };
  if (typeof traj.instance_id === 'string' && traj.instance_id !== '') facts.instanceId = traj.instance_id;
  else if (!/:\d+$/.test(source) && fileSuffix.test(source)) facts.instanceId = basename(source).replace(fileSuffix, '');
  return facts;
}
