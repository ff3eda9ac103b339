import { SPECIAL } from '../../../doc/specials.js';
import { parseError, splitCalls, splitToolsSection, withToolsSection, writeCalls, type ParsedContent, type ParsedHeader, type Piece, type Template } from '../chatml.js';
import type { Message, ToolCall, ToolDef } from '../model.js';

/**
 * Qwen3-Coder's tool format (its chat template and `qwen3coder_tool_parser`): tools as XML in the
 * system turn, and each call as
 *
 *   <tool_call>
 *   <function=NAME>
 *   <parameter=KEY>
 *   VALUE
 *   </parameter>
 *   </function>
 *   </tool_call>
 *
 * A string value is written as it is; any other value as JSON. The parser reads a value back by
 * the parameter's declared type: raw text for `string`, JSON otherwise (raw text when it is not JSON).
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
  '- If there is no function call available, answer the question like a helpful assistant and do NOT include the function call tags\n</IMPORTANT>';

const xmlValue = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function toolXml(t: ToolDef): string {
  const lines = ['\n<function>', `<name>${t.name}</name>`];
  if (t.description !== undefined) lines.push(`<description>${t.description}</description>`);
  lines.push('<parameters>');
  for (const [k, p] of Object.entries(t.parameters.properties)) {
    lines.push('<parameter>', `<name>${k}</name>`);
    if (p.type !== undefined) lines.push(`<type>${xmlValue(p.type)}</type>`);
    if (p.description !== undefined) lines.push(`<description>${xmlValue(p.description)}</description>`);
    for (const [key, v] of Object.entries(p)) if (key !== 'type' && key !== 'description') lines.push(`<${key}>${JSON.stringify(v)}</${key}>`);
    lines.push('</parameter>');
  }
  if (t.parameters.required?.length) lines.push(`<required>${JSON.stringify(t.parameters.required)}</required>`);
  lines.push('</parameters>', '</function>');
  return lines.join('\n');
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

function parseValue(raw: string, type: string | undefined): unknown {
  if (type === 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
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

export const qwen3Coder: Template = {
  name: 'qwen3-coder',
  toolResults: 'grouped',
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
    writeCalls(w, m, callXml);
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
    const { text, bodies } = splitCalls(c);
    return bodies.length ? { role: 'assistant', content: text, calls: bodies.map((b) => parseCall(b, header)) } : { role: 'assistant', content: text };
  },
};
