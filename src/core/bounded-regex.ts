import vm from 'node:vm';

/**
 * The matches of a regular expression that came with the input (a scaffold's own
 * `action_regex`), found within a time bound: a pattern that backtracks without end (`(a+)+$`)
 * must cost its record, not hang the run. The search runs in a V8 context with a timeout, which
 * interrupts a regular expression mid-match; a default pattern of our own is matched directly.
 */
export interface PatternMatch {
  index: number;
  /** The whole match, then each group (undefined when it took no part). */
  groups: (string | undefined)[];
}

/** The search ran past its time bound. */
export class PatternTimeout extends Error {}

const context = vm.createContext({});
const search = new vm.Script('Array.from(text.matchAll(pattern), (m) => ({ index: m.index, groups: Array.from(m) }))');

/** Every match of a global pattern in text, or PatternTimeout after timeoutMs. */
export function matchAllWithin(pattern: RegExp, text: string, timeoutMs: number): PatternMatch[] {
  context.pattern = pattern;
  context.text = text;
  try {
    // Copied out of the context's realm: its arrays have that realm's prototypes.
    return Array.from(search.runInContext(context, { timeout: timeoutMs }) as PatternMatch[], (m) => ({ index: m.index, groups: [...m.groups] }));
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new PatternTimeout(`/${pattern.source}/ ran past ${timeoutMs} ms`);
    throw e;
  } finally {
    context.pattern = undefined;
    context.text = undefined;
  }
}
