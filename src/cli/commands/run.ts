import { dirname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { action, intOption } from '../common.js';
import { checkOutcome } from '../../job/outcome.js';
import { addJobOptions } from '../job-options.js';
import { stageTimeLine, type StageTime } from '../../job/stage-times.js';
import { phaseProgress } from '../phase-progress.js';
import { loadRunConfig } from '../../job/run-config.js';
import { runPipeline, type RunPhase } from '../../job/run.js';
import { resolveRankAt } from '../../core/ranks.js';
import { printSummary } from '../summary.js';
import { isRemote } from '../../io/remote.js';
import { groupedNumber } from '../../core/format.js';

export function register(program: Command): void {
  const cmd = program
    .command('run')
    .description(
      'Run a whole pipeline from one config (JSON or YAML): sources and their stages, masking, tokenizer, packing and ' +
        'outputs, streamed in one process. A killed run restarted with the same command resumes.',
    )
    .argument('<config>', 'the config file (see examples/pipeline.yaml)')
    .addOption(new Option('--phase <phase>', 'all; or, over several ranks: prepare (stages + segment counts), count (prepare + mixture token counts), then pack (with --counts, --mixture-counts)').choices(['all', 'prepare', 'count', 'pack']).default('all'))
    .option('--counts <file>', 'merged segment counts of all ranks (`midpack mask merge OUT/rank-*/.run/mask-counts.bin --out FILE`)')
    .option('--mixture-counts <file>', 'merged mixture counts of all ranks (`midpack mixture merge OUT/rank-*/.run/mixture-counts.json --out FILE`)')
    .option('--strict-mixture', 'a mixture target that cannot be met within maxRepeat is an error (default: a message and the shortfall in the report)', false)
    .option('--rank <r>', 'rank of this process (default: the Slurm array task, relative to the array as first submitted, which OUT/.midpack-ranks.json records; or JOB_COMPLETION_INDEX)', intOption('--rank'))
    .option('--world-size <w>', 'number of ranks (default: the config\'s worldSize, MIDPACK_WORLD_SIZE, JOB_COMPLETIONS, OUT/.midpack-ranks.json, else the Slurm array\'s span (MAX-MIN)/STEP+1)', intOption('--world-size', 1))
    .option('--workers <n>', 'worker threads: while preparing, n of them run the sources beside the main thread (1: all on the main thread); while packing, n tokenizers (default: the config, else the core count)', intOption('--workers', 1))
    .option('--memory-mb <mb>', "the run's memory budget: a quarter to the mask count table, an eighth to the edits context caches, a quarter to a planning pass, unless the config sets them (default: the config's memoryMb, else 1024)", intOption('--memory-mb', 64))
    .option('--keep-work', 'keep OUT/.run and OUT/.work after success', false);
  addJobOptions(cmd)
    .addHelpText(
      'after',
      '\nOne machine:   midpack run examples/pipeline.yaml\n' +
        'Many ranks:    midpack run CONFIG --rank R --world-size W        (each writes OUT/rank-RRRRR)\n' +
        '               midpack merge OUT/rank-* --out OUT/merged\n' +
        'Masked, ranks: midpack run CONFIG --phase prepare; midpack mask merge OUT/rank-*/.run/mask-counts.bin --out OUT/counts.bin;\n' +
        '               midpack run CONFIG --phase pack --counts OUT/counts.bin; midpack merge OUT/rank-* --out OUT/merged',
    )
    .action(
      action(async (configPath: string, opts: { phase: RunPhase; counts?: string; mixtureCounts?: string; strictMixture: boolean; rank?: number; worldSize?: number; workers?: number; memoryMb?: number; keepWork: boolean; progress: boolean; overwrite: boolean; workDir?: string; allowEmpty: boolean; maxDropRate: number; forceWorkers: boolean; quiet?: boolean }) => {
        const config = loadRunConfig(configPath);
        const counts = opts.counts === undefined || isRemote(opts.counts) ? opts.counts : resolve(opts.counts);
        const mixtureCounts = opts.mixtureCounts === undefined || isRemote(opts.mixtureCounts) ? opts.mixtureCounts : resolve(opts.mixtureCounts);
        // A --work-dir is relative to where the command was given; the config's workDir to the config's folder.
        const workDir = opts.workDir === undefined ? config.workDir : resolve(opts.workDir);
        // Config paths are relative to the config's folder: work from there (see run-config.ts).
        process.chdir(dirname(resolve(configPath)));
        const rank = resolveRankAt(config.out, { rank: opts.rank, worldSize: opts.worldSize ?? config.worldSize });
        const keepWork = opts.keepWork || opts.phase === 'prepare' || opts.phase === 'count';
        const progress = opts.progress && !opts.quiet ? phaseProgress('run') : undefined;
        // Not on a terminal (a log): one line as each stage finishes.
        const onStageTime = progress && !process.stderr.isTTY ? (name: string, t: StageTime) => process.stderr.write(`midpack: run: stage ${stageTimeLine(name, t)}\n`) : undefined;
        const r = await runPipeline(config, { rank, phase: opts.phase, counts, workers: opts.workers, memoryMb: opts.memoryMb, keepWork, onProgress: progress?.onProgress, overwrite: opts.overwrite, workDir, forceWorkers: opts.forceWorkers, mixtureCounts, strictMixture: opts.strictMixture, onStageTime }).finally(() => progress?.stop());
        if (!r.summary) {
          const mixture = opts.phase === 'count' ? `; mixture counts: ${r.out}/.run/mixture-counts.json` : '';
          if (!opts.quiet) process.stderr.write(`midpack run: prepared ${r.prepared.documents} documents in ${r.out}/.run${r.prepared.counts ? ` (segment counts: ${r.out}/.run/${r.prepared.counts})` : ''}${mixture}\n`);
          return;
        }
        if (!opts.quiet) {
          for (const [name, s] of Object.entries(r.prepared.stages)) {
            const dropped = Object.entries(s.ledger.dropped).map(([k, v]) => `${k} ${v}`).join(', ');
            process.stderr.write(`  ${name} (${s.type}): ${s.ledger.records_in} in, ${s.ledger.records_out} out${dropped ? `; dropped ${dropped}` : ''}${s.balanced ? '' : ' (NOT balanced)'}\n`);
          }
          for (const [name, t] of Object.entries(r.stageTimes ?? {})) process.stderr.write(`  time         ${stageTimeLine(name, t)}\n`);
          printSummary(r.out, r.summary.manifest, r.summary.report);
          const mix = r.summary.report.mixture;
          if (mix) {
            const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
            for (const [name, s] of Object.entries(mix.sources)) {
              process.stderr.write(`  mixture      ${name}: target ${pct(s.target_share)}, achieved ${pct(s.achieved_share)} (${groupedNumber(s.achieved_tokens)} tokens of ${groupedNumber(s.available_tokens)} available, factor ${s.repeat_factor.toFixed(3)})${s.reason ? `: ${s.reason}` : ''}\n`);
            }
            if (mix.blend) process.stderr.write(`  blend        ${r.out}/${mix.blend.file}: ${mix.blend.data_path}\n`);
          }
        }
        if (!r.summary.manifest.balanced || Object.values(r.prepared.stages).some((s) => !s.balanced)) throw new Error('the accounting does not balance');
        const ledgers = Object.fromEntries([...Object.entries(r.prepared.stages).map(([k, s]) => [k, s.ledger] as const), ['pack', r.summary.manifest.ledger] as const]);
        checkOutcome(r.summary.manifest.ledger, ledgers, { allowEmpty: opts.allowEmpty, maxDropRate: opts.maxDropRate }, rank.worldSize);
      }),
    );
}
