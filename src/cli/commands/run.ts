import { dirname, resolve } from 'node:path';
import { packProgress } from '../progress.js';
import { Option, type Command } from 'commander';
import { action, intOption } from '../common.js';
import { loadRunConfig } from '../../job/run-config.js';
import { runPipeline, type RunPhase } from '../../job/run.js';
import { resolveRank } from '../../core/ranks.js';
import { printSummary } from '../summary.js';

export function register(program: Command): void {
  program
    .command('run')
    .description(
      'Run a whole pipeline from one config (JSON or YAML): sources and their stages, masking, tokenizer, packing and ' +
        'outputs, streamed in one process. A killed run restarted with the same command resumes.',
    )
    .argument('<config>', 'the config file (see examples/pipeline.yaml)')
    .addOption(new Option('--phase <phase>', 'all; or, for masking over several ranks: prepare (stages + segment counts), then pack (with --counts)').choices(['all', 'prepare', 'pack']).default('all'))
    .option('--counts <file>', 'merged segment counts of all ranks (`midpack mask merge OUT/rank-*/.run/mask-counts.bin --out FILE`)')
    .option('--rank <r>', 'rank of this process (default: SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX)', intOption('--rank'))
    .option('--world-size <w>', 'number of ranks (default: SLURM_ARRAY_TASK_COUNT, JOB_COMPLETIONS or MIDPACK_WORLD_SIZE)', intOption('--world-size', 1))
    .option('--workers <n>', 'tokenizer worker threads (default: the config, else the core count)', intOption('--workers', 1))
    .option('--keep-work', 'keep OUT/.run and OUT/.work after success', false)
    .option('--no-progress', 'no progress bar')
    .addHelpText(
      'after',
      '\nOne machine:   midpack run examples/pipeline.yaml\n' +
        'Many ranks:    midpack run CONFIG --rank R --world-size W        (each writes OUT/rank-RRRRR)\n' +
        '               midpack merge OUT/rank-* --out OUT/merged\n' +
        'Masked, ranks: midpack run CONFIG --phase prepare; midpack mask merge OUT/rank-*/.run/mask-counts.bin --out OUT/counts.bin;\n' +
        '               midpack run CONFIG --phase pack --counts OUT/counts.bin; midpack merge OUT/rank-* --out OUT/merged',
    )
    .action(
      action(async (configPath: string, opts: { phase: RunPhase; counts?: string; rank?: number; worldSize?: number; workers?: number; keepWork: boolean; progress: boolean }) => {
        const config = loadRunConfig(configPath);
        const counts = opts.counts === undefined ? undefined : resolve(opts.counts);
        // Config paths are relative to the config's folder: work from there (see run-config.ts).
        process.chdir(dirname(resolve(configPath)));
        const rank = resolveRank({ rank: opts.rank, worldSize: opts.worldSize });
        const keepWork = opts.keepWork || opts.phase === 'prepare';
        const progress = packProgress(opts.progress);
        const r = await runPipeline(config, { rank, phase: opts.phase, counts, workers: opts.workers, keepWork, onProgress: progress.onProgress }).finally(progress.stop);
        if (!r.summary) {
          process.stderr.write(`midpack run: prepared ${r.prepared.documents} documents in ${r.out}/.run${r.prepared.counts ? ` (segment counts: ${r.out}/.run/${r.prepared.counts})` : ''}\n`);
          return;
        }
        for (const [name, s] of Object.entries(r.prepared.stages)) {
          const dropped = Object.entries(s.ledger.dropped).map(([k, v]) => `${k} ${v}`).join(', ');
          process.stderr.write(`  ${name} (${s.type}): ${s.ledger.records_in} in, ${s.ledger.records_out} out${dropped ? `; dropped ${dropped}` : ''}${s.balanced ? '' : ' (NOT balanced)'}\n`);
        }
        printSummary(r.out, r.summary.manifest, r.summary.report);
        if (!r.summary.manifest.balanced || Object.values(r.prepared.stages).some((s) => !s.balanced)) throw new Error('the accounting does not balance');
      }),
    );
}
