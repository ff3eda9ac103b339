import type { StageContext } from '../../core/stage.js';
import type { Trajectory } from './model.js';
import type { TrajectoriesOptions } from './options.js';
import { filteredTrajectories, scaffoldMeta } from './stage.js';
import { TrajectoryStats } from './stats.js';
import { toolRows } from './jinja/row.js';

/**
 * A read trajectory as an OpenAI chat row, the input `transformers`' `apply_chat_template` takes:
 *
 *   {"messages": [...], "tools": [{"type": "function", "function": {name, description, parameters}}],
 *    "source": ..., "meta": {format, scaffold, instance_id, termination, resolved, subagent}}
 *
 * An assistant message has `content`, `reasoning_content` when the input kept the reasoning apart,
 * and `tool_calls` [{id, type: "function", function: {name, arguments}}] with the arguments as a
 * JSON object (as transformers users pass them; OpenAI's API sends a JSON string, which
 * readOpenaiRow also reads). A call without an id in the input gets `call_<message>_<k>`, and a
 * tool result `tool_call_id` (its own, or the id of the oldest call still open). `messages[0]` is
 * the system message, empty when the input had none. Reading a row back with readOpenaiRow gives
 * the same messages and calls.
 */
export interface OpenaiRow {
  messages: Record<string, unknown>[];
  tools: { type: 'function'; function: Record<string, unknown> }[];
  source: string;
  meta: Record<string, unknown>;
}

export function toOpenaiRow(t: Trajectory): OpenaiRow {
  const open: string[] = [];
  const messages = t.messages.map((m, i): Record<string, unknown> => {
    if (m.role === 'tool') {
      const id = m.toolCallId !== undefined && open.includes(m.toolCallId) ? m.toolCallId : open[0];
      if (id !== undefined) open.splice(open.indexOf(id), 1);
      return id === undefined ? { role: 'tool', content: m.content } : { role: 'tool', tool_call_id: id, content: m.content };
    }
    const row: Record<string, unknown> = { role: m.role, content: m.nullContent ? null : m.content };
    if (m.reasoning !== undefined) row.reasoning_content = m.reasoning;
    if (m.calls?.length) {
      row.tool_calls = m.calls.map((c, k) => {
        const id = c.id ?? `call_${i}_${k}`;
        open.push(id);
        return { id, type: 'function', function: { name: c.name, arguments: c.arguments } };
      });
    }
    return row;
  });
  return { messages, tools: toolRows(t.tools), source: t.source, meta: { format: t.format, tools_from: t.toolsFrom, ...scaffoldMeta(t) } };
}

/**
 * The inputs' trajectories that pass the filters, as OpenAI rows (`midpack trajectories --format
 * openai`): read and filtered exactly as for rendering, each row counted out in the ledger.
 */
export async function* openaiRows(inputs: string[], o: TrajectoriesOptions, ctx: StageContext): AsyncIterable<OpenaiRow> {
  const stats = new TrajectoryStats();
  ctx.stats.trajectories = stats.json;
  for await (const t of filteredTrajectories(inputs, o, ctx, stats)) {
    ctx.ledger.output();
    stats.trajectory(t);
    yield toOpenaiRow(t);
  }
  ctx.stats.trajectories = stats.json;
}
