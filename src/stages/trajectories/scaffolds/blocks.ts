import { CallMatcher, REASONS, parseArguments, type Message, type ToolCall } from '../model.js';
import { asObject, assistantMessage, fail, toolMessage } from '../readers.js';

/**
 * A conversation written as Anthropic Messages content blocks, one record at a time: Claude Code's
 * session lines and the `stream-json` events of Qwen Code and Claude Code's SDK.
 *
 *   assistant blocks  `thinking` → the message's reasoning, `text` → its content, `tool_use` → a
 *                     call (id, name, input). Consecutive assistant records are one message: these
 *                     scaffolds write each block of a reply as its own record.
 *   user content      a string, or blocks: `tool_result` → a tool message answering its
 *                     `tool_use_id` (text parts joined, an image as `[image]`), `text` → user text.
 *
 * Texts are joined as written (no separator): the blocks of one reply are consecutive pieces.
 */
export class BlockConversation {
  readonly messages: Message[] = [];
  private readonly matcher: CallMatcher;
  private open: { content: string; reasoning: string; calls: ToolCall[] } | undefined;

  constructor(private readonly source: string) {
    this.matcher = new CallMatcher(source);
  }

  assistant(blocks: unknown, at: string): void {
    const m = (this.open ??= { content: '', reasoning: '', calls: [] });
    if (typeof blocks === 'string') return void (m.content += blocks);
    if (!Array.isArray(blocks)) fail(REASONS.badRecord, `${this.source}: ${at}: assistant "content" is neither text nor a list of blocks`);
    blocks.forEach((raw, k) => {
      const b = asObject(raw, `${this.source}: ${at}: block ${k}`);
      if (b.type === 'text' && typeof b.text === 'string') m.content += b.text;
      else if (b.type === 'thinking' && typeof b.thinking === 'string') m.reasoning += b.thinking;
      else if (b.type === 'tool_use') m.calls.push(this.call(b, `${at}: block ${k}`));
      else if (b.type !== 'redacted_thinking') fail(REASONS.badRecord, `${this.source}: ${at}: block ${k}: unknown assistant block ${JSON.stringify(b.type)}`);
    });
  }

  user(content: unknown, at: string): void {
    this.close();
    if (typeof content === 'string') return void this.messages.push({ role: 'user', content });
    if (!Array.isArray(content)) fail(REASONS.badRecord, `${this.source}: ${at}: user "content" is neither text nor blocks`);
    let text: string[] = [];
    const flushText = () => {
      if (text.length) this.messages.push({ role: 'user', content: text.join('\n') });
      text = [];
    };
    content.forEach((raw, k) => {
      const b = asObject(raw, `${this.source}: ${at}: block ${k}`);
      if (b.type !== 'tool_result') return void text.push(blockText(b));
      flushText();
      const id = typeof b.tool_use_id === 'string' ? b.tool_use_id : undefined;
      this.matcher.result(id, `${at}: block ${k}`);
      this.messages.push(toolMessage(resultText(b.content, `${this.source}: ${at}: block ${k}`), id));
    });
    flushText();
  }

  /** Ends the assistant message being assembled (a user record, or the end of the conversation). */
  close(): void {
    if (!this.open) return;
    const { content, reasoning, calls } = this.open;
    this.open = undefined;
    this.matcher.addCalls(calls.map((c) => c.id));
    this.messages.push(assistantMessage(content, calls, reasoning));
  }

  private call(b: Record<string, unknown>, at: string): ToolCall {
    if (typeof b.name !== 'string' || b.name === '') fail(REASONS.badRecord, `${this.source}: ${at}: tool_use has no name`);
    const call: ToolCall = { name: b.name, arguments: parseArguments(b.input ?? {}, `${this.source}: ${at}`) };
    if (typeof b.id === 'string' && b.id !== '') call.id = b.id;
    return call;
  }
}

/** A user block's text: `text` as written, an image or document as a marker (its bytes are not text). */
function blockText(b: Record<string, unknown>): string {
  if (typeof b.text === 'string') return b.text;
  return `[${typeof b.type === 'string' ? b.type : 'block'}]`;
}

/** A tool result's content: a string, or blocks whose texts are joined by newlines. */
function resultText(v: unknown, where: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (!Array.isArray(v)) return fail(REASONS.badRecord, `${where}: tool_result "content" is neither text nor blocks`);
  return v.map((b, k) => blockText(asObject(b, `${where}: part ${k}`))).join('\n');
}
