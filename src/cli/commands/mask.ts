import type { Command } from 'commander';
import { defaultContext } from '../../core/stage.js';
import { readDocuments } from '../../io/documents.js';
import { action, floatOption, intOption, printLedger, runStage, writeStageManifest } from '../common.js';
import {
  countSegments,
  DEFAULT_MEMORY_MB,
  DEFAULT_MIN_CHARS,
  DEFAULT_MIN_DOCS,
  DEFAULT_MIN_FRAC,
  DEFAULT_SAMPLES,
  loadFrequent,
  maskApply,
  mergeCountsFiles,
  readCountsHeader,
  readSamples,
} from '../../stages/mask/index.js';

const oneLine = (s: string) => JSON.stringify(s.length > 100 ? s.slice(0, 100) + '…' : s);

export function register(program: Command): void {
  const mask = program
    .command('mask')
    .description('Redundancy masking: count in how many documents each line occurs, then exclude the frequent ones from the loss');

  mask
    .command('count')
    .description('Pass 1: count the document frequency of every segment (normalized line) into a counts file')
    .argument('<inputs...>', 'JSONL documents (files or folders; .gz/.zst)')
    .requiredOption('--out <file>', 'the counts file to write')
    .option('--min-chars <n>', 'shortest normalized line that counts (blank lines and a lone } never do)', intOption('--min-chars', 1), DEFAULT_MIN_CHARS)
    .option('--memory-mb <n>', 'memory for the count table; past it sorted runs spill to disk', intOption('--memory-mb', 1), DEFAULT_MEMORY_MB)
    .option('--samples <n>', 'how many of the most frequent segments keep a text sample', intOption('--samples'), DEFAULT_SAMPLES)
    .option('--work-dir <dir>', 'where spilled runs go (default: beside --out)')
    .option('--quiet', 'print nothing but errors')
    .action(
      action(async (inputs: string[], opts: { out: string; minChars: number; memoryMb: number; samples: number; workDir?: string; quiet?: boolean }) => {
        const ctx = defaultContext();
        ctx.ledger.onDrop = opts.quiet ? undefined : (_r, message) => process.stderr.write(`midpack: mask count: ${message}\n`);
        if (opts.quiet) ctx.log = () => {};
        const summary = await countSegments(readDocuments(inputs, ctx.ledger), opts.out, opts, ctx);
        writeStageManifest(`${opts.out}.manifest.json`, 'mask count', { inputs, ...opts }, ctx);
        if (!opts.quiet) {
          printLedger(ctx.ledger, 'documents');
          const h = summary.header;
          process.stderr.write(`counted ${h.segments_distinct} distinct segments in ${h.documents} documents (${summary.runs} spilled runs); wrote ${opts.out}\n`);
        }
      }),
    );

  mask
    .command('merge')
    .description('Merge counts files from several ranks into one (the same file one rank over all inputs would write)')
    .argument('<counts...>', 'counts files')
    .requiredOption('--out <file>', 'the merged counts file')
    .option('--samples <n>', 'how many of the most frequent segments keep a text sample', intOption('--samples'), DEFAULT_SAMPLES)
    .action(
      action((counts: string[], opts: { out: string; samples: number }) => {
        const h = mergeCountsFiles(counts, opts.out, opts.samples);
        process.stderr.write(`merged ${counts.length} counts files: ${h.segments_distinct} distinct segments in ${h.documents} documents; wrote ${opts.out}\n`);
      }),
    );

  mask
    .command('apply')
    .description('Pass 2: add loss-mask spans over every segment whose document frequency reaches the threshold (text unchanged)')
    .argument('<inputs...>', 'JSONL documents (files or folders; .gz/.zst)')
    .requiredOption('--counts <file>', 'counts file from `mask count` or `mask merge`')
    .requiredOption('--out <file>', 'output JSONL ("-" for stdout)')
    .option('--min-docs <n>', 'mask segments in at least N documents', intOption('--min-docs', 1), DEFAULT_MIN_DOCS)
    .option('--min-frac <f>', '... and in at least this fraction of the counted documents (0 to use --min-docs alone)', floatOption('--min-frac', 0, 1), DEFAULT_MIN_FRAC)
    .option('--keep-first', 'keep the first occurrence of each frequent segment in a document unmasked')
    .option('--bridge', 'also mask the too-short lines (blank, a bare //) between two masked lines, so a header is one span')
    .option('--top <n>', 'how many masked segments the manifest lists', intOption('--top'), 50)
    .option('--quiet', 'print nothing but errors')
    .action(
      action(async (inputs: string[], opts: { counts: string; out: string; minDocs: number; minFrac: number; keepFirst?: boolean; bridge?: boolean; top: number; quiet?: boolean }) => {
        const frequent = loadFrequent(opts.counts, opts);
        const ctx = await runStage('mask apply', opts, maskApply(frequent, opts), (c) => readDocuments(inputs, c.ledger));
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
      action((counts: string, opts: { top: number }) => {
        const h = readCountsHeader(counts);
        const lines = [JSON.stringify(h)];
        for (const s of readSamples(counts, h).slice(0, opts.top)) lines.push(`${String(s.docs).padStart(8)}  ${s.hash}  ${oneLine(s.text)}`);
        process.stdout.write(lines.join('\n') + '\n');
      }),
    );
}
