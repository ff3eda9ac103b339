import { availableParallelism } from 'node:os';
import { Option, type Command } from 'commander';
import { action, intOption } from '../common.js';
import { checkOutcome } from '../../job/outcome.js';
import { addJobOptions } from '../job-options.js';
import { addOptions, resolveFlags } from '../options.js';
import { PACK_OPTIONS, resolvePackOptions } from '../../job/pack-options.js';
import { runPackJob, PACK_DEFAULTS } from '../../job/pack-job.js';
import { printSummary } from '../summary.js';
import { phaseProgress } from '../phase-progress.js';
import { rankOutDir, resolveRankAt } from '../../core/ranks.js';

export function register(program: Command): void {
  const cmd = program
    .command('pack')
    .description(
      'Tokenize documents (JSONL .jsonl/.gz/.zst, Parquet, Arrow), best-fit pack them into bins of exactly L tokens, ' +
        'and write OUT/shards (Arrow IPC, datasets.load_from_disk), OUT/megatron (indexed datasets), manifest.json and report.json/html. ' +
        'A killed run restarted with the same command resumes and ends with the same bytes.',
    )
    .argument('<inputs...>', 'document files or folders of them')
    .requiredOption('--out <dir>', 'output folder')
    .option('--tokenizer <name|path>', 'qwen3 (shipped with the package) or a path to a tokenizer.json', PACK_DEFAULTS.tokenizer)
    .addOption(new Option('--workers <n>', 'tokenizer worker threads; output is identical for any count').argParser(intOption('--workers', 1)).default(availableParallelism(), 'the core count'))
    .option('--keep-work', 'keep OUT/.work (tokenized chunks) after a successful run', false)
    .option('--text-field <name>', 'the JSON field or column that holds the text (default: text)');
  addJobOptions(cmd)
    .option('--rank <r>', 'this process is rank r of --world-size (default: the Slurm array task, relative to the array as first submitted, which OUT/.midpack-ranks.json records; or JOB_COMPLETION_INDEX); outputs go to OUT/rank-RRRRR', intOption('--rank'))
    .option('--world-size <w>', 'number of ranks (default: MIDPACK_WORLD_SIZE, JOB_COMPLETIONS, OUT/.midpack-ranks.json, else the Slurm array\'s span (MAX-MIN)/STEP+1)', intOption('--world-size', 1))
    .addHelpText(
      'after',
      '\nExample:\n  midpack pack data-samples/docs --out out/demo --seq-len 262144 --overlong split\n  midpack report out/demo --compare' +
        '\n\nOutputs are written past the page cache (O_DIRECT) where the filesystem allows it;\nMIDPACK_DIRECT_IO=off writes them through the cache (same bytes), for a filesystem where direct writes are slow.',
    );
  addOptions(cmd, PACK_OPTIONS).action(
      action(async (inputs: string[], opts) => {
        const packOptions = resolveFlags(PACK_OPTIONS, opts, resolvePackOptions);
        const rank = resolveRankAt(opts.out, { rank: opts.rank, worldSize: opts.worldSize });
        const out = rankOutDir(opts.out, rank);
        const progress = opts.progress && !opts.quiet ? phaseProgress('pack') : undefined;
        const summary = await runPackJob({
          rank,
          inputs,
          out,
          tokenizer: opts.tokenizer,
          workers: opts.workers,
          ...packOptions,
          keepWork: opts.keepWork,
          onProgress: progress?.onProgress,
          textField: opts.textField,
          overwrite: opts.overwrite,
          workDir: opts.workDir,
          forceWorkers: opts.forceWorkers,
        });
        progress?.stop();
        if (!opts.quiet) printSummary(out, summary.manifest, summary.report);
        if (!summary.manifest.balanced) throw new Error('the manifest does not balance: some input records are unaccounted for');
        checkOutcome(summary.manifest.ledger, { pack: summary.manifest.ledger }, { allowEmpty: opts.allowEmpty, maxDropRate: opts.maxDropRate }, rank.worldSize);
      }),
    );
}
