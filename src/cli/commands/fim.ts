import type { Command } from 'commander';
import { action, addOutOptions, addSeedOption, runStage } from '../common.js';
import { addOptions, flagValues, resolveFlags } from '../options.js';
import { fimStage } from '../../stages/fim/stage.js';
import { FIM_OPTIONS, resolveFimOptions } from '../../stages/fim/options.js';
import { CODE_OPTIONS, resolveCodeOptions } from '../../stages/fim/code-options.js';
import { addFunctionAwareOptions, functionAwareFromCli } from './fim-function-aware.js';
import { fimInputDocs } from '../../stages/fim/inputs.js';

export function register(program: Command): void {
  const cmd = program
    .command('fim')
    .description(
      'Turn code documents into FIM (PSM/SPM), chat-FIM and search-and-replace FIM samples, each verified; ' +
        'documents not chosen (1 - fim rate) pass through unchanged',
    )
    .argument('<inputs...>', 'JSONL documents (text or repo kind), or code files and folders');
  addOutOptions(cmd);
  addOptions(cmd, FIM_OPTIONS);
  addOptions(cmd, CODE_OPTIONS);
  addFunctionAwareOptions(cmd);
  addSeedOption(cmd).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const fim = { ...resolveFlags(FIM_OPTIONS, o, resolveFimOptions), functionAware: functionAwareFromCli(o) };
      const code = resolveFlags(CODE_OPTIONS, o, resolveCodeOptions);
      const manifestOpts = { out: o.out as string, seed: o.seed as number, quiet: o.quiet as boolean | undefined, ...flagValues(FIM_OPTIONS, o), ...flagValues(CODE_OPTIONS, o) };
      await runStage('fim', manifestOpts, (ctx) => fimStage(fim)(fimInputDocs(inputs, ctx.ledger, ctx.seed, code.maxFileBytes), ctx));
    }),
  );
}
