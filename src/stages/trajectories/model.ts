import { isDeepStrictEqual } from 'node:util';

/**
 * The trajectory model every reader produces and every template renders: a sequence of
 * messages with tool calls as JSON values, and the tool definitions the trajectory may call.
 *
 * The reasons a bad trajectory is dropped for (the ledger's names) are listed once here.
 */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface ToolCall {
  name: string;
  /** The call's arguments: always a JSON object. */
  arguments: Record<string, unknown>;
  /** The call's id when the input gives one (chat templates such as Mistral's and Kimi's render it). */
  id?: string;
}

export interface Message {
  role: Role;
  content: string;
  /** Assistant messages only. */
  calls?: ToolCall[];
  /** Assistant messages: the reasoning the input keeps apart from the content (OpenAI-style `reasoning_content`). */
  reasoning?: string;
  /** Tool messages: the id of the call answered, when the input gives one. */
  toolCallId?: string;
  /** The input's content was null (an OpenAI tool-call message): `content` is '', and a chat template is given null, as transformers is. */
  nullContent?: true;
}

/** A JSON-schema tool definition (OpenAI's `function` object). */
export interface ToolDef {
  name: string;
  description?: string;
  parameters: { type: 'object'; properties: Record<string, Record<string, unknown>>; required?: string[]; [k: string]: unknown };
}

/**
 * The layouts read (see readers.ts and scaffolds/): `atif` is Harbor's trajectory format (Terminus-2
 * writes it), `stream-json` the headless event stream of Qwen Code (and Claude Code's SDK).
 */
export const INPUT_FORMATS = [
  'swe-agent',
  'openai',
  'sharegpt',
  'mini-swe-agent',
  'openhands',
  'openhands-legacy',
  'claude-code',
  'qwen-code-chat',
  'stream-json',
  'atif',
  'terminus-traces',
] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** The agent scaffolds whose own files are read (`meta.scaffold`). */
export const SCAFFOLDS = ['swe-agent', 'mini-swe-agent', 'openhands', 'claude-code', 'qwen-code', 'terminus'] as const;
export type Scaffold = (typeof SCAFFOLDS)[number];

/** How a run ended, where the format records it. `completed` is the scaffold's own success signal. */
export interface Termination {
  /** The recorded status as written (`Submitted`, `finish`, `success`, `task_complete`, an error...). */
  status: string;
  completed: boolean;
}

/** A malformed tool call found while reading: the reason (CALL_REASONS) and a message naming the place. */
export interface CallProblem {
  reason: string;
  message: string;
}

export interface Trajectory {
  /** The input file, and `:LINE` for a JSONL row. */
  source: string;
  /** Where it was read from without this machine's folders (see `portableNamer`): seeds its id and template. */
  key?: string;
  format: InputFormat;
  /** messages[0] is always the system message ('' when the input had none). */
  messages: Message[];
  tools: ToolDef[];
  /** Where the tool definitions came from. */
  toolsFrom: 'input' | 'derived' | 'input+derived' | 'none';
  /** The input had no system message: messages[0] is the empty one added (chat templates then see none). */
  noSystem?: boolean;
  /** The calls were the agent's text actions (SWE-agent without function calling), read as shell commands. */
  callsFromText: boolean;
  /** The scaffold that wrote the file, when the format tells. */
  scaffold?: Scaffold;
  /** The task's id (SWE-bench `instance_id`, or the file name where the scaffold names files by it): the outcome join key. */
  instanceId?: string;
  /** How the run ended, when the format records it. */
  termination?: Termination;
  /** Whether the task was solved, when the file itself says (an OpenHands resolver record, a Terminus trace's reward). */
  resolved?: boolean;
  /** A subagent's own conversation (a Claude Code sidechain, a Terminus summarisation sub-trajectory). */
  subagent?: boolean;
  /** Tool names the input declares without schemas (Qwen Code's stream `init`): only the undeclared-tool check uses them. */
  declaredNames?: string[];
  /** Malformed calls found while reading (text actions that do not parse, calls against the declared tools). */
  problems?: CallProblem[];
}

/** Ledger reasons for a dropped trajectory. */
export const REASONS = {
  malformedJson: 'malformed_json',
  unreadable: 'unreadable',
  invalidUtf8: 'invalid_utf8',
  badRecord: 'bad_record',
  badToolArguments: 'bad_tool_arguments',
  unknownRole: 'unknown_role',
  unmatchedToolResult: 'unmatched_tool_result',
  empty: 'empty_trajectory',
  tooLarge: 'too_large',
  roundtrip: 'roundtrip_mismatch',
  /** A chat template's own raise_exception on this trajectory. */
  templateError: 'template_error',
  /** The jinja engine could not render the template (a feature it lacks). */
  templateUnsupported: 'template_unsupported',
  /** A chat template's render passed a bound (steps, characters, depth, time: jinja/bounds.ts). */
  templateLimit: 'template_limit',
  /** The loss mask could not be placed on a chat template's text (see jinja/mask.ts). */
  maskUnmapped: 'mask_unmapped',
  /** A prefix of a later record of the same run (a Terminus trace episode): its text is in that record. */
  episodePrefix: 'episode_prefix',
  // The report's filters (filters.ts).
  noTermination: 'no_termination',
  unresolved: 'unresolved',
  noOutcome: 'no_outcome',
} as const;

/** Malformed tool calls, each its own reason. */
export const CALL_REASONS = {
  undeclaredTool: 'undeclared_tool',
  missingArgument: 'missing_required_argument',
  argumentType: 'argument_type_mismatch',
  unparsedTextAction: 'unparsed_text_action',
  /** The scaffold refused a call its file does not keep (an OpenHands `error` observation answering no action). */
  rejectedCall: 'rejected_call',
} as const;

export class TrajectoryError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'TrajectoryError';
  }
}

/** The shell tool that text actions are read as calls of. */
export const SHELL_TOOL: ToolDef = {
  name: 'bash',
  description: "Runs a command in the agent's shell (the trajectory's text actions).",
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
};

/** A call's arguments from a JSON string or object; anything but a JSON object is refused. */
export function parseArguments(raw: unknown, where: string): Record<string, unknown> {
  let v = raw;
  if (typeof raw === 'string') {
    try {
      v = JSON.parse(raw);
    } catch (e) {
      throw new TrajectoryError(REASONS.badToolArguments, `${where}: tool-call arguments are not valid JSON (${(e as Error).message})`);
    }
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new TrajectoryError(REASONS.badToolArguments, `${where}: tool-call arguments are not a JSON object`);
  }
  return v as Record<string, unknown>;
}

/** The JSON-schema type of a value. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'string' || typeof v === 'boolean' ? typeof v : 'object';
}

/**
 * Minimal definitions for the tools a trajectory calls: names, argument keys, the type of each
 * argument's first value, and the keys every call gives as required.
 */
export function deriveTools(messages: readonly Message[], skip: ReadonlySet<string> = new Set()): ToolDef[] {
  const byName = new Map<string, { keys: Map<string, string>; required: Set<string> }>();
  for (const m of messages) {
    for (const c of m.calls ?? []) {
      if (skip.has(c.name)) continue;
      const keys = Object.keys(c.arguments);
      const t = byName.get(c.name);
      if (!t) {
        byName.set(c.name, { keys: new Map(keys.map((k) => [k, jsonType(c.arguments[k])])), required: new Set(keys) });
        continue;
      }
      for (const k of keys) if (!t.keys.has(k)) t.keys.set(k, jsonType(c.arguments[k]));
      for (const k of [...t.required]) if (!keys.includes(k)) t.required.delete(k);
    }
  }
  return [...byName].map(([name, t]) => ({
    name,
    description: `(derived from the calls in this trajectory)`,
    parameters: {
      type: 'object',
      properties: Object.fromEntries([...t.keys].map(([k, type]) => [k, { type }])),
      required: [...t.keys.keys()].filter((k) => t.required.has(k)),
    },
  }));
}

/**
 * Checks the message sequence: a known role on every message, every tool result answering a call
 * not yet answered (by id when the input gives ids, else the oldest open call), and at least one
 * assistant message.
 */
export class CallMatcher {
  private readonly open: { id: string | undefined }[] = [];

  constructor(private readonly where: string) {}

  addCalls(ids: (string | undefined)[]): void {
    for (const id of ids) this.open.push({ id });
  }

  /** Consumes the open call a tool result answers; refuses a result that answers none. */
  result(id: string | undefined, at: string): void {
    const i = id === undefined ? 0 : this.open.findIndex((c) => c.id === id);
    if (this.open.length === 0 || i < 0) {
      throw new TrajectoryError(REASONS.unmatchedToolResult, `${this.where}: ${at}: tool result${id ? ` for call "${id}"` : ''} has no matching call`);
    }
    this.open.splice(i, 1);
  }
}

/** Refuses a trajectory with nothing to train on. */
export function checkNotEmpty(messages: readonly Message[], where: string): void {
  if (messages.length <= 1) throw new TrajectoryError(REASONS.empty, `${where}: the trajectory has no messages`);
  if (!messages.some((m) => m.role === 'assistant')) throw new TrajectoryError(REASONS.empty, `${where}: the trajectory has no assistant message`);
}

/** Adds the system message a trajectory lacks, so the header is always messages[0]. */
export function withSystem(messages: Message[]): Message[] {
  return messages[0]?.role === 'system' ? messages : [{ role: 'system', content: '' }, ...messages];
}

/** Tools for a trajectory: the input's, plus derived ones for any tool it calls but does not declare. */
export function completeTools(given: ToolDef[], messages: readonly Message[], callsFromText: boolean): Pick<Trajectory, 'tools' | 'toolsFrom'> {
  if (callsFromText) return { tools: [SHELL_TOOL], toolsFrom: 'derived' };
  const derived = deriveTools(messages, new Set(given.map((t) => t.name)));
  const tools = [...given, ...derived];
  const toolsFrom = given.length && derived.length ? 'input+derived' : given.length ? 'input' : derived.length ? 'derived' : 'none';
  return { tools, toolsFrom };
}

/** The first difference between two message sequences, or undefined when they are equal (arguments as JSON values). */
export function firstDifference(want: readonly Message[], got: readonly Message[]): string | undefined {
  if (want.length !== got.length) return `${got.length} messages parsed, ${want.length} rendered`;
  for (let i = 0; i < want.length; i++) {
    const a = want[i]!;
    const b = got[i]!;
    if (a.role !== b.role) return `message ${i}: role ${b.role}, expected ${a.role}`;
    if (a.content !== b.content) return `message ${i} (${a.role}): content differs`;
    const ca = a.calls ?? [];
    const cb = b.calls ?? [];
    if (ca.length !== cb.length) return `message ${i}: ${cb.length} calls parsed, ${ca.length} rendered`;
    for (let k = 0; k < ca.length; k++) {
      if (ca[k]!.name !== cb[k]!.name) return `message ${i} call ${k}: name "${cb[k]!.name}", expected "${ca[k]!.name}"`;
      if (!isDeepStrictEqual(ca[k]!.arguments, cb[k]!.arguments)) return `message ${i} call ${k} (${ca[k]!.name}): arguments differ`;
    }
  }
  return undefined;
}
