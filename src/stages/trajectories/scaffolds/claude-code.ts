import type { Trajectory } from '../model.js';
import { asObject, finish } from '../readers.js';
import { BlockConversation } from './blocks.js';
import type { SessionRecord } from '../readers.js';

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
 * Assistant lines Claude Code writes itself (`isApiErrorMessage`, model `<synthetic>`) are not the
 * model's and are skipped; so are sidechain lines in a parent's file (older versions wrote a
 * subagent's conversation there).
 * Tools are not declared in the file and no exit status is written (interactive sessions): the
 * tools are derived and the termination filter does not apply. `subagent` is set when every
 * line is a sidechain.
 */
export const isClaudeCodeRecord = (r: Record<string, unknown>): boolean =>
  typeof r.sessionId === 'string' && (r.type === 'user' || r.type === 'assistant') && typeof (r.message as { content?: unknown } | undefined)?.content !== 'undefined';

export function readClaudeCode(records: readonly SessionRecord[], source: string): Trajectory {
  const turns = records
    .map(({ value, lineNo }) => ({ r: asObject(value, `${source}:${lineNo}`), lineNo }))
    .filter(({ r }) => (r.type === 'user' || r.type === 'assistant') && !isSynthetic(r));
  // Older versions wrote a subagent's lines into the parent's file: the parent's own conversation is the main chain.
  const subagent = turns.length > 0 && turns.every(({ r }) => r.isSidechain === true);
  const conv = new BlockConversation(source);
  for (const { r, lineNo } of turns) {
    if (!subagent && r.isSidechain === true) continue;
    const message = asObject(r.message, `${source}:${lineNo}: "message"`);
    if (r.type === 'assistant') conv.assistant(message.content, `line ${lineNo}`);
    else conv.user(message.content, `line ${lineNo}`);
  }
  conv.close();
  return finish(source, 'claude-code', conv.messages, [], false, { scaffold: 'claude-code', subagent: subagent || undefined });
}

/** An assistant line Claude Code wrote itself, not the model: an API error notice, or a `<synthetic>` reply. */
function isSynthetic(r: Record<string, unknown>): boolean {
  return r.type === 'assistant' && (r.isApiErrorMessage === true || (r.message as { model?: unknown } | undefined)?.model === '<synthetic>');
}
