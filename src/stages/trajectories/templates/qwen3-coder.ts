import { SPECIAL } from '../../../doc/specials.js';
import { parseError, splitCalls, splitToolsSection, withToolsSection, writeCalls, type ParsedContent, type ParsedHeader, type Piece, type Template } from '../chatml.js';
import type { Message, ToolCall, ToolDef, Trajectory } from '../model.js';
import { pyJson } from './hermes.js';

/**
 * Qwen3-Coder's tool format as its published chat template (the later Hub revision, with
 * `render_extra_keys`) writes it, byte for byte (a test holds it to transformers' rendering):
 * tools as XML in the system turn, and each call as
 *
 *   <tool_call>
 *   <function=NAME>
 *   <parameter=KEY>
 *   VALUE
 *   </parameter>
 *   </function>
 *   </tool_call>
 *
 * A string value is written as it is, a mapping or list as JSON, anything else as Python's str()
 * (`True`, `None`). Text beside calls is trimmed and followed by a blank line; each tool result
 * block is followed by a newline. The parser (as `qwen3coder_tool_parser`) reads a value back by
 * the parameter's declared type: raw text for `string`, JSON otherwise, then True/False/None,
 * then raw text. Written from the format, not copied from the template.
 */
const PREAMBLE = '# Tools\n\nYou have access to the following functions:\n\n<tools>';

const INSTRUCTIONS_HEAD = '\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n';
const EXAMPLE =
  '\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n<parameter=example_parameter_2>\n' +
  'This is the value for the second parameter\nthat can span\nmultiple lines\n</parameter>\n</function>\n';
const REMINDER =
  '\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within ';
const REMINDER_TAIL =
  ' XML tags\n- Required parameters MUST be specified\n- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\n' +
  '- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\n</IMPORTANT>';

/** The template's system text for an input without a system message but with tools. */
const CODER_SYSTEM = 'You are Qwen, a helpful AI assistant that can interact with a computer to solve tasks.';

/** Python's str() of a JSON scalar, as the template's `| string` writes it. */
function pyStr(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  return String(v);
}

/** A value as the template writes it: a mapping or list as JSON (`tojson`), anything else as Python's str(). */
const xmlValue = (v: unknown) => (v !== null && typeof v === 'object' ? pyJson(v) : pyStr(v));

/** `<KEY>VALUE</KEY>` lines for the keys the template does not handle by name. */
const extraKeys = (o: Record<string, unknown>, handled: readonly string[]) =>
  Object.entries(o)
    .filter(([k]) => !handled.includes(k))
    .map(([k, v]) => `\n<${k}>${xmlValue(v)}</${k}>`)
    .join('');

function toolXml(t: ToolDef): string {
  let out = `\n<function>\n<name>${t.name}</name>`;
  if (t.description !== undefined) out += `\n<description>${t.description.trim()}</description>`;
  out += '\n<parameters>';
  for (const [k, p] of Object.entries(t.parameters.properties)) {
    out += `\n<parameter>\n<name>${k}</name>`;
    // The type through `| string`: a list of types is Python's repr of a list.
    if (p.type !== undefined) out += `\n<type>${Array.isArray(p.type) ? `[${p.type.map((x) => `'${String(x)}'`).join(', ')}]` : pyStr(p.type)}</type>`;
    if (p.description !== undefined) out += `\n<description>${pyStr(p.description).trim()}</description>`;
    out += extraKeys(p, ['name', 'type', 'description']) + '\n</parameter>';
  }
  return out + extraKeys(t.parameters, ['type', 'properties']) + '\n</parameters>\n</function>';
}

function callXml(c: ToolCall): string {
  const params = Object.entries(c.arguments).map(([k, v]) => `<parameter=${k}>\n${xmlValue(v)}\n</parameter>\n`);
  return `\n<function=${c.name}>\n${params.join('')}</function>\n`;
}

/** Reads the tool list of the system turn: names and parameter types. */
function parseToolsXml(section: string): ParsedHeader['tools'] {
  const tools: ParsedHeader['tools'] = new Map();
  const end = section.lastIndexOf(INSTRUCTIONS_HEAD);
  if (end < 0) parseError('qwen3-coder: the tools section is not closed');
  for (const fn of section.slice(PREAMBLE.length, end).split('\n<function>\n').slice(1)) {
    const name = /^<name>(.*)<\/name>\n/.exec(fn)?.[1];
    if (name === undefined) parseError('qwen3-coder: a tool without a name');
    const params = new Map<string, string | undefined>();
    for (const p of fn.split('<parameter>\n<name>').slice(1)) {
      const m = /^(.*)<\/name>\n(?:<type>(.*)<\/type>\n)?/.exec(p);
      if (!m) parseError(`qwen3-coder: tool ${name}: a parameter without a name`);
      params.set(m[1]!, m[2]);
    }
    tools.set(name, params);
  }
  return tools;
}

const PY_SCALARS: Record<string, unknown> = { True: true, False: false, None: null };

/** A value back by its declared type: text for `string`, else JSON, else Python's True/False/None, else the text. */
function parseValue(raw: string, type: string | undefined): unknown {
  if (type === 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw in PY_SCALARS ? PY_SCALARS[raw] : raw;
  }
}

/** One call body: `\n<function=NAME>\n` then `<parameter=KEY>\nVALUE\n</parameter>\n` ... then `</function>\n`. */
function parseCall(body: string, header: ParsedHeader): ToolCall {
  const head = /^\n<function=([^>\n]*)>\n/.exec(body);
  if (!head || !body.endsWith('</function>\n')) parseError('qwen3-coder: a call is not a <function=...> block');
  const name = head[1]!;
  const types = header.tools.get(name);
  const args: Record<string, unknown> = {};
  let pos = head[0].length;
  const end = body.length - '</function>\n'.length;
  while (pos < end) {
    const open = /^<parameter=([^>\n]*)>\n/.exec(body.slice(pos, pos + 1000));
    if (!open) parseError(`qwen3-coder: call ${name}: expected <parameter=...> at ${pos}`);
    const from = pos + open[0].length;
    let close = body.indexOf('\n</parameter>\n', from);
    // A value may contain the closing tag: the real one is followed by the next parameter or the end.
    while (close >= 0 && close + 14 !== end && !body.startsWith('<parameter=', close + 14)) close = body.indexOf('\n</parameter>\n', close + 1);
    if (close < 0) parseError(`qwen3-coder: call ${name}: parameter ${open[1]} not closed`);
    args[open[1]!] = parseValue(body.slice(from, close), types?.get(open[1]!));
    pos = close + 14;
  }
  return { name, arguments: args };
}

/** Content beside calls is written trimmed (and not at all when blank), so that is what a parse gives back. */
function kept(t: Trajectory): Message[] {
  return t.messages.map((m) => (m.role === 'assistant' && m.calls?.length ? { ...m, content: m.content.trim() } : m));
}

export const qwen3Coder: Template = {
  name: 'qwen3-coder',
  toolResults: 'grouped',
  resultNewline: 'after',
  defaultSystem: (t) => (t.tools.length ? CODER_SYSTEM : undefined),
  kept,
  listsTools: (t) => t.tools.length > 0,
  system(w: Piece, content: string, t) {
    if (t.tools.length === 0) return w.text(content);
    w.text(withToolsSection(content, PREAMBLE + t.tools.map(toolXml).join('') + INSTRUCTIONS_HEAD));
    w.special(SPECIAL.toolCall);
    w.text(EXAMPLE);
    w.special(SPECIAL.toolCallEnd);
    w.text(REMINDER);
    w.special(SPECIAL.toolCall);
    w.special(SPECIAL.toolCallEnd);
    w.text(REMINDER_TAIL);
  },
  assistant(w: Piece, m: Message) {
    writeCalls(w, m.calls?.length ? { ...m, content: m.content.trim() } : m, callXml, '\n\n');
  },
  parseSystem(c: ParsedContent): ParsedHeader {
    const { content, section } = splitToolsSection(c.text, PREAMBLE);
    if (section === undefined) {
      if (c.specials.length) parseError('qwen3-coder: special tokens in a system turn without tools');
      return { content, tools: new Map() };
    }
    return { content, tools: parseToolsXml(section) };
  },
  parseAssistant(c: ParsedContent, header: ParsedHeader): Message {
    const { text, bodies } = splitCalls(c, '\n\n');
    return bodies.length ? { role: 'assistant', content: text, calls: bodies.map((b) => parseCall(b, header)) } : { role: 'assistant', content: text };
  },
};
