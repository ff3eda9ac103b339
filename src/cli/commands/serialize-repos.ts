import type { Command } from 'commander';
import { action, addOutOptions, addSeedOption, runStage } from '../common.js';
import { addOptions, flagValues, resolveFlags } from '../options.js';
import { REPOS_OPTIONS, resolveReposOptions } from '../../stages/repos/options.js';
import { reposSource } from '../../stages/sources.js';

export function register(program: Command): void {
  const cmd = program
    .command('serialize-repos')
    .description(
      'Serialize repositories into documents in the Qwen2.5-Coder repository format (<|repo_name|>, <|file_sep|>). ' +
        'INPUT: a folder of repositories, one repository, a git checkout (files tracked at HEAD), or JSONL/Parquet file rows ' +
        'with repo_name, path, content.',
    )
    .argument('<input...>', 'folders, git checkouts, .jsonl(.gz/.zst) or .parquet row files');
  addOutOptions(cmd);
  addOptions(cmd, REPOS_OPTIONS);
  addSeedOption(cmd).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const options = resolveFlags(REPOS_OPTIONS, o, resolveReposOptions);
      const manifestOpts = { out: o.out as string, seed: o.seed as number, quiet: o.quiet as boolean | undefined, ...flagValues(REPOS_OPTIONS, o) };
      await runStage('serialize-repos', manifestOpts, (ctx) => reposSource(inputs, options, ctx));
    }),
  );
}
