import { CALL_REASONS, CallMatcher, REASONS, type CallProblem, type Message } from '../model.js';
import { asObject, assistantMessage, contentText, fail, finish, openaiCalls, role, runFacts, toolMessage } from '../readers.js';
import type { Trajectory } from '../model.js';
import { matchAllWithin, PatternTimeout, type PatternMatch } from '../../../core/bounded-regex.js';

/**
 * mini-SWE-agent's `.traj.json`: {info, messages, trajectory_format, instance_id?}.
 *
 *   v2 (`mini-swe-agent-1.1`, mini 2.x)  OpenAI messages with `tool_calls` (the `bash` tool) and
 *       `tool` results; the last message has role `exit` (the submission), which is not a turn.
 *   v1 (`mini-swe-agent-1`, mini 1.x)    no tool calling: the action is the one fenced block the
 *       reply ends with (```bash by default, or the run's configured `action_regex`), read as a
 *       `bash` call; the reply without it is the thought. The observation is the next `user`
 *       message. A reply without exactly one action block is what mini rejects as a format error:
 *       an `unparsed_text_action`.
 *
 * The termination is `info.exit_status` (`Submitted` is the agent's own end); the instance id is
 * `instance_id`, else the file name (`<instance_id>.traj.json`). Reasoning a model returns apart
 * (`reasoning_content`) is kept as the message's reasoning.
 */
export function isMiniSweAgent(v: Record<string, unknown>): boolean {
  if (!Array.isArray(v.messages)) return false;
  if (typeof v.trajectory_format === 'string' && v.trajectory_format.startsWith('mini-swe-agent')) return true;
  const info = v.info as Record<string, unknown> | undefined;
  return info !== null && typeof info === 'object' && typeof info.mini_version === 'string';
}

const DEFAULT_ACTION_REGEX = '```bash\\s*\\n(.*?)\\n```';

export function readMiniSweAgent(value: unknown, source: string): Trajectory {
  const traj = asObject(value, source);
  if (!Array.isArray(traj.messages)) fail(REASONS.badRecord, `${source}: "messages" is not a list`);
  const raw = traj.messages.filter((m) => (m as { role?: unknown } | null)?.role !== 'exit');
  const textMode = !raw.some((m) => Array.isArray((m as { tool_calls?: unknown } | null)?.tool_calls) && ((m as { tool_calls: unknown[] }).tool_calls.length > 0));
  const action = textMode ? actionRegex(traj, source) : undefined;
  const matcher = new CallMatcher(source);
  const problems: CallProblem[] = [];
  const messages: Message[] = [];
  let awaitingObservation = false;
  raw.forEach((rawMessage, i) => {
    const at = `messages[${i}]`;
    const m = asObject(rawMessage, `${source}: ${at}`);
    const r = role(m.role, `${source}: ${at}`);
    const content = contentText(m.content, `${source}: ${at}`);
    const observation = r === 'tool' || (r === 'user' && awaitingObservation);
    awaitingObservation = false;
    if (observation) {
      const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : undefined;
      matcher.result(id, at);
      return void messages.push(toolMessage(content, id));
    }
    if (r !== 'assistant') return void messages.push({ role: r, content });
    const reasoning = typeof m.reasoning_content === 'string' ? m.reasoning_content : undefined;
    if (action) {
      const parsed = parseAction(content, action, `${source}: ${at}`);
      if (!parsed) {
        problems.push({ reason: CALL_REASONS.unparsedTextAction, message: `${source}: ${at}: the reply does not hold exactly one action block (${action.regex.source})` });
        return void messages.push(assistantMessage(content, [], reasoning));
      }
      matcher.addCalls([undefined]);
      awaitingObservation = true;
      return void messages.push(assistantMessage(parsed.thought, [{ name: 'bash', arguments: { command: parsed.command } }], reasoning));
    }
    const { calls, ids } = Array.isArray(m.tool_calls) ? openaiCalls(m.tool_calls, `${source}: ${at}`) : { calls: [], ids: [] };
    matcher.addCalls(ids);
    messages.push(assistantMessage(content, calls, reasoning));
  });
  return finish(source, 'mini-swe-agent', messages, [], textMode, { scaffold: 'mini-swe-agent', problems, ...runFacts(traj, source, /\.traj\.json$/) });
}

/** The run's own action regex when its config names one (mini 2.x text mode), else mini 1.x's ```bash block. */
function actionRegex(traj: Record<string, unknown>, source: string): ActionPattern {
  const config = (traj.info as { config?: Record<string, Record<string, unknown>> } | undefined)?.config;
  const given = config?.model?.action_regex ?? config?.agent?.action_regex;
  try {
    return { regex: new RegExp(typeof given === 'string' ? given : DEFAULT_ACTION_REGEX, 'gs'), given: typeof given === 'string' };
  } catch (e) {
    return fail(REASONS.badRecord, `${source}: info.config action_regex is not a regular expression (${(e as Error).message})`);
  }
}

/** The action pattern, and whether it came with the file (then searched within ACTION_REGEX_MS: core/bounded-regex.ts). */
interface ActionPattern {
  regex: RegExp;
  given: boolean;
}

/** A file's own action_regex may search one reply this long; past it the trajectory is dropped (bad_record), the run goes on. */
export const ACTION_REGEX_MS = 1000;

function actionMatches(text: string, action: ActionPattern, where: string): PatternMatch[] {
  if (!action.given) return Array.from(text.matchAll(action.regex), (m) => ({ index: m.index!, groups: [...m] }));
  try {
    return matchAllWithin(action.regex, text, ACTION_REGEX_MS);
  } catch (e) {
    if (e instanceof PatternTimeout) return fail(REASONS.badRecord, `${where}: info.config action_regex ${e.message}`);
    throw e;
  }
}

/** The one action block of a reply, as mini finds it (`findall`, exactly one match), and the text around it as the thought. */
function parseAction(text: string, action: ActionPattern, where: string): { thought: string; command: string } | undefined {
  const matches = actionMatches(text, action, where);
  if (matches.length !== 1 || matches[0]!.groups[1] === undefined) return undefined;
  const m = matches[0]!;
  const before = text.slice(0, m.index).trimEnd();
  const after = text.slice(m.index + m.groups[0]!.length).trim();
  return { thought: after ? `${before}\n\n${after}` : before, command: m.groups[1]!.trim() };
}
