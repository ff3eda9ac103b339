import { CallMatcher, REASONS, parseArguments, type Message, type Scaffold, type ToolCall, type Trajectory } from '../model.js';
import { asObject, assistantMessage, fail, finish, toolMessage, type TrajectoryFacts } from '../readers.js';
import { BlockConversation } from './blocks.js';
import type { SessionRecord } from '../readers.js';

/**
 * Qwen Code's two files.
 *
 * Chat records (`~/.qwen/projects/<cwd>/chats/<session>.jsonl`): one `ChatRecord` per line whose
 * `message` is Gemini-style {role, parts}. `user` records hold the prompts (text parts);
 * `assistant` records text parts (a part with `thought: true` is reasoning) and `functionCall`
 * parts {id, name, args}; `tool_result` records `functionResponse` parts {id, name, response}
 * (the response's `output`, else its `error`, else the response as JSON: what the model is sent).
 * Consecutive assistant records are one message. `system` records (titles, telemetry, slash
 * commands, compression) are skipped. No tools are declared and no exit status is written.
 *
 * Headless `stream-json` (`qwen -p ... --output-format stream-json`; Claude Code's SDK stream has
 * the same layout): a `system`/`init` event naming the available tools, `assistant` and `user`
 * events carrying Anthropic content blocks (blocks.ts), and a final `result` event. The
 * termination is that event's `subtype` (`success`, not `is_error`); a stream without one was
 * cut off. Events of a subagent (`parent_tool_use_id` set) are its own conversation, whose answer
 * comes back as the parent's tool result: they are skipped. The prompt is not in the stream
 * (it is the `-p` argument), so such a trajectory starts at the first reply.
 */
export const isQwenChatRecord = (r: Record<string, unknown>): boolean => Array.isArray((r.message as { parts?: unknown } | undefined)?.parts);

export const isStreamEvent = (r: Record<string, unknown>): boolean =>
  typeof r.session_id === 'string' && (r.type === 'result' || (r.type === 'system' && r.subtype === 'init') || r.type === 'assistant' || r.type === 'user');

export function readQwenChat(records: readonly SessionRecord[], source: string): Trajectory {
  const messages: Message[] = [];
  const matcher = new CallMatcher(source);
  let open: { content: string; reasoning: string; calls: ToolCall[] } | undefined;
  const close = () => {
    if (!open) return;
    matcher.addCalls(open.calls.map((c) => c.id));
    messages.push(assistantMessage(open.content, open.calls, open.reasoning));
    open = undefined;
  };
  for (const { value, lineNo } of records) {
    const at = `${source}:${lineNo}`;
    const r = asObject(value, at);
    if (r.type !== 'user' && r.type !== 'assistant' && r.type !== 'tool_result') continue;
    const parts = asObject(r.message, `${at}: "message"`).parts;
    if (!Array.isArray(parts)) fail(REASONS.badRecord, `${at}: "message.parts" is not a list`);
    if (r.type === 'assistant') {
      open ??= { content: '', reasoning: '', calls: [] };
      for (const p of parts) assistantPart(asObject(p, at), open, at);
      continue;
    }
    close();
    // A user turn's text parts are one message; a functionResponse part (in a tool_result record, or a user one as Gemini writes it) is a result.
    let text: string | undefined;
    for (const raw of parts) {
      const p = asObject(raw, at);
      if (p.functionResponse === undefined) text = (text ?? '') + textPart(p);
      else messages.push(functionResponse(p, matcher, at));
    }
    if (text !== undefined) messages.push({ role: 'user', content: text });
  }
  close();
  return finish(source, 'qwen-code-chat', messages, [], false, { scaffold: 'qwen-code' });
}

function assistantPart(p: Record<string, unknown>, m: { content: string; reasoning: string; calls: ToolCall[] }, at: string): void {
  if (p.functionCall !== undefined) {
    const fc = asObject(p.functionCall, `${at}: functionCall`);
    if (typeof fc.name !== 'string' || fc.name === '') fail(REASONS.badRecord, `${at}: functionCall has no name`);
    const call: ToolCall = { name: fc.name, arguments: parseArguments(fc.args ?? {}, at) };
    if (typeof fc.id === 'string' && fc.id !== '') call.id = fc.id;
    m.calls.push(call);
  } else if (p.thought === true) m.reasoning += textPart(p);
  else m.content += textPart(p);
}

function textPart(p: Record<string, unknown>): string {
  return typeof p.text === 'string' ? p.text : '';
}

function functionResponse(p: Record<string, unknown>, matcher: CallMatcher, at: string): Message {
  const fr = asObject(p.functionResponse, `${at}: functionResponse`);
  const id = typeof fr.id === 'string' ? fr.id : undefined;
  matcher.result(id, at);
  const response = (fr.response ?? {}) as Record<string, unknown>;
  const out = response.output ?? response.error;
  return toolMessage(typeof out === 'string' ? out : JSON.stringify(fr.response ?? null), id);
}

export function readStreamJson(records: readonly SessionRecord[], source: string): Trajectory {
  const conv = new BlockConversation(source);
  const facts: TrajectoryFacts = { termination: { status: 'no result event (the stream was cut off)', completed: false } };
  for (const { value, lineNo } of records) {
    const r = asObject(value, `${source}:${lineNo}`);
    if (r.parent_tool_use_id !== undefined && r.parent_tool_use_id !== null) continue;
    if (r.type === 'system' && r.subtype === 'init') Object.assign(facts, initFacts(r));
    else if (r.type === 'assistant') conv.assistant(asObject(r.message, `${source}:${lineNo}: "message"`).content, `line ${lineNo}`);
    else if (r.type === 'user') conv.user(asObject(r.message, `${source}:${lineNo}: "message"`).content, `line ${lineNo}`);
    else if (r.type === 'result') {
      const status = typeof r.subtype === 'string' ? r.subtype : 'result';
      facts.termination = { status, completed: status === 'success' && r.is_error !== true };
    }
  }
  conv.close();
  return finish(source, 'stream-json', conv.messages, [], false, facts);
}

/**
 * The scaffold (Qwen Code writes `qwen_code_version`; another writer of the layout, such as Claude
 * Code's SDK, is read alike but not named: no real sample of it was at hand) and the tool names
 * the stream says are available.
 */
function initFacts(r: Record<string, unknown>): TrajectoryFacts {
  const scaffold: Scaffold | undefined = typeof r.qwen_code_version === 'string' ? 'qwen-code' : undefined;
  const names = Array.isArray(r.tools) ? r.tools.filter((t): t is string => typeof t === 'string') : [];
  return { scaffold, declaredNames: names.length ? names : undefined };
}
