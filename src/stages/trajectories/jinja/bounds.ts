import { Interpreter, type Environment } from '@huggingface/jinja';

/**
 * Bounds on one render of a chat template: a template is input (text that comes with a
 * downloaded model), and one that loops, recurses or builds a huge string must cost its row, not
 * the run. The interpreter counts as it goes, so a runaway render is stopped early and cheaply:
 *
 * - steps: every expression or statement evaluated, every loop iteration, every item of a list
 *   the render builds or a loop copies (`range(n)` is refused before it is made when the steps
 *   left cannot pay for it), and a step per 512 characters of a string it builds;
 * - characters: no string the render builds (a value, the text a loop has written so far, the
 *   output) may be longer than `maxChars`; `join` and `indent` are checked before they build;
 * - depth: how deeply evaluations nest (an expression inside an expression, a macro calling a
 *   macro), far below where V8's stack would overflow;
 * - wall time, checked every 256 steps: a backstop for steps that are slow (a builtin that scans
 *   a long string or list, called in a loop). It is the one bound that depends on the machine;
 *   the defaults put it far past what the others allow.
 *
 * A render past a bound throws TemplateLimit naming the bound; the stage drops the row as
 * `template_limit`.
 */
export interface RenderBounds {
  maxSteps: number;
  maxChars: number;
  maxDepth: number;
  timeoutMs: number;
  /** Adds the row's share to maxSteps and maxChars, once: called when a render first passes the constants (measuring the row costs). */
  grow?: () => void;
}

/** The bounds as the options give them (options.ts): steps and characters are a constant plus a multiple of the row's size. */
export interface TemplateBounds {
  templateMaxSteps: number;
  templateStepsRatio: number;
  templateMaxChars: number;
  templateCharsRatio: number;
  templateMaxDepth: number;
  templateTimeoutMs: number;
}

/**
 * One row's bounds, shared by its renders: `rowChars` measures the row the template sees (its
 * JSON text), only when a render passes the constant parts.
 */
export function rowBounds(b: TemplateBounds, rowChars: () => number): RenderBounds {
  const bounds: RenderBounds = {
    maxSteps: b.templateMaxSteps,
    maxChars: b.templateMaxChars,
    maxDepth: b.templateMaxDepth,
    timeoutMs: b.templateTimeoutMs,
    grow: () => {
      bounds.grow = undefined;
      const n = rowChars();
      bounds.maxSteps += Math.ceil(b.templateStepsRatio * n);
      bounds.maxChars += Math.ceil(b.templateCharsRatio * n);
    },
  };
  return bounds;
}

/** Which bound a render passed, named by the options that set it (config keys). */
export const BOUND_OPTIONS = {
  maxSteps: "templateMaxSteps + templateStepsRatio × the row's characters",
  maxChars: "templateMaxChars + templateCharsRatio × the row's characters",
  maxDepth: 'templateMaxDepth',
  timeoutMs: 'templateTimeoutMs',
} as const satisfies Record<Bound, string>;

/** The bounds a render can pass. */
export type Bound = 'maxSteps' | 'maxChars' | 'maxDepth' | 'timeoutMs';

export class TemplateLimit extends Error {
  constructor(
    readonly bound: Bound,
    what: string,
  ) {
    super(`the render passed ${BOUND_OPTIONS[bound]}: ${what}`);
    this.name = 'TemplateLimit';
  }
}

export interface RuntimeValue {
  value: unknown;
  type: string;
}
export type Node = { type: string; value?: string; callee?: Node; args?: Node[] };

/** The engine's interpreter as the subclasses use it (its .d.ts does not resolve under NodeNext, and these methods are internal). */
type InterpreterCtor = new (env: Environment) => {
  run(program: unknown): { value: string };
  evaluate(node: Node, env: Environment): RuntimeValue;
  applyFilter(operand: RuntimeValue, filterNode: Node, environment: Environment): RuntimeValue;
  bindLoopVariable(loopvar: unknown, item: RuntimeValue, scope: Environment): void;
  renderBlock(statements: unknown, scope: Environment): string;
  renderFor(node: unknown, scope: Environment): string;
  evaluateMemberExpression(expr: unknown, scope: Environment): RuntimeValue;
  evaluateTestExpression(node: { operand: Node; test: Node; negate: boolean }, scope: Environment): RuntimeValue;
};
const BaseInterpreter = Interpreter as unknown as InterpreterCtor;

const TIME_CHECK_STEPS = 256;
/** A string a step builds costs one more step per 512 characters: a builtin that scans a long string in a loop is counted. */
const STRING_STEP_BITS = 9;

/** The engine's interpreter with the bounds (none when `bounds` is undefined: the engine as it is). */
export class BoundedInterpreter extends BaseInterpreter {
  private steps = 0;
  private depth = 0;
  private readonly deadline: number;
  /**
   * The innermost loop: its scope, the characters its iterations have written, whether its next
   * block is an iteration's body, and the nesting depth it started at (an iteration starts there).
   */
  private loop: { scope?: Environment; chars: number; body: boolean; depth: number } = { chars: 0, body: false, depth: 0 };
  /** The step count at which the clock is read next. */
  private nextClock = TIME_CHECK_STEPS;
  /** The list of the loop being started: its items are charged as it is copied. */
  private iterable: Node | undefined;

  constructor(
    env: Environment,
    protected readonly bounds?: RenderBounds,
  ) {
    super(env);
    this.deadline = bounds ? performance.now() + bounds.timeoutMs : Infinity;
  }

  /** Counts n steps (n items built, or one evaluation), and checks the clock every TIME_CHECK_STEPS. */
  charge(n: number): void {
    this.steps += n;
    if (this.bounds && (this.steps > this.bounds.maxSteps || this.steps >= this.nextClock)) this.checkSteps(this.bounds);
  }

  /** Past the steps, or at a clock check. */
  private checkSteps(b: RenderBounds): void {
    if (this.steps > b.maxSteps && !(this.grown(b) && this.steps <= b.maxSteps)) throw new TemplateLimit('maxSteps', `more than ${b.maxSteps} steps`);
    this.nextClock = this.steps + TIME_CHECK_STEPS;
    if (performance.now() > this.deadline) throw new TemplateLimit('timeoutMs', `more than ${b.timeoutMs} ms`);
  }

  /** Whether the bounds grew by the row's share just now (they grow once). */
  private grown(b: RenderBounds): boolean {
    if (!b.grow) return false;
    b.grow();
    return true;
  }

  /** Refuses a string of n characters before or after it is built. */
  chars(n: number, what = 'a string'): void {
    const b = this.bounds;
    if (b && n > b.maxChars && !(this.grown(b) && n <= b.maxChars)) throw new TemplateLimit('maxChars', `${what} of ${n} characters, over ${b.maxChars}`);
  }

  override evaluate(node: Node, env: Environment): RuntimeValue {
    const b = this.bounds;
    if (!b) return super.evaluate(node, env);
    if (++this.steps > b.maxSteps || this.steps >= this.nextClock) this.checkSteps(b);
    if (++this.depth > b.maxDepth) throw new TemplateLimit('maxDepth', `evaluations nested more than ${b.maxDepth} deep`);
    // No try/finally here (it costs on every step): a break or continue that unwinds evaluations
    // is set right at the next iteration (bindLoopVariable), and any other throw ends the render.
    const v = super.evaluate(node, env);
    this.depth--;
    // Told by the value's own type (one property read per step, not several).
    const x = v.value;
    if (typeof x === 'string') {
      if (x.length > b.maxChars) this.chars(x.length);
      if (x.length >= 1 << STRING_STEP_BITS && built(node)) this.charge(x.length >>> STRING_STEP_BITS);
    } else if (Array.isArray(x)) {
      if (node === this.iterable || built(node)) this.charge(x.length);
    } else if (node === this.iterable && x instanceof Map) this.charge(x.size);
    return v;
  }

  override run(program: unknown): { value: string } {
    try {
      return super.run(program);
    } catch (e) {
      throw this.bounds ? asLimit(e, this.bounds) : e;
    }
  }

  override renderFor(node: unknown, scope: Environment): string {
    const outer = this.loop;
    const depth = this.depth;
    this.loop = { chars: 0, body: false, depth };
    // A loop copies its list before it starts, even when its body breaks at once.
    const iterable = (node as { iterable?: Node & { lhs?: Node } }).iterable;
    this.iterable = iterable?.type === 'SelectExpression' ? iterable.lhs : iterable;
    try {
      return super.renderFor(node, scope);
    } finally {
      this.loop = outer;
      this.depth = depth;
    }
  }

  override bindLoopVariable(loopvar: unknown, item: RuntimeValue, scope: Environment): void {
    super.bindLoopVariable(loopvar, item, scope);
    this.charge(1);
    this.depth = this.loop.depth;
    this.loop.scope = scope;
    this.loop.body = true;
  }

  /**
   * A block's text. The body of a loop's iteration (the first block of the loop's scope after its
   * variable is bound: an `if` inside renders in the same scope) adds its text to what the loop
   * has written, so a loop that writes without end is stopped as it writes.
   */
  override renderBlock(statements: unknown, scope: Environment): string {
    const body = this.loop.body && scope === this.loop.scope;
    if (body) this.loop.body = false;
    const out = this.blockText(statements, scope);
    if (!this.bounds) return out;
    this.chars(out.length);
    if (body) this.chars((this.loop.chars += out.length), "a loop's text");
    return out;
  }

  /** A block's text as the engine renders it; a subclass that prints differently overrides this, so what it prints is bounded too. */
  protected blockText(statements: unknown, scope: Environment): string {
    return super.renderBlock(statements, scope);
  }

  /** `join` and `indent` are checked before they build their string. */
  override applyFilter(operand: RuntimeValue, filterNode: Node, environment: Environment): RuntimeValue {
    if (this.bounds) {
      const name = filterNode.type === 'CallExpression' ? filterNode.callee?.value : filterNode.value;
      if (name === 'join' && operand.type === 'ArrayValue') this.chars(joinedLength(operand.value as RuntimeValue[], filterNode, (n) => this.evaluate(n, environment)));
      if (name === 'indent' && operand.type === 'StringValue') this.chars(indentedLength(operand.value as string, filterNode, (n) => this.evaluate(n, environment)));
    }
    return super.applyFilter(operand, filterNode, environment);
  }

  /** Python's range(); a list the steps left cannot pay for is refused before it is made (evaluate() charges it). */
  range(a: number, z?: number, step = 1): number[] {
    if (step === 0) throw new Error('range() arg 3 must not be zero');
    const [start, stop] = z === undefined ? [0, a] : [a, z];
    const n = Math.max(0, Math.ceil((stop - start) / step));
    if (!Number.isFinite(n)) throw new Error('range() arguments must be finite numbers');
    const b = this.bounds;
    if (b && this.steps + n > b.maxSteps && !(this.grown(b) && this.steps + n <= b.maxSteps)) throw new TemplateLimit('maxSteps', `range() of ${n} items, over ${b.maxSteps} steps`);
    return Array.from({ length: n }, (_, i) => start + i * step);
  }
}

/** The length `join` would write: the items' lengths and n - 1 separators (arguments evaluated once more: they are literals in practice). */
function joinedLength(items: RuntimeValue[], filterNode: Node, evaluate: (n: Node) => RuntimeValue): number {
  const sep = filterNode.args?.[0] ? String(evaluate(filterNode.args[0]).value ?? '') : '';
  let n = Math.max(0, items.length - 1) * sep.length;
  for (const x of items) n += typeof x.value === 'string' ? x.value.length : 24;
  return n;
}

/** The most `indent(width)` would write: the width before every line. */
function indentedLength(text: string, filterNode: Node, evaluate: (n: Node) => RuntimeValue): number {
  const arg = filterNode.args?.[0];
  const w = arg ? evaluate(arg.type === 'KeywordArgumentExpression' ? (arg as unknown as { value: Node }).value : arg).value : 4;
  const width = typeof w === 'string' ? w.length : typeof w === 'number' ? w : 4;
  let lines = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  return text.length + lines * Math.max(0, width);
}

/** A lookup returns a value that exists already; any other step's value was built by it. */
const built = (node: Node | undefined): boolean => node !== undefined && node.type !== 'Identifier' && node.type !== 'MemberExpression';

/** V8's own limits, reached by a step the counts did not foresee, as the bound they stand for. */
function asLimit(e: unknown, b: RenderBounds): unknown {
  if (!(e instanceof RangeError)) return e;
  if (e.message.startsWith('Invalid string length') || e.message.startsWith('Invalid array length')) return new TemplateLimit('maxChars', `${e.message} (over ${b.maxChars} characters)`);
  if (e.message.includes('call stack')) return new TemplateLimit('maxDepth', `${e.message} (evaluations nested more than ${b.maxDepth} deep)`);
  return e;
}
