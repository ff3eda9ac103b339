import { CALL_REASONS, REASONS, TrajectoryError, jsonType, type CallProblem, type Message, type ToolDef, type Trajectory } from './model.js';
import { readFileAnySync } from '../../io/storage.js';

/**
 * The Qwen3-Coder-Next report's trajectory filters, each dropping by a named reason:
 *
 *   no_termination   the format records how the run ended and it is not the scaffold's own end
 *                    (an exit status other than submitted, no `finish`, an error result, no
 *                    confirmed task completion); formats that record nothing are not judged
 *   unresolved       --require resolved, and the outcome (an --outcomes report, or the record's
 *                    own label) says unsolved
 *   no_outcome       --require resolved, and no outcome is known for the trajectory's task
 *                    (--require any keeps every outcome; the joined one is in meta.resolved)
 *   undeclared_tool, missing_required_argument, argument_type_mismatch, unparsed_text_action,
 *   rejected_call    a malformed tool call (checkCalls here; a reader's text-action parser; a call
 *                    the scaffold refused and its file does not keep)
 *
 * Checked in this order; the first reason met is the one counted.
 */
export type RequireOutcome = 'resolved' | 'any';

export interface TrajectoryFilters {
  requireTermination: boolean;
  requireValidCalls: boolean;
  require: RequireOutcome;
  /** Instance id → resolved, from --outcomes files. */
  outcomes?: ReadonlyMap<string, boolean>;
}

/** The reason a trajectory is dropped by the filters, or undefined when it is kept. */
export function filterTrajectory(t: Trajectory, f: TrajectoryFilters): TrajectoryError | undefined {
  const drop = (reason: string, why: string) => new TrajectoryError(reason, `${t.source}: ${why}`);
  if (f.requireTermination && t.termination && !t.termination.completed) {
    return drop(REASONS.noTermination, `the run did not end by itself (${t.termination.status})`);
  }
  // --require any: every outcome is kept (the joined one is in meta.resolved).
  const resolved = f.require === 'resolved' ? outcomeOf(t, f.outcomes) : true;
  if (resolved === false) return drop(REASONS.unresolved, `instance ${t.instanceId ?? '(unnamed)'} is not resolved`);
  if (resolved === undefined) return drop(REASONS.noOutcome, t.instanceId ? `no outcome for instance ${t.instanceId}` : 'no instance id to join an outcome by');
  const bad = f.requireValidCalls ? t.problems?.[0] : undefined;
  if (bad) return new TrajectoryError(bad.reason, bad.message);
  return undefined;
}

/** The joined outcome (an --outcomes report wins over the record's own label), or undefined. */
export function outcomeOf(t: Trajectory, outcomes?: ReadonlyMap<string, boolean>): boolean | undefined {
  const joined = t.instanceId === undefined ? undefined : outcomes?.get(t.instanceId);
  return joined ?? t.resolved;
}

/**
 * Instance id → resolved from SWE-bench-style reports: a per-instance `report.json`
 * ({ID: {resolved, ...}}), a run summary ({resolved_ids, unresolved_ids, ...}), or JSONL rows
 * {instance_id, resolved}. A file that is none of these, or gives one id two outcomes, is refused
 * with an error naming it.
 */
export function loadOutcomes(files: readonly string[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const set = (file: string, id: string, resolved: boolean) => {
    if (out.has(id) && out.get(id) !== resolved) throw new Error(`--outcomes ${file}: instance ${id} is both resolved and unresolved`);
    out.set(id, resolved);
  };
  for (const file of files) {
    let text: string;
    try {
      text = readFileAnySync(file).toString('utf8');
    } catch (e) {
      throw new Error(`--outcomes ${file}: ${(e as Error).message}`);
    }
    for (const [id, resolved] of outcomeEntries(text, file)) set(file, id, resolved);
  }
  return out;
}

function outcomeEntries(text: string, file: string): [string, boolean][] {
  const bad = (why: string): never => {
    throw new Error(`--outcomes ${file}: ${why} (expected a SWE-bench report {ID: {resolved}}, a run summary with resolved_ids/unresolved_ids, or JSONL {instance_id, resolved})`);
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text.split('\n').filter((l) => l.trim() !== '').map((l, i) => jsonlOutcome(l, `line ${i + 1}`, bad));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad('not a JSON object');
  const o = value as Record<string, unknown>;
  if (Array.isArray(o.resolved_ids) || Array.isArray(o.unresolved_ids)) {
    const ids = (k: string) => (Array.isArray(o[k]) ? (o[k] as unknown[]).filter((x): x is string => typeof x === 'string') : []);
    return [...ids('resolved_ids').map((id): [string, boolean] => [id, true]), ...ids('unresolved_ids').map((id): [string, boolean] => [id, false])];
  }
  if (typeof o.instance_id === 'string') return [jsonlOutcome(text, 'the object', bad)];
  return Object.entries(o).map(([id, r]) => {
    const resolved = r !== null && typeof r === 'object' ? (r as Record<string, unknown>).resolved : undefined;
    return typeof resolved === 'boolean' ? [id, resolved] : bad(`"${id}" has no boolean "resolved"`);
  });
}

function jsonlOutcome(line: string, at: string, bad: (why: string) => never): [string, boolean] {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return bad(`${at} is not JSON`);
  }
  const o = (v ?? {}) as Record<string, unknown>;
  if (typeof o.instance_id !== 'string' || typeof o.resolved !== 'boolean') return bad(`${at} has no instance_id and boolean resolved`);
  return [o.instance_id, o.resolved];
}

/**
 * Calls checked against the tools the input declares (none declared: nothing to check): a tool not
 * declared, a required argument missing, an argument whose JSON type contradicts its declared
 * `type`. `names` are tools declared by name only (no schema): only the first check applies.
 */
export function checkCalls(messages: readonly Message[], declared: readonly ToolDef[], names: readonly string[] | undefined, where: string): CallProblem[] {
  if (declared.length === 0 && !names?.length) return [];
  const byName = new Map(declared.map((t) => [t.name, t]));
  const known = new Set([...byName.keys(), ...(names ?? [])]);
  const problems: CallProblem[] = [];
  messages.forEach((m, i) => {
    for (const c of m.calls ?? []) {
      const at = `${where}: message ${i}: call of "${c.name}"`;
      if (!known.has(c.name)) {
        problems.push({ reason: CALL_REASONS.undeclaredTool, message: `${at}: the tool is not declared (declared: ${[...known].join(', ')})` });
        continue;
      }
      const def = byName.get(c.name);
      if (def) problems.push(...argumentProblems(c.arguments, def, at));
    }
  });
  return problems;
}

function argumentProblems(args: Record<string, unknown>, def: ToolDef, at: string): CallProblem[] {
  const problems: CallProblem[] = [];
  for (const key of def.parameters.required ?? []) {
    if (!(key in args)) problems.push({ reason: CALL_REASONS.missingArgument, message: `${at}: required argument "${key}" is missing` });
  }
  for (const [key, value] of Object.entries(args)) {
    const types = declaredTypes(def.parameters.properties[key]);
    if (types && !types.some((t) => typeMatches(value, t))) {
      problems.push({ reason: CALL_REASONS.argumentType, message: `${at}: argument "${key}" is ${jsonType(value)}, the schema says ${types.join(' or ')}` });
    }
  }
  return problems;
}

/** A property's declared JSON types; undefined when the schema does not pin one (no `type`, or a combinator). */
function declaredTypes(prop: Record<string, unknown> | undefined): string[] | undefined {
  if (!prop) return undefined;
  if (typeof prop.type === 'string') return [prop.type];
  if (Array.isArray(prop.type) && prop.type.every((t) => typeof t === 'string')) return prop.type as string[];
  return undefined;
}

function typeMatches(value: unknown, type: string): boolean {
  const actual = jsonType(value);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  if (!['string', 'integer', 'boolean', 'object', 'array', 'null'].includes(type)) return true; // a type we do not know is not contradicted
  return actual === type;
}
