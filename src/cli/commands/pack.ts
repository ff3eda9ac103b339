import { availableParallelism } from 'node:os';
import { Option, type Command } from 'commander';
import { action, intOption } from '../common.js';
import { runPackJob, PACK_DEFAULTS } from '../../job/pack-job.js';
import { printSummary } from '../summary.js';
import { packProgress } from '../progress.js';
import { rankOutDir, resolveRank } from '../../core/ranks.js';

export function register(program: Command): void {
  program
    .command('pack')
    .description(
      'Tokenize documents (JSONL .jsonl/.gz/.zst, Parquet, Arrow), best-fit pack them into bins of exactly L tokens, ' +
        'and write OUT/shards (Arrow IPC, datasets.load_from_disk), OUT/megatron (indexed datasets), manifest.json and report.json/html. ' +
        'A killed run restarted with the same command resumes and ends with the same bytes.',
    )
    .argument('<inputs...>', 'document files or folders of them')
    .requiredOption('--out <dir>', 'output folder')
    .option('--tokenizer <name|path>', 'qwen3 (shipped with the package) or a path to a tokenizer.json', PACK_DEFAULTS.tokenizer)
    .option('--workers <n>', 'tokenizer worker threads (output is identical for any count)', intOption('--workers', 1), availableParallelism())
    .option('--seq-len <L>', 'tokens per bin', intOption('--seq-len', 1), PACK_DEFAULTS.seqLen)
    .addOption(new Option('--overlong <policy>', 'documents longer than L: split (chunks of L), slide (overlapping windows), drop, boundary (cut at file boundaries, header repeated)').choices(['split', 'slide', 'drop', 'boundary']).default(PACK_DEFAULTS.overlong))
    .option('--slide-stride <n>', 'stride of the slide policy (default L/2)', intOption('--slide-stride', 1))
    .option('--window-units <n>', `planning window: units (a seeded hash spreads them over windows) placed best fit, longest first, together; about 56 bytes each (default: ${PACK_DEFAULTS.windowUnits})`, intOption('--window-units', 1))
    .option('--max-open-bins <n>', `bins kept open across windows for more units; past it the fullest closes; their units cost 20 bytes each, at most 2^21 of them (default: ${PACK_DEFAULTS.maxOpenBins})`, intOption('--max-open-bins', 1))
    .option('--pass-units <n>', `units one planning pass holds, about 56 bytes each; a corpus with more is planned in several passes over the work store (default: ${PACK_DEFAULTS.passUnits})`, intOption('--pass-units', 1))
    .option('--shuffle-seed <n>', `seed of the order bins are written in (and of the planning hash) (default: ${PACK_DEFAULTS.shuffleSeed})`, intOption('--shuffle-seed', 0), PACK_DEFAULTS.shuffleSeed)
    .option('--no-shuffle', 'write bins in plan order instead of a seeded pseudo-random order')
    .option('--rows-per-shard <n>', 'bins per Arrow shard file', intOption('--rows-per-shard', 1), PACK_DEFAULTS.rowsPerShard)
    .option('--name <name>', 'Megatron dataset name (megatron/NAME_text_document.bin/.idx)', PACK_DEFAULTS.name)
    .option('--chunk-tokens <n>', 'tokens per work chunk: how much a killed run may redo', intOption('--chunk-tokens', 1), PACK_DEFAULTS.chunkTokens)
    .option('--keep-work', 'keep OUT/.work (tokenized chunks) after a successful run', false)
    .option('--no-progress', 'no progress bar (it only shows on a terminal anyway)')
    .option('--rank <r>', 'this process is rank r of --world-size (default: from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX); outputs go to OUT/rank-RRRRR', intOption('--rank'))
    .option('--world-size <w>', 'number of ranks (default: SLURM_ARRAY_TASK_COUNT, JOB_COMPLETIONS or MIDPACK_WORLD_SIZE)', intOption('--world-size', 1))
    .addHelpText(
      'after',
      '\nExample:\n  midpack pack data-samples/docs --out out/demo --seq-len 262144 --overlong split\n  midpack report out/demo --compare',
    )
    .action(
      action(async (inputs: string[], opts) => {
        const rank = resolveRank({ rank: opts.rank, worldSize: opts.worldSize });
        const out = rankOutDir(opts.out, rank);
        const progress = packProgress(opts.progress);
        const summary = await runPackJob({
          rank,
          inputs,
          out,
          tokenizer: opts.tokenizer,
          workers: opts.workers,
          seqLen: opts.seqLen,
          overlong: opts.overlong,
          slideStride: opts.slideStride,
          windowUnits: opts.windowUnits,
          maxOpenBins: opts.maxOpenBins,
          passUnits: opts.passUnits,
          shuffleSeed: opts.shuffleSeed,
          shuffle: opts.shuffle,
          rowsPerShard: opts.rowsPerShard,
          name: opts.name,
          chunkTokens: opts.chunkTokens,
          keepWork: opts.keepWork,
          onProgress: progress.onProgress,
        }).finally(progress.stop);
        printSummary(out, summary.manifest, summary.report);
        if (!summary.manifest.balanced) throw new Error('the manifest does not balance: some input records are unaccounted for');
      }),
    );
}
