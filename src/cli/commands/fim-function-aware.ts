import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_FUNCTION_AWARE_OPTIONS as D, MIDDLE_KINDS, resolveFunctionAwareOptions, type FunctionAwareOptions } from '../../stages/fim/function-aware/options.js';

/** The `midpack fim` options of function-aware spans; their values are checked by `resolveFunctionAwareOptions`. */
const FLAGS: [flag: string, key: keyof FunctionAwareOptions, help: string][] = [
  ['--middle <kind>', 'middle', `function-aware: the middle is the whole function or its body (${MIDDLE_KINDS.join(', ')}; default ${D.middle})`],
  ['--context-chars <n>', 'contextChars', `function-aware: budget of the files before the function's file, caller files first (default ${D.contextChars})`],
  ['--min-statements <n>', 'minStatements', `function-aware: not trivial: at least this many statements... (default ${D.minStatements})`],
  ['--min-cyclomatic <n>', 'minCyclomatic', `function-aware: ...or at least this cyclomatic complexity (default ${D.minCyclomatic})`],
  ['--max-lines <n>', 'maxLines', `function-aware: not unbounded: at most this many lines (default ${D.maxLines})`],
  ['--min-callers <n>', 'minCallers', `function-aware: at least this many call sites outside the function (default ${D.minCallers})`],
  ['--min-inferability <n>', 'minInferability', `function-aware: call sites + docstring + annotations + test callers at least this (default ${D.minInferability})`],
  ['--repo-group-chars <n>', 'repoGroupChars', `function-aware: file rows of one repository gathered up to this size (default ${D.repoGroupChars})`],
];

export function addFunctionAwareOptions(cmd: Command): void {
  for (const [flag, , help] of FLAGS) cmd.option(flag, help);
}

export function functionAwareFromCli(o: Record<string, unknown>): FunctionAwareOptions {
  try {
    return resolveFunctionAwareOptions(Object.fromEntries(FLAGS.map(([, key]) => [key, o[key]])));
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}
