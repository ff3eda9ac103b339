import type { Command } from 'commander';
import { action, QUIET_HELP } from '../common.js';
import { MixtureCounts } from '../../mix/counts.js';
import { withLocalOutput } from '../../io/remote-files.js';

export function register(program: Command): void {
  const mixture = program.command('mixture').description('Token-budgeted mixtures over several ranks (docs/mixing.md)');
  mixture
    .command('merge')
    .description('Merge the mixture counts of every rank (OUT/rank-*/.run/mixture-counts.json) into the file each rank packs with (--mixture-counts)')
    .argument('<counts...>', 'mixture-counts.json of each rank')
    .requiredOption('--out <file>', 'the merged counts file')
    .option('--allow-missing-ranks', 'merge with some ranks missing (default: refused, naming them); the merged file records which are missing, and those ranks refuse it', false)
    .option('--quiet', QUIET_HELP)
    .action(
      action(async (files: string[], opts: { out: string; allowMissingRanks: boolean; quiet?: boolean }) => {
        const merged = MixtureCounts.merge(files.map((f) => ({ counts: MixtureCounts.read(f), name: f })), opts.allowMissingRanks);
        if (merged.missingRanks.length) process.stderr.write(`midpack: mixture merge: --allow-missing-ranks: ranks ${merged.missingRanks.join(', ')} of ${merged.worldSize} are missing from ${opts.out} (recorded in it)\n`);
        await withLocalOutput(opts.out, (out) => merged.write(out));
        if (!opts.quiet) {
          const per = [...merged.sources].map(([name, s]) => `${name} ${s.tokens} tokens in ${s.documents} documents`).join('; ');
          process.stderr.write(`merged the mixture counts of ${files.length} ranks: ${per}; wrote ${opts.out}\n`);
        }
      }),
    );
}
