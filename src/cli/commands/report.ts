import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { action, intOption } from '../common.js';
import { compareStrategies, OVERLONG_POLICIES, type OverlongPolicy } from '../../pack/index.js';
import { formatSummary } from '../summary.js';
import { formatTable } from './compare.js';
import type { ReportJson } from '../../report/figures.js';

export function register(program: Command): void {
  program
    .command('report')
    .description("Print a pack output's report; --compare gives the Table 13 comparison of five packing strategies on the run's own document lengths")
    .argument('<dir>', 'a pack output folder')
    .option('--compare', 'compare concat-then-split, RLD, PLD, BFP and BFP with the overlong policy on these lengths', false)
    .addOption(new Option('--overlong <policy>', "policy for the compared BFP (default: the run's)").choices(OVERLONG_POLICIES as string[]))
    .option('--seq-len <L>', "bin length for the comparison (default: the run's)", intOption('--seq-len', 1))
    .option('--json', 'print JSON', false)
    .action(
      action(async (dir: string, opts: { compare: boolean; overlong?: OverlongPolicy; seqLen?: number; json: boolean }) => {
        const reportPath = join(dir, 'report.json');
        if (!existsSync(reportPath)) throw new Error(`${dir}: no report.json (is it a finished midpack pack output?)`);
        const report = JSON.parse(readFileSync(reportPath, 'utf8')) as ReportJson;
        const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
        if (!opts.compare) {
          process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + '\n' : formatSummary(dir, manifest, report) + '\n');
          return;
        }
        const buf = readFileSync(join(dir, 'doc_lengths.u32'));
        const lengths = new Uint32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
        const capacity = opts.seqLen ?? report.packing.seq_len;
        const overlong = opts.overlong ?? (report.packing.overlong_policy as OverlongPolicy);
        const figures = await compareStrategies(lengths, { capacity, overlong });
        process.stdout.write(opts.json ? JSON.stringify(figures, null, 2) + '\n' : formatTable(figures, capacity));
      }),
    );
}
