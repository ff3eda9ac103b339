import type { Command } from 'commander';
import { action, addOutOptions, addSeedOption, runStage } from '../common.js';
import { addOptions, flagValues, resolveFlags } from '../options.js';
import { EDITS_OPTIONS, resolveEditsOptions } from '../../stages/edits/options.js';
import { editsSource } from '../../stages/edits/source.js';

export function register(program: Command): void {
  const cmd = program
    .command('edits')
    .description(
      'Edit samples from real history: each non-merge commit of a git repository (or each row with before, after and ' +
        'description) becomes the description, the code context, and the change as SEARCH/REPLACE blocks and/or a git diff, ' +
        'each verified (blocks applied, in-process diff apply, and real git apply --check). With --repos, JSONL inputs are ' +
        'pull-request instances (SWE-bench rows): the problem statement, the patch (never the test patch) as the answer, ' +
        'and a context of the touched files at base_commit, BM25-retrieved files and random ones',
    )
    .argument('<inputs...>', 'git repositories (folders), git bundles (.bundle), or JSONL files of {before, after, description, path?, repo?, id?} rows (with --repos: rows of instance_id, repo, base_commit, patch, problem_statement, hints_text?)');
  addOutOptions(cmd);
  addOptions(cmd, EDITS_OPTIONS);
  addSeedOption(cmd).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const options = resolveFlags(EDITS_OPTIONS, o, resolveEditsOptions);
      const manifestOpts = { out: o.out as string, seed: o.seed as number, quiet: o.quiet as boolean | undefined, ...flagValues(EDITS_OPTIONS, o) };
      await runStage('edits', manifestOpts, (ctx) => editsSource(inputs, options, ctx));
    }),
  );
}
