import type { Command } from 'commander';
import { defaultContext } from '../../core/stage.js';
import { ownedBy, resolveRank } from '../../core/ranks.js';
import { readDocuments } from '../../io/documents.js';
import { action, intOption, printLedger, QUIET_HELP, runStage, writeStageManifest } from '../common.js';
import { countSegments, DEFAULT_SAMPLES, loadFrequent, maskApply, mergeCountsFiles, readCountsHeader, readSamples } from '../../stages/mask/index.js';
import { MASK_APPLY_KEYS, MASK_COUNT_KEYS, MASK_OPTIONS, resolveMaskOptions } from '../../stages/mask/options.js';
import { addOptions, flagValues, resolveFlags } from '../options.js';
import { withLocalInputs, withLocalOutput } from '../../io/remote-files.js';

const oneLine = (s: string) => JSON.stringify(s.length > 100 ? s.slice(0, 100) + '…' : s);

export function register(program: Command): void {
  const mask = program
    .command('mask')
    .description('Redundancy masking: count in how many documents each line occurs, then exclude the frequent ones from the loss');

  const count = mask
    .command('count')
    .description('Pass 1: count the document frequency of every segment (normalized line) into a counts file')
    .argument('<inputs...>', 'JSONL documents (files or folders; .gz/.zst)')
    .requiredOption('--out <file>', 'the counts file to write')
    .option('--work-dir <dir>', 'where spilled runs go (default: beside --out)')
    .option('--rank <r>', 'count only the documents rank r of --world-size owns (every rank reads all inputs), and record the rank in the counts file, so `mask merge` checks that every rank is there. Without it, the inputs are counted whole, as one rank\'s share (then the counts name no rank)', intOption('--rank'))
    .option('--world-size <w>', 'number of ranks, with --rank', intOption('--world-size', 1))
    .option('--quiet', QUIET_HELP);
  addOptions(count, MASK_OPTIONS, MASK_COUNT_KEYS).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const m = resolveFlags(MASK_OPTIONS, o, resolveMaskOptions, MASK_COUNT_KEYS);
      const opts = { out: o.out as string, workDir: o.workDir as string | undefined, quiet: o.quiet as boolean | undefined };
      const ctx = defaultContext();
      ctx.ledger.onDrop = opts.quiet ? undefined : (_r, message) => process.stderr.write(`midpack: mask count: ${message}\n`);
      if (opts.quiet) ctx.log = () => {};
      // Flags only: a per-rank shard counted inside a job array must not be partitioned again by the scheduler's rank.
      const rank = resolveRank({ rank: o.rank as number | undefined, worldSize: o.worldSize as number | undefined }, {});
      const many = rank.worldSize > 1 ? rank : undefined;
      // An s3:// --out is written locally and goes up, with its manifest, once complete.
      const summary = await withLocalOutput(opts.out, async (out) => {
        const s = await countSegments(readDocuments(inputs, ctx.ledger, ownedBy(rank)), out, { ...m, workDir: opts.workDir, rank: many }, ctx);
        writeStageManifest(`${out}.manifest.json`, 'mask count', { inputs, ...opts, ...flagValues(MASK_OPTIONS, o, MASK_COUNT_KEYS) }, ctx);
        return s;
      });
      if (!opts.quiet) {
        printLedger(ctx.ledger, 'documents');
        const h = summary.header;
        process.stderr.write(`counted ${h.segments_distinct} distinct segments in ${h.documents} documents (${summary.runs} spilled runs); wrote ${opts.out}\n`);
      }
    }),
  );

  registerMerge(mask);

  const apply = mask
    .command('apply')
    .description('Pass 2: add loss-mask spans over every segment whose document frequency reaches the threshold (text unchanged)')
    .argument('<inputs...>', 'JSONL documents (files or folders; .gz/.zst)')
    .requiredOption('--counts <file>', 'counts file from `mask count` or `mask merge`')
    .requiredOption('--out <file>', 'output documents: .jsonl (.gz, .zst) or .parquet; "-" for JSONL on stdout; OUT.manifest.json is written beside it')
    .option('--quiet', QUIET_HELP);
  addOptions(apply, MASK_OPTIONS, MASK_APPLY_KEYS).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const m = resolveFlags(MASK_OPTIONS, o, resolveMaskOptions, MASK_APPLY_KEYS);
      const frequent = await withLocalInputs([o.counts as string], ([counts]) => loadFrequent(counts!, m));
      const opts = { counts: o.counts as string, out: o.out as string, quiet: o.quiet as boolean | undefined, ...flagValues(MASK_OPTIONS, o, MASK_APPLY_KEYS) };
      const ctx = await runStage('mask apply', opts, (c) => maskApply(frequent, m)(readDocuments(inputs, c.ledger), c));
      if (opts.quiet) return;
      const s = ctx.stats.mask as { threshold_docs: number; masked_chars_fraction: number; documents_with_masks: number; top_segments: { docs: number; text: string | null }[] };
      process.stderr.write(
        `threshold ${s.threshold_docs} documents; masked ${(100 * s.masked_chars_fraction).toFixed(2)}% of characters in ${s.documents_with_masks} documents\n`,
      );
      for (const t of s.top_segments.slice(0, 10)) process.stderr.write(`  ${String(t.docs).padStart(8)}  ${t.text === null ? '(no sample)' : oneLine(t.text)}\n`);
    }),
  );

  mask
    .command('show')
    .description('Print a counts file: its parameters and its most frequent segments')
    .argument('<counts>', 'counts file')
    .option('--top <n>', 'how many segments to list', intOption('--top'), 20)
    .action(
      action((counts: string, opts: { top: number }) =>
        withLocalInputs([counts], ([local]) => {
          const h = readCountsHeader(local!);
          const lines = [JSON.stringify(h)];
          for (const s of readSamples(local!, h).slice(0, opts.top)) lines.push(`${String(s.docs).padStart(8)}  ${s.hash}  ${oneLine(s.text)}`);
          process.stdout.write(lines.join('\n') + '\n');
        }),
      ),
    );
}

/** `mask merge`: the counts of several ranks into one file, every rank accounted for. */
function registerMerge(mask: Command): void {
  mask
    .command('merge')
    .description('Merge counts files from several ranks into one (the same file one rank over all inputs would write)')
    .argument('<counts...>', 'counts files')
    .requiredOption('--out <file>', 'the merged counts file')
    .option('--samples <n>', 'how many of the most frequent segments keep a text sample', intOption('--samples'), DEFAULT_SAMPLES)
    .option('--allow-missing-ranks', "merge the counts of a run's ranks with some missing (default: refused, naming them); the merged file records which are missing, and those ranks' pack refuses it", false)
    .option('--quiet', QUIET_HELP)
    .action(
      action(async (counts: string[], opts: { out: string; samples: number; allowMissingRanks: boolean; quiet?: boolean }) => {
        const h = await withLocalInputs(counts, (local) => withLocalOutput(opts.out, (out) => mergeCountsFiles(local, out, opts.samples, { allowMissingRanks: opts.allowMissingRanks })));
        if (h.missing_ranks?.length) process.stderr.write(`midpack: mask merge: --allow-missing-ranks: ranks ${h.missing_ranks.join(', ')} of ${h.world_size} are missing from ${opts.out} (recorded in its header)\n`);
        if (!opts.quiet) process.stderr.write(`merged ${counts.length} counts files: ${h.segments_distinct} distinct segments in ${h.documents} documents${h.ranks ? ` of ranks ${h.ranks.join(', ')} of ${h.world_size}` : ''}; wrote ${opts.out}\n`);
      }),
    );
}
