import { CALL_REASONS, CallMatcher, type CallProblem, type Message, type Termination, type ToolCall, type ToolDef, type Trajectory } from '../model.js';
import { asObject, assistantMessage, contentText, finish, keepNull, openaiCalls, readTools, toolMessage, type TrajectoryFacts } from '../readers.js';

/**
 * OpenHands' event history, in three containers: an evaluation output line ({instance_id,
 * instruction, history, error, ...}), a resolver output line ({issue, history, success, ...}), or a
 * bare event list (a saved or replayed trajectory).
 *
 * Events (`source`, `action` or `observation`, `args`/`content`, `tool_call_metadata`):
 *   - `system` action: the system message (`args.content`) and the declared tools (`args.tools`);
 *   - `message` from the user: a user message; from the agent without a model response: assistant text;
 *   - an agent action with `tool_call_metadata.model_response`: the assistant message exactly as the
 *     model returned it (content, `reasoning_content`, `tool_calls` with their arguments), once per
 *     response (several actions of one response share it); without the response, a call of
 *     `function_name` whose arguments are the action's `args` minus OpenHands' bookkeeping, and
 *     `args.thought` as the text;
 *   - an observation answering a call (`tool_call_metadata.tool_call_id`): that call's result;
 *   - an `error` observation answering no action: OpenHands refused a call the history does not
 *     keep (a `rejected_call`), kept as the user message the model was shown;
 *   - recall actions and observations, state changes, condensations: not model turns, skipped.
 *
 * The resolver's older, flatter records ({action, command|code, thought} / {observation, content})
 * are read as calls of `execute_bash` (run), `execute_ipython_cell` (run_ipython) or the action's
 * name, each answered by the observation after it.
 *
 * Termination: the line's `error` (e.g. the iteration limit), else a `finish` action (or an
 * `agent_state_changed` to `finished`); no finish is not a termination.
 */
const BOOKKEEPING = new Set([
  'thought', 'action', 'keep_prompt', 'is_confirmed', 'confirmation_state', 'action_risk', 'security_risk', 'kernel_init_code',
  'blocking', 'is_static', 'hidden', 'cwd', 'is_input', 'impl_source', 'translated_ipython_code', 'images_urls', 'image_urls',
  'file_urls', 'wait_for_response', 'include_extra', 'timeout', 'command_id',
]);
const SKIPPED_ACTIONS = new Set(['recall', 'change_agent_state', 'condensation', 'condensation_request', 'null']);
const SKIPPED_OBSERVATIONS = new Set(['recall', 'agent_state_changed', 'agent_condensation', 'null']);
const LEGACY_TOOLS: Record<string, [string, string]> = { run: ['execute_bash', 'command'], run_ipython: ['execute_ipython_cell', 'code'] };

const isEvent = (e: unknown): e is Record<string, unknown> => e !== null && typeof e === 'object' && ('action' in e || 'observation' in e);

/** An event list, or a record whose `history` is one (not SWE-agent's, whose entries have a `role`). */
export function isOpenHands(v: unknown): boolean {
  const history = Array.isArray(v) ? v : (v as { history?: unknown } | null)?.history;
  return Array.isArray(history) && history.length > 0 && history.every(isEvent);
}

export function readOpenHands(value: unknown, source: string): Trajectory {
  const record = Array.isArray(value) ? {} : asObject(value, source);
  const history = (Array.isArray(value) ? value : record.history) as Record<string, unknown>[];
  const facts: TrajectoryFacts = { scaffold: 'openhands' };
  if (typeof record.instance_id === 'string') facts.instanceId = record.instance_id;
  if (typeof record.success === 'boolean') facts.resolved = record.success;
  const legacy = !history.some((e) => 'source' in e);
  const read = legacy ? legacyEvents(history, source) : events(history, source);
  facts.termination = termination(history, record.error);
  return finish(source, legacy ? 'openhands-legacy' : 'openhands', read.messages, read.tools, false, { ...facts, problems: read.problems });
}

interface Read {
  messages: Message[];
  tools: ToolDef[];
  problems: CallProblem[];
}

function events(history: Record<string, unknown>[], source: string): Read {
  const out: Read = { messages: [], tools: [], problems: [] };
  const matcher = new CallMatcher(source);
  const responses = new Set<string>();
  history.forEach((e, i) => {
    const at = `${source}: history[${i}]`;
    const args = (e.args ?? {}) as Record<string, unknown>;
    const meta = (e.tool_call_metadata ?? {}) as Record<string, unknown>;
    if (e.action === 'system') {
      out.messages.push({ role: 'system', content: contentText(args.content ?? e.message, at) });
      out.tools = readTools(args.tools, at);
    } else if (typeof e.action === 'string') {
      const m = actionMessage(e, args, meta, responses, at);
      if (!m) return;
      if (m.role === 'assistant') matcher.addCalls((m.calls ?? []).map((c) => c.id));
      out.messages.push(m);
    } else if (typeof meta.tool_call_id === 'string') {
      matcher.result(meta.tool_call_id, `history[${i}]`);
      out.messages.push(toolMessage(contentText(e.content, at), meta.tool_call_id));
    } else if (e.observation === 'error' && e.cause === undefined) {
      out.problems.push({ reason: CALL_REASONS.rejectedCall, message: `${at}: OpenHands refused a call the history does not keep: ${contentText(e.content, at).slice(0, 200)}` });
      out.messages.push({ role: 'user', content: contentText(e.content, at) });
    } else if (!SKIPPED_OBSERVATIONS.has(String(e.observation)) && e.cause === undefined && contentText(e.content, at) !== '') {
      out.messages.push({ role: 'user', content: contentText(e.content, at) });
    }
  });
  return out;
}

/** The message an action stands for, or undefined when it is not a model turn (or its response was already read). */
function actionMessage(e: Record<string, unknown>, args: Record<string, unknown>, meta: Record<string, unknown>, responses: Set<string>, at: string): Message | undefined {
  if (SKIPPED_ACTIONS.has(String(e.action))) return undefined;
  if (e.source === 'user') return e.action === 'message' ? { role: 'user', content: contentText(args.content ?? e.message, at) } : undefined;
  const response = meta.model_response as { id?: unknown; choices?: { message?: Record<string, unknown> }[] } | undefined;
  const said = response?.choices?.[0]?.message;
  if (said) {
    const id = typeof response!.id === 'string' ? response!.id : undefined;
    if (id !== undefined && responses.has(id)) return undefined;
    if (id !== undefined) responses.add(id);
    const calls = said.tool_calls ? openaiCalls(said.tool_calls, `${at}: model_response`).calls : [];
    const reasoning = typeof said.reasoning_content === 'string' ? said.reasoning_content : undefined;
    return keepNull(assistantMessage(contentText(said.content, at), calls, reasoning), said.content);
  }
  if (typeof meta.function_name === 'string') {
    const call: ToolCall = { name: meta.function_name, arguments: ownArguments(args) };
    if (typeof meta.tool_call_id === 'string') call.id = meta.tool_call_id;
    return assistantMessage(contentText(args.thought, at), [call]);
  }
  if (e.action === 'message') return assistantMessage(contentText(args.content ?? e.message, at), []);
  if (e.action === 'finish') return assistantMessage(contentText(args.final_thought ?? args.thought ?? e.message, at), []);
  return undefined;
}

function legacyEvents(history: Record<string, unknown>[], source: string): Read {
  const out: Read = { messages: [], tools: [], problems: [] };
  const matcher = new CallMatcher(source);
  history.forEach((e, i) => {
    const at = `${source}: history[${i}]`;
    if (typeof e.observation === 'string') {
      if (SKIPPED_OBSERVATIONS.has(e.observation)) return;
      matcher.result(undefined, `history[${i}]`);
      return void out.messages.push({ role: 'tool', content: contentText(e.content, at) });
    }
    if (SKIPPED_ACTIONS.has(String(e.action))) return;
    if (e.action === 'message') return void out.messages.push({ role: out.messages.length === 0 ? 'user' : 'assistant', content: contentText(e.content, at) });
    if (e.action === 'finish') return void out.messages.push(assistantMessage(contentText(e.thought, at), []));
    const [name, key] = LEGACY_TOOLS[String(e.action)] ?? [String(e.action), undefined];
    const args = key ? { [key]: e[key] } : ownArguments(e);
    matcher.addCalls([undefined]);
    out.messages.push(assistantMessage(contentText(e.thought, at), [{ name, arguments: args }]));
  });
  return out;
}

/** An action's own fields as call arguments: OpenHands' bookkeeping and empty values left out. */
function ownArguments(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([k, v]) => !BOOKKEEPING.has(k) && v !== null && v !== undefined));
}

function termination(history: Record<string, unknown>[], error: unknown): Termination {
  if (typeof error === 'string' && error !== '') return { status: error, completed: false };
  const finished = history.some((e) => e.action === 'finish' || (e.observation === 'agent_state_changed' && (e.extras as { agent_state?: unknown } | undefined)?.agent_state === 'finished'));
  return finished ? { status: 'finish', completed: true } : { status: 'no finish action', completed: false };
}
