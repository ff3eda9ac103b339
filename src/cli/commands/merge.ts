import type { Command } from 'commander';
import { action } from '../common.js';
import { formatSummary } from '../summary.js';
import { mergeRanks } from '../../job/merge.js';
import { mergeRemoteRanks } from '../../job/merge-remote.js';
import { isRemote } from '../../io/remote.js';

export function register(program: Command): void {
  program
    .command('merge')
    .description(
      'Join the rank outputs of a multi-rank pack run (OUT/rank-RRRRR) into one output: shards renumbered in rank order ' +
        '(hard-linked where possible), Megatron datasets concatenated, doc_lengths.u32, one manifest and report recomputed from the ranks. ' +
        'Refuses folders that are not ranks 0..W-1 of one run with the same settings and tokenizer.',
    )
    .argument('<rank_dirs...>', 'the rank output folders (any order)')
    .requiredOption('--out <dir>', 'output folder (an earlier merge there is replaced)')
    .option('--copy', 'copy the shards instead of hard-linking them', false)
    .option('--work-dir <dir>', 'with s3:// ranks and --out: the local folder the small files (manifests, reports, Megatron datasets) are merged in before they go up (default: MIDPACK_WORK_DIR, else under the temporary folder)')
    .option('--verify', "recompute every rank file's sha256 against its manifest first", false)
    .option('--allow-missing-ranks', 'merge the ranks given although some of 0..W-1 are missing (default: refused, naming them); the manifest records them as missing_ranks', false)
    .addHelpText(
      'after',
      '\nExample:\n  # sbatch --array=0-7: each task runs `midpack pack data --out out/run --seq-len 262144`\n  midpack merge out/run/rank-* --out out/run/merged --verify' +
        '\n\nIn a bucket (ranks and --out all s3://): the shards are copied inside the store (CopyObject, UploadPartCopy past 5 GiB),\nnever downloaded; s3://b/run alone stands for its rank-RRRRR prefixes:\n  midpack merge s3://b/run --out s3://b/run/merged',
    )
    .action(
      action(async (dirs: string[], opts: { out: string; copy: boolean; verify: boolean; allowMissingRanks: boolean; workDir?: string }) => {
        const remote = isRemote(opts.out) || dirs.some(isRemote);
        const options = { copy: opts.copy, verify: opts.verify, allowMissingRanks: opts.allowMissingRanks };
        const { manifest, report, shardsLinked, shardsCopied } = remote ? await mergeRemoteRanks(dirs, opts.out, { ...options, workDir: opts.workDir }) : await mergeRanks(dirs, opts.out, options);
        if (manifest.missing_ranks) process.stderr.write(`midpack: merge: --allow-missing-ranks: ranks ${manifest.missing_ranks.join(', ')} of ${manifest.world_size} are missing; ${opts.out} is not the whole run (manifest.json: missing_ranks)\n`);
        const summary = formatSummary(opts.out, manifest, report).replace(/^midpack pack/, 'midpack merge');
        process.stderr.write(`${summary}\n  ranks        ${manifest.ranks.length} of ${manifest.world_size} merged; shards ${remote ? `${shardsCopied} copied in the store, ${shardsLinked} already there` : `${shardsLinked} hard-linked, ${shardsCopied} copied`}\n`);
        if (!manifest.balanced) throw new Error('the merged manifest does not balance: some input records are unaccounted for');
      }),
    );
}
