import type { ToolDef, Trajectory } from '../model.js';
import { pyJson } from '../templates/hermes.js';

/**
 * A trajectory as the OpenAI-style row a transformers user passes to `apply_chat_template`:
 * `messages` (role, content, `reasoning_content`, `tool_calls` with `id`, `type` and
 * `function: {name, arguments}`, `tool_call_id`) and `tools` (`{type: 'function', function}`),
 * or null when there are none. This object is what the template sees, and what
 * scripts/render_chat_templates.py renders for the fixtures.
 *
 * Unlike the export rows (export.ts toOpenaiRow, made to be read back), nothing is added: no
 * call ids the input lacked and no empty system message, since templates render both.
 *
 * A content the input gave as null (an OpenAI tool-call message) is null here, as transformers is
 * given it: Python's Jinja prints it `None` where a template writes it (GLM-4.6, MiniMax-M2), and
 * so does midpack (counted as `null_content_printed`). Reasoning is under `reasoning_content` and
 * `thinking` (the key gpt-oss's template reads); no shared template reads both.
 *
 * Arguments are objects, as transformers users pass them; with `jsonArguments` (for templates
 * that concatenate them as text, such as DeepSeek-V3.1's) they are the string Python's
 * `json.dumps(arguments, ensure_ascii=False)` writes.
 */
export interface ChatRow {
  messages: Record<string, unknown>[];
  tools: Record<string, unknown>[] | null;
}

export function toChatRow(t: Trajectory, jsonArguments = false): ChatRow {
  const messages = (t.noSystem ? t.messages.slice(1) : t.messages).map((m) => {
    const o: Record<string, unknown> = { role: m.role, content: m.nullContent ? null : m.content };
    if (m.reasoning !== undefined) o.reasoning_content = o.thinking = m.reasoning;
    if (m.calls?.length) {
      o.tool_calls = m.calls.map((c) => ({
        ...(c.id !== undefined ? { id: c.id } : {}),
        type: 'function',
        function: { name: c.name, arguments: jsonArguments ? pyJson(c.arguments) : c.arguments },
      }));
    }
    if (m.toolCallId !== undefined) o.tool_call_id = m.toolCallId;
    return o;
  });
  return { messages, tools: t.tools.length ? toolRows(t.tools) : null };
}

/** Tool definitions as OpenAI rows give them: `{type: 'function', function: {name, description, parameters}}`. */
export function toolRows(tools: readonly ToolDef[]): { type: 'function'; function: Record<string, unknown> }[] {
  return tools.map((d) => ({ type: 'function', function: { name: d.name, ...(d.description !== undefined ? { description: d.description } : {}), parameters: d.parameters } }));
}
