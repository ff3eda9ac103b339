import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { Ledger } from '../../core/ledger.js';
import type { StageContext } from '../../core/stage.js';
import { action, addSeedOption, intOption, runStage } from '../common.js';
import { weightsOption } from './fim.js';
import { DEFAULT_EDIT_OPTIONS, EDIT_FORMATS, editSamples, type EditFormat, type EditStats } from '../../stages/edits/edit-sample.js';
import { DEFAULT_HISTORY_OPTIONS, historyUnits, rowUnits, type EditUnit, type HistoryOptions } from '../../stages/edits/history.js';

const isGitRepo = (dir: string) => {
  try {
    return statSync(dir).isDirectory() && (statSync(join(dir, '.git'), { throwIfNoEntry: false }) !== undefined || statSync(join(dir, 'HEAD'), { throwIfNoEntry: false })?.isFile() === true);
  } catch {
    return false;
  }
};

export function register(program: Command): void {
  const cmd = program
    .command('edits')
    .description(
      'Edit samples from real history: each non-merge commit of a git repository (or each row with before, after and ' +
        'description) becomes the description, the code context, and the change as SEARCH/REPLACE blocks and/or a git diff, ' +
        'each verified (blocks applied, in-process diff apply, and real git apply --check)',
    )
    .argument('<inputs...>', 'git repositories (folders), or JSONL files of {before, after, description, path?, repo?, id?} rows')
    .requiredOption('--out <file>', 'output JSONL ("-" for stdout); OUT.manifest.json is written beside it')
    .option('--formats <list>', `answer formats (${EDIT_FORMATS.join(', ')}): "sr,diff" writes one sample per format; "sr=2,diff=1" draws one per change by weight`, 'sr,diff')
    .option('--per <unit>', 'one sample per "commit" or per changed "file"', DEFAULT_HISTORY_OPTIONS.granularity)
    .option('--rev <rev>', 'the revision whose history is walked', DEFAULT_HISTORY_OPTIONS.rev)
    .option('--max-commits <n>', 'walk at most this many commits', intOption('--max-commits', 1))
    .option('--max-file-bytes <n>', 'changed files over this size are dropped (too_large)', intOption('--max-file-bytes', 1), DEFAULT_HISTORY_OPTIONS.maxFileBytes)
    .option('--max-commit-bytes <n>', 'commits whose changed text is over this are dropped (too_large)', intOption('--max-commit-bytes', 1), DEFAULT_HISTORY_OPTIONS.maxCommitBytes)
    .option('--max-files <n>', 'commits changing more files are dropped (too_large)', intOption('--max-files', 1), DEFAULT_HISTORY_OPTIONS.maxFiles)
    .option('--related <n>', 'unchanged files of the repository added to the context as noise', intOption('--related'), DEFAULT_HISTORY_OPTIONS.related)
    .option('--repo-name <name>', 'repository name in the samples (default: the folder name)')
    .option('--mask-prompt', 'exclude the prompt from the loss', false)
    .option('--max-context-lines <n>', 'context lines a SEARCH may take on each side to become unique', intOption('--max-context-lines'), DEFAULT_EDIT_OPTIONS.maxContextLines)
    .option('--git-batch <n>', 'diffs checked by one git apply --check run', intOption('--git-batch', 1), DEFAULT_EDIT_OPTIONS.gitBatch)
    .option('--quiet', 'no per-record messages or summary');
  addSeedOption(cmd).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const spec = String(o.formats);
      const weights = weightsOption('--formats', EDIT_FORMATS)(spec) as Partial<Record<EditFormat, number>>;
      if (o.per !== 'commit' && o.per !== 'file') throw new Error(`--per must be "commit" or "file", got "${o.per}"`);
      const history: HistoryOptions = {
        ...DEFAULT_HISTORY_OPTIONS,
        rev: o.rev as string,
        maxCommits: (o.maxCommits as number | undefined) ?? Number.POSITIVE_INFINITY,
        maxFileBytes: o.maxFileBytes as number,
        maxCommitBytes: o.maxCommitBytes as number,
        maxFiles: o.maxFiles as number,
        related: o.related as number,
        granularity: o.per,
        repoName: o.repoName as string | undefined,
      };
      const editOpts = {
        ...DEFAULT_EDIT_OPTIONS,
        formats: { mode: spec.includes('=') ? ('pick' as const) : ('all' as const), weights },
        maskPrompt: o.maskPrompt as boolean,
        maxContextLines: o.maxContextLines as number,
        gitBatch: o.gitBatch as number,
      };
      const files = new Ledger();
      async function* units(ctx: StageContext): AsyncIterable<EditUnit> {
        for (const input of inputs) {
          if (isGitRepo(input)) yield* historyUnits(input, history, ctx.seed, ctx.ledger, files);
          else yield* rowUnits(input, ctx.ledger);
        }
      }
      await runStage(
        'edits',
        o as { out: string; seed: number },
        async function* (_docs, ctx) {
          yield* editSamples(units(ctx), editOpts, ctx);
          (ctx.stats.edits as EditStats).files = files.toJSON();
        },
        async function* () {},
      );
    }),
  );
}
