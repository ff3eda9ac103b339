import { Environment, Template } from '@huggingface/jinja';
import { REASONS, TrajectoryError } from '../model.js';
import { BoundedInterpreter, TemplateLimit, type Node, type RenderBounds, type RuntimeValue } from './bounds.js';

/**
 * Renders a chat template the way transformers' `apply_chat_template` does, with
 * @huggingface/jinja (Hugging Face's JavaScript Jinja for chat templates): the context holds
 * `messages`, `tools`, `documents` (none), `add_generation_prompt`, the special tokens given
 * (`bos_token`, `eos_token`), the template kwargs, and the globals transformers adds:
 * `raise_exception(message)` and `strftime_now(format)`.
 *
 * `strftime_now` answers for a fixed date, TEMPLATE_DATE (26 July 2024, the date Llama 3.1's
 * template falls back to), so a render is the same every day; `--template-kwargs` can still set
 * a template's own date variable.
 *
 * Two gaps of @huggingface/jinja 0.5 against Python Jinja are filled here, both used by the
 * published Qwen3-Coder template: the `reject`/`select` filters with a test name (`"in"` or any
 * test the engine knows).
 */
export const TEMPLATE_DATE = new Date(Date.UTC(2024, 6, 26));

/** A template's own `raise_exception` call: the trajectory is dropped as `template_error` with its message. */
export class TemplateRaise extends Error {}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad2 = (n: number) => String(n).padStart(2, '0');

/** Python's strftime for the fields chat templates use, on TEMPLATE_DATE (UTC). */
export function strftime(format: string, d: Date = TEMPLATE_DATE): string {
  const fields: Record<string, string> = {
    Y: String(d.getUTCFullYear()),
    y: pad2(d.getUTCFullYear() % 100),
    m: pad2(d.getUTCMonth() + 1),
    d: pad2(d.getUTCDate()),
    e: String(d.getUTCDate()).padStart(2, ' '),
    B: MONTHS[d.getUTCMonth()]!,
    b: MONTHS[d.getUTCMonth()]!.slice(0, 3),
    A: DAYS[d.getUTCDay()]!,
    a: DAYS[d.getUTCDay()]!.slice(0, 3),
    H: pad2(d.getUTCHours()),
    M: pad2(d.getUTCMinutes()),
    S: pad2(d.getUTCSeconds()),
    j: String(Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 864e5) + 1).padStart(3, '0'),
    '%': '%',
  };
  return format.replace(/%([A-Za-z%])/g, (all, f: string) => fields[f] ?? all);
}

const GLOBALS = {
  false: false,
  true: true,
  none: null,
  False: false,
  True: true,
  None: null,
  raise_exception: (message: unknown) => {
    throw new TemplateRaise(String(message));
  },
  strftime_now: (format: string) => strftime(format),
};

/** Statement nodes a block renders that are not expressions printed (the engine's own, and those that evaluate to nothing). */
const NOT_EXPRESSIONS = new Set(['StringLiteral', 'If', 'For', 'Set', 'Comment', 'Macro', 'CallStatement', 'FilterStatement', 'Break', 'Continue']);

/** Marks in a marked render: where the loop iteration over message K starts (MARK K END), and where that loop ends. */
export const MARK = '\uE002';
export const MARK_END = '\uE003';
export const LOOP_END = '\uE004';

/**
 * The engine's interpreter with `reject`/`select` by a named test, and, when `messages` is
 * given, marks: every loop iteration over one of these message objects that writes text is
 * preceded by MARK k MARK_END, and a loop that wrote such iterations is followed by LOOP_END.
 * The template's logic never sees the marks: they are added to the text a loop returns.
 */
class ChatInterpreter extends BoundedInterpreter {
  private pending: { k: number; scope: Environment } | undefined;
  private marked = 0;

  constructor(
    env: Environment,
    private readonly messages?: Map<unknown, number>,
    bounds?: RenderBounds,
  ) {
    super(env, bounds);
  }

  override bindLoopVariable(loopvar: unknown, item: RuntimeValue, scope: Environment): void {
    super.bindLoopVariable(loopvar, item, scope);
    const k = this.messages?.get(item);
    if (k !== undefined) this.pending = { k, scope };
  }

  override renderBlock(statements: unknown, scope: Environment): string {
    const p = this.pending;
    if (p === undefined || p.scope !== scope) return super.renderBlock(statements, scope);
    this.pending = undefined;
    const out = super.renderBlock(statements, scope);
    if (out === '') return out;
    this.marked++;
    return `${MARK}${p.k}${MARK_END}${out}`;
  }

  /**
   * The engine's block rendering, except that an expression that is None prints `None`, as in
   * Python's Jinja (GLM-4.6 and MiniMax-M2 write an OpenAI tool-call message's `content: null`);
   * the engine prints nothing. Runs of statements are handed to the engine as they are.
   */
  protected override blockText(block: unknown, scope: Environment): string {
    const statements = block as Node[];
    let out = '';
    let from = 0;
    for (let i = 0; i < statements.length; i++) {
      if (NOT_EXPRESSIONS.has(statements[i]!.type)) continue;
      if (from < i) out += super.blockText(statements.slice(from, i), scope);
      const v = this.evaluate(statements[i]!, scope);
      out += v.type === 'NullValue' ? 'None' : v.type === 'UndefinedValue' ? '' : String(v);
      from = i + 1;
    }
    return from === 0 ? super.blockText(statements, scope) : from < statements.length ? out + super.blockText(statements.slice(from), scope) : out;
  }

  /** A mapping subscripted by an undefined value is undefined to Python Jinja (Hermes-3's `basic_type_map[json_spec.type]`). */
  override evaluateMemberExpression(expr: unknown, scope: Environment): RuntimeValue {
    try {
      return super.evaluateMemberExpression(expr, scope);
    } catch (e) {
      if (!(e instanceof Error) || e.message !== 'Cannot access property with non-string: got UndefinedValue') throw e;
      return this.evaluate({ type: 'Identifier', value: '\u0000undefined' }, scope);
    }
  }

  /** Python Jinja holds an undefined value iterable (Hermes-3's `json_spec.type is iterable` on a list). */
  override evaluateTestExpression(node: { operand: Node; test: Node; negate: boolean }, scope: Environment): RuntimeValue {
    if (node.test.value !== 'iterable') return super.evaluateTestExpression(node, scope);
    const v = this.evaluate(node.operand, scope);
    const yes = ['UndefinedValue', 'ArrayValue', 'ObjectValue', 'StringValue', 'TupleValue'].includes(v.type);
    return this.evaluate({ type: 'Identifier', value: yes !== node.negate ? 'true' : 'false' }, scope);
  }

  /** A string runtime value (the engine's StringValue class, reached through a value it made). */
  private str(v: string): RuntimeValue {
    return this.evaluate({ type: 'StringLiteral', value: v }, undefined as never);
  }

  override renderFor(node: unknown, scope: Environment): string {
    const before = this.marked;
    let out: string;
    try {
      out = super.renderFor(node, scope);
    } catch (e) {
      // Python Jinja iterates an undefined value as an empty list: the loop's else block.
      if (!(e instanceof Error) || e.message !== 'Expected iterable or object type in for loop: got UndefinedValue') throw e;
      return this.renderBlock((node as { defaultBlock?: unknown[] }).defaultBlock ?? [], scope);
    }
    return this.marked > before ? out + LOOP_END : out;
  }

  override applyFilter(operand: RuntimeValue, filterNode: Node, environment: Environment): RuntimeValue {
    if (filterNode.type === 'Identifier') {
      // Python's str() of a dict, list, bool or None (Qwen3-Coder's templates write `args_value | string`, `False`).
      if (filterNode.value === 'string' && ['ObjectValue', 'ArrayValue', 'BooleanValue', 'NullValue'].includes(operand.type)) return this.str(pyRepr(operand));
      // An undefined value is '' to Python Jinja's string filters (Hermes-3: `param_fields.description | trim`).
      if (operand.type === 'UndefinedValue' && ['trim', 'lower', 'upper', 'string'].includes(filterNode.value!)) return this.str('');
    }
    const name = filterNode.type === 'CallExpression' ? filterNode.callee?.value : undefined;
    if ((name === 'reject' || name === 'select') && operand.type === 'ArrayValue') {
      const [testName, ...args] = (filterNode.args ?? []).map((a) => this.evaluate(a, environment));
      const items = operand.value as RuntimeValue[];
      const test = testFunction(String(testName?.value), environment);
      const kept = items.filter((x) => test(x, ...args) === (name === 'select'));
      return new (operand.constructor as new (v: RuntimeValue[]) => RuntimeValue)(kept);
    }
    return super.applyFilter(operand, filterNode, environment);
  }
}

/** Python's repr() of a JSON value held as engine runtime values, as str() of a dict or list writes it. */
export function pyRepr(v: RuntimeValue): string {
  switch (v.type) {
    case 'ObjectValue':
    case 'KeywordArgumentsValue':
      return `{${[...(v.value as Map<string, RuntimeValue>)].map(([k, x]) => `${pyStr(k)}: ${pyRepr(x)}`).join(', ')}}`;
    case 'ArrayValue':
    case 'TupleValue':
      return `[${(v.value as RuntimeValue[]).map(pyRepr).join(', ')}]`;
    case 'StringValue':
      return pyStr(v.value as string);
    case 'BooleanValue':
      return v.value ? 'True' : 'False';
    case 'NullValue':
    case 'UndefinedValue':
      return 'None';
    case 'FloatValue': {
      const n = v.value as number;
      return Number.isInteger(n) ? `${n}.0` : String(n);
    }
    default:
      return String(v.value);
  }
}

/** Python's repr() of a str: single quotes unless it holds ' and no ", escapes for controls. */
export function pyStr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/[\\\n\r\t\x00-\x1f\x7f-\xa0\u2028\u2029'"]/g, (c) => {
    if (c === '\\') return '\\\\';
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    if (c === "'" || c === '"') return c === q ? `\\${c}` : c;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return q + body + q;
}

function testFunction(name: string, env: Environment): (x: RuntimeValue, ...args: RuntimeValue[]) => boolean {
  if (name === 'in') {
    return (x, list) => Array.isArray(list?.value) && (list.value as RuntimeValue[]).some((y) => y.value === x.value);
  }
  const t = (env as unknown as { tests: Map<string, (...a: RuntimeValue[]) => boolean> }).tests.get(name);
  if (!t) throw new Error(`Unknown test: ${name}`);
  return t;
}

/** A parsed template; parse errors are reported by the caller with the template's name. */
export function parseTemplate(text: string): Template {
  return new Template(text);
}

/**
 * Renders with the context transformers builds. A `raise_exception` call throws TemplateRaise, a
 * render past one of `bounds` TemplateLimit (bounds.ts); any other engine error is rethrown as is. With `mark`, the text carries the message marks
 * described at ChatInterpreter.
 */
export function renderTemplate(template: Template, context: Record<string, unknown>, mark = false, bounds?: RenderBounds): string {
  const env = new Environment();
  for (const [k, v] of Object.entries({ ...GLOBALS, ...context })) env.set(k, v);
  const program = (template as unknown as { parsed: unknown }).parsed;
  let messages: Map<unknown, number> | undefined;
  if (mark) {
    const list = (env as unknown as { variables: Map<string, { value: unknown[] }> }).variables.get('messages')?.value ?? [];
    messages = new Map(list.map((m, k) => [m, k]));
  }
  const interpreter = new ChatInterpreter(env, messages, bounds);
  if (!('range' in context)) env.set('range', (a: number, b?: number, step?: number) => interpreter.range(a, b, step));
  return interpreter.run(program).value;
}

/** A render failure as the ledger's reason: the template's own message, or the engine's. */
export function templateFailure(e: unknown, where: string): TrajectoryError {
  if (e instanceof TrajectoryError) return e;
  if (e instanceof TemplateRaise) return new TrajectoryError(REASONS.templateError, `${where}: the template raised: ${e.message}`);
  if (e instanceof TemplateLimit) return new TrajectoryError(REASONS.templateLimit, `${where}: ${e.message}`);
  return new TrajectoryError(REASONS.templateUnsupported, `${where}: jinja: ${(e as Error).message}`);
}
