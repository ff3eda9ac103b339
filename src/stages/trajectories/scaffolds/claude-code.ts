import type { Trajectory } from '../model.js';
import { asObject, finish } from '../readers.js';
import { BlockConversation } from './blocks.js';
import type { SessionRecord } from './session.js';

/**
 * A Claude Code session file (`~/.claude/projects/<cwd>/<session>.jsonl`, or a subagent's
 * `<session>/subagents/agent-<id>.jsonl`): one record per line, the conversation in file order.
 *
 *   `assistant`  `message` is an Anthropic Messages object; each content block is its own line
 *                (blocks.ts joins consecutive assistant lines into one message)
 *   `user`       the task and later prompts (a string or text blocks, `isMeta` reminders and hook
 *                output included: the model is shown them), and `tool_result` blocks
 *   `progress`, `system`, `file-history-snapshot`, `queue-operation`, `summary`
 *                hooks, slash-command echoes, snapshots, queued input and the subagent messages
 *                streamed into the parent (each subagent has its own file): not turns, skipped
 *
 * File order, not the `parentUuid` tree: parallel calls and hook lines branch the tree, and the
 * replies to parallel calls come back in completion order, matched to their calls by id.
 * Tools are not declared in the file and no exit status is written (interactive sessions): the
 * tools are derived and the termination filter does not apply. `subagent` is set when every
 * line is a sidechain.
 */
export const isClaudeCodeRecord = (r: Record<string, unknown>): boolean =>
  typeof r.sessionId === 'string' && (r.type === 'user' || r.type === 'assistant') && typeof (r.message as { content?: unknown } | undefined)?.content !== 'undefined';

export function readClaudeCode(records: readonly SessionRecord[], source: string): Trajectory {
  const conv = new BlockConversation(source);
  let turns = 0;
  let sidechain = 0;
  for (const { value, lineNo } of records) {
    const r = asObject(value, `${source}:${lineNo}`);
    if (r.type !== 'user' && r.type !== 'assistant') continue;
    turns++;
    if (r.isSidechain === true) sidechain++;
    const message = asObject(r.message, `${source}:${lineNo}: "message"`);
    if (r.type === 'assistant') conv.assistant(message.content, `line ${lineNo}`);
    else conv.user(message.content, `line ${lineNo}`);
  }
  conv.close();
  return finish(source, 'claude-code', conv.messages, [], false, { scaffold: 'claude-code', subagent: turns > 0 && sidechain === turns ? true : undefined });
}
