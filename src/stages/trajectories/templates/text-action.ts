import { parseError, splitToolsSection, withToolsSection, type ParsedContent, type ParsedHeader, type Piece, type Template } from '../chatml.js';
import type { Message, ToolCall, ToolDef } from '../model.js';
import { pyJson } from './hermes.js';

/**
 * Text actions, as SWE-agent's default agent writes them: no structured calls and no tool
 * tokens, the thought and then each command in a fenced block at the end of the turn; each
 * result comes back as a plain user turn.
 *
 *   - a shell command (`bash` with only `command`) is an untagged block holding the command;
 *   - any other call is a block tagged with the tool's name, holding its arguments as JSON.
 *
 * The fence is one backtick longer than any run of backticks in the turn (at least three), so a
 * command or a thought that holds fenced code cannot close it early. Tools are listed in the
 * system turn, except when the calls were the agent's own text actions: its system prompt
 * already describes its commands.
 */
const PREAMBLE =
  '# Commands\n\nWrite your reasoning, then each command in its own fenced block at the end of your reply. ' +
  "An untagged block runs in the shell; a block tagged with a command's name holds that command's arguments as JSON.\n";

const isShell = (c: ToolCall) => c.name === 'bash' && typeof c.arguments.command === 'string' && Object.keys(c.arguments).length === 1;

function longestBacktickRun(s: string): number {
  let best = 0;
  for (const m of s.matchAll(/`+/g)) best = Math.max(best, m[0].length);
  return best;
}

function toolLine(t: ToolDef): string {
  return `\n- ${t.name}${t.description !== undefined ? `: ${t.description.replace(/\n/g, ' ')}` : ''}\n  arguments: ${pyJson(t.parameters)}`;
}

function block(fence: string, c: ToolCall): string {
  return isShell(c) ? `${fence}\n${c.arguments.command as string}\n${fence}` : `${fence}${c.name}\n${pyJson(c.arguments)}\n${fence}`;
}

/** Reads the fenced blocks at the end of an assistant turn, last to first. */
function parseBlocks(text: string): { content: string; calls: ToolCall[] } {
  const m = /`{3,}$/.exec(text);
  if (!m) return { content: text, calls: [] };
  const fence = m[0];
  const calls: ToolCall[] = [];
  let end = text.length;
  while (end >= fence.length && text.slice(end - fence.length, end) === fence) {
    const closeStart = end - fence.length;
    if (text[closeStart - 1] !== '\n') parseError('text-action: a closing fence is not on its own line');
    const open = text.lastIndexOf(fence, closeStart - 2);
    if (open < 0 || (open > 0 && text[open - 1] !== '\n')) parseError('text-action: a block is not opened');
    const nl = text.indexOf('\n', open);
    const info = text.slice(open + fence.length, nl);
    const body = nl + 1 <= closeStart - 1 ? text.slice(nl + 1, closeStart - 1) : parseError('text-action: an empty block');
    calls.unshift(info === '' ? { name: 'bash', arguments: { command: body } } : { name: info, arguments: jsonArguments(body, info) });
    end = open === 0 ? 0 : open - 1;
    if (end === 0) break;
  }
  return { content: text.slice(0, end), calls };
}

function jsonArguments(body: string, name: string): Record<string, unknown> {
  try {
    const v = JSON.parse(body) as unknown;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // reported below
  }
  return parseError(`text-action: the arguments of ${name} are not a JSON object`);
}

export const textAction: Template = {
  name: 'text-action',
  toolResults: 'each',
  listsTools: (t) => t.tools.length > 0 && !t.callsFromText,
  system(w: Piece, content: string, t) {
    if (t.tools.length === 0 || t.callsFromText) return w.text(content);
    const section = PREAMBLE + t.tools.map(toolLine).join('');
    w.text(content === '' ? section : withToolsSection(content, section));
  },
  assistant(w: Piece, m: Message) {
    const calls = m.calls ?? [];
    const commands = calls.map((c) => (isShell(c) ? (c.arguments.command as string) : pyJson(c.arguments)));
    const fence = '`'.repeat(Math.max(3, longestBacktickRun(m.content + commands.join('')) + 1));
    w.text(m.content);
    calls.forEach((c, k) => w.text((k > 0 || m.content !== '' ? '\n' : '') + block(fence, c)));
  },
  parseSystem(c: ParsedContent): ParsedHeader {
    if (c.specials.length) parseError('text-action: special tokens in the system turn');
    const { content, section } = splitToolsSection(c.text, PREAMBLE);
    const tools: ParsedHeader['tools'] = new Map();
    for (const m of (section ?? '').matchAll(/^- ([^:\n]+)/gm)) tools.set(m[1]!, new Map());
    return { content, tools };
  },
  parseAssistant(c: ParsedContent): Message {
    if (c.specials.length) parseError('text-action: special tokens in an assistant turn');
    const { content, calls } = parseBlocks(c.text);
    return calls.length ? { role: 'assistant', content, calls } : { role: 'assistant', content };
  },
};
