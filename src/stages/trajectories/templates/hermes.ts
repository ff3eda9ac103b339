import { SPECIAL } from '../../../doc/specials.js';
import { parseError, splitCalls, splitToolsSection, toolTypes, withToolsSection, writeCalls, type ParsedContent, type ParsedHeader, type Piece, type Template } from '../chatml.js';
import type { Message, ToolCall, ToolDef } from '../model.js';

/**
 * The Hermes tool format as Qwen2.5's chat template writes it, byte for byte (a test holds it to
 * transformers' rendering of the published template): tools as JSON lines in the system turn,
 * each call as `<tool_call>\n{"name": NAME, "arguments": {...}}\n</tool_call>`, consecutive
 * results as `<tool_response>` blocks of one user turn. JSON is written the way the template's
 * `tojson` writes it (Python's `json.dumps`: `", "` and `": "`). An input without a system
 * message gets Qwen2.5's default system text. Written from the format, not from the template.
 */
const PREAMBLE = '# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const INSTRUCTIONS = '\n</tools>\n\nFor each function call, return a json object with function name and arguments within ';
const FORMAT = '\n{"name": <function-name>, "arguments": <args-json-object>}\n';

/** JSON as Python's json.dumps(ensure_ascii=False) writes it. */
export function pyJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pyJson).join(', ')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`).join(', ')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** A tool as the row passes it to the template: `{type, function: {name, description, parameters}}`. */
function toolJson(t: ToolDef): string {
  const fn = t.description === undefined ? { name: t.name, parameters: t.parameters } : { name: t.name, description: t.description, parameters: t.parameters };
  return '\n' + pyJson({ type: 'function', function: fn });
}

/** Qwen2.5's system text for an input without a system message. */
const QWEN_SYSTEM = 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.';

function callJson(c: ToolCall): string {
  return `\n{"name": ${JSON.stringify(c.name)}, "arguments": ${pyJson(c.arguments)}}\n`;
}

function parseCall(body: string): ToolCall {
  if (!body.startsWith('\n') || !body.endsWith('\n')) parseError('hermes: a call is not framed by newlines');
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch (e) {
    parseError(`hermes: a call is not JSON (${(e as Error).message})`);
  }
  const o = v as { name?: unknown; arguments?: unknown };
  if (typeof o?.name !== 'string' || o.arguments === null || typeof o.arguments !== 'object' || Array.isArray(o.arguments)) parseError('hermes: a call without a name or arguments object');
  return { name: o.name, arguments: o.arguments as Record<string, unknown> };
}

export const hermes: Template = {
  name: 'hermes',
  toolResults: 'grouped',
  defaultSystem: () => QWEN_SYSTEM,
  listsTools: (t) => t.tools.length > 0,
  system(w: Piece, content: string, t) {
    if (t.tools.length === 0) return w.text(content);
    w.text(withToolsSection(content, PREAMBLE + t.tools.map(toolJson).join('') + INSTRUCTIONS));
    w.special(SPECIAL.toolCall);
    w.special(SPECIAL.toolCallEnd);
    w.text(' XML tags:\n');
    w.special(SPECIAL.toolCall);
    w.text(FORMAT);
    w.special(SPECIAL.toolCallEnd);
  },
  assistant(w: Piece, m: Message) {
    writeCalls(w, m, callJson);
  },
  parseSystem(c: ParsedContent): ParsedHeader {
    const { content, section } = splitToolsSection(c.text, PREAMBLE);
    if (section === undefined) {
      if (c.specials.length) parseError('hermes: special tokens in a system turn without tools');
      return { content, tools: new Map() };
    }
    const end = section.lastIndexOf(INSTRUCTIONS);
    if (end < 0) parseError('hermes: the tools section is not closed');
    const tools = section
      .slice(PREAMBLE.length + 1, end)
      .split('\n')
      .map((line): ToolDef => {
        try {
          return (JSON.parse(line) as { function: ToolDef }).function;
        } catch {
          return parseError('hermes: a tool line is not JSON');
        }
      });
    return { content, tools: toolTypes(tools) };
  },
  parseAssistant(c: ParsedContent): Message {
    const { text, bodies } = splitCalls(c);
    return bodies.length ? { role: 'assistant', content: text, calls: bodies.map(parseCall) } : { role: 'assistant', content: text };
  },
};
