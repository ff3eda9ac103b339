import { REASONS, TrajectoryError, type Trajectory } from './model.js';
import { readOpenaiRow, readSharegptRow, readSweAgent } from './readers.js';
import { isMiniSweAgent, readMiniSweAgent } from './scaffolds/mini-swe-agent.js';
import { isOpenHands, readOpenHands } from './scaffolds/openhands.js';
import { isAtif, isTerminusTraces, readAtif, readTerminusTraces } from './scaffolds/terminus.js';

/**
 * The format of a parsed record, told by its content (never by the file name):
 *
 *   {history: [{role, ...}]}               SWE-agent (.traj)
 *   {history: [events]} or [events]        OpenHands (events have `action` or `observation`)
 *   {messages, trajectory_format: mini-…}  mini-SWE-agent (or `info.mini_version`)
 *   {messages}                             OpenAI chat
 *   {conversations: [{from, value}]}       ShareGPT
 *   {schema_version: ATIF-…, steps}        Harbor's ATIF (Terminus-2)
 *   [{conversations, episode, ...}]        Terminus traces
 *
 * Session JSONL (Claude Code, Qwen Code, stream-json) is told apart in scaffolds/session.ts.
 * SWE-bench reports beside the trajectories (a per-instance `report.json`, a run summary) are
 * recognised so that a folder of a run can be given as it is: they are not trajectories.
 */
export type Read = { trajectories: (Trajectory | TrajectoryError)[]; prefixes: string[] };

export function readRecord(value: unknown, source: string): Trajectory {
  if (Array.isArray(value)) {
    if (isOpenHands(value)) return readOpenHands(value, source);
    throw new TrajectoryError(REASONS.badRecord, `${source}: a list, but not an OpenHands event list`);
  }
  if (value !== null && typeof value === 'object') {
    const r = value as Record<string, unknown>;
    if (isAtif(r)) return readAtif(r, source);
    if (isMiniSweAgent(r)) return readMiniSweAgent(r, source);
    if (Array.isArray(r.messages)) return readOpenaiRow(r, source);
    if (Array.isArray(r.conversations)) return readSharegptRow(r, source);
    if (Array.isArray(r.history)) return isOpenHands(r) ? readOpenHands(r, source) : readSweAgent(r, source);
  }
  throw new TrajectoryError(REASONS.badRecord, `${source}: not a trajectory (no "messages", "conversations", "history" or "steps" list, and not an event list)`);
}

/** A whole JSON file: one trajectory, or a Terminus traces list (several, prefixes left out). */
export function readDocument(value: unknown, source: string): Read {
  if (isTerminusTraces(value)) return readTerminusTraces(value as unknown[], source);
  try {
    return { trajectories: [readRecord(value, source)], prefixes: [] };
  } catch (e) {
    if (!(e instanceof TrajectoryError)) throw e;
    return { trajectories: [e], prefixes: [] };
  }
}

/** A SWE-bench harness report (per instance {ID: {resolved, ...}}, or a run summary with resolved_ids): not a trajectory. */
export function isSweBenchReport(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const o = value as Record<string, unknown>;
  if (Array.isArray(o.resolved_ids) && Array.isArray(o.unresolved_ids)) return true;
  const entries = Object.values(o);
  return entries.length > 0 && entries.every((e) => e !== null && typeof e === 'object' && typeof (e as { resolved?: unknown }).resolved === 'boolean' && 'tests_status' in e);
}
