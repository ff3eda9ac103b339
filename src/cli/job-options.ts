import type { Command } from 'commander';
import { OUTCOME_DEFAULTS } from '../job/outcome.js';
import { floatOption, QUIET_HELP } from './common.js';

/** The options `pack` and `run` share: the output folder's guard, the exit rules, workers, display. */
export function addJobOptions(cmd: Command): Command {
  return cmd
    .option('--overwrite', 'replace an output folder that holds another midpack output (its listed files are removed; other files are never touched)', false)
    .option('--work-dir <dir>', 'with an s3:// --out: the local folder for the work store and the finished files until they are uploaded (default: MIDPACK_WORK_DIR, else midpack-work under the temporary folder); a rerun on the same --work-dir resumes from it')
    .option('--allow-empty', 'exit 0 even when no document is packed', OUTCOME_DEFAULTS.allowEmpty)
    .option('--max-drop-rate <x>', 'exit non-zero when a stage or pack drops more than this share of its records (1 = no limit)', floatOption('--max-drop-rate', 0, 1), OUTCOME_DEFAULTS.maxDropRate)
    .option('--force-workers', 'use --workers even when it is more than the core count', false)
    .option('--no-progress', 'no progress display (a bar on a terminal, a line every few seconds otherwise)')
    .option('--quiet', QUIET_HELP);
}
