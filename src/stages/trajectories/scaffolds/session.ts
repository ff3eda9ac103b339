import { REASONS, TrajectoryError, type Trajectory } from '../model.js';
import { isClaudeCodeRecord, readClaudeCode } from './claude-code.js';
import { isQwenChatRecord, isStreamEvent, readQwenChat, readStreamJson } from './qwen-code.js';
import type { SessionRecord } from '../readers.js';

export type { SessionRecord };

/**
 * Session files: JSONL whose lines together are one trajectory (Claude Code sessions, Qwen Code
 * chat records, stream-json event logs), told apart from JSONL of one trajectory per row by the
 * first record: a session line is an event with a string `type` and none of the row layouts' lists.
 * The readers of each kind (claude-code.ts, qwen-code.ts) are imported here, never the other way.
 */
const ROW_KEYS = ['messages', 'conversations', 'history', 'steps'];

export function isSessionRecord(v: unknown): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return typeof r.type === 'string' && !ROW_KEYS.some((k) => Array.isArray(r[k]));
}

/** Reads a session by the kind of records it holds: stream events, Qwen Code chat records, or Claude Code lines. */
export function readSession(records: readonly SessionRecord[], source: string): Trajectory {
  const objects = records.map((r) => r.value).filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v));
  if (objects.some((r) => isStreamEvent(r) && (r.type === 'result' || r.type === 'system'))) return readStreamJson(records, source);
  if (objects.some(isQwenChatRecord)) return readQwenChat(records, source);
  if (objects.some(isClaudeCodeRecord)) return readClaudeCode(records, source);
  if (objects.some(isStreamEvent)) return readStreamJson(records, source);
  throw new TrajectoryError(REASONS.badRecord, `${source}: a JSONL of events, but not a Claude Code session, Qwen Code chat records or a stream-json log`);
}
