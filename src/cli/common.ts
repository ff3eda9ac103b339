import { writeFileSync, renameSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import type { Doc } from '../doc/document.js';
import { Ledger } from '../core/ledger.js';
import { defaultContext, type StageContext } from '../core/stage.js';
import { writeDocuments } from '../io/write-documents.js';
import { removeStaleTemps } from '../io/stale.js';

/** Option parsers that reject bad values with a message naming the option. */
export function intOption(name: string, min = 0) {
  return (v: string): number => {
    const n = Number(v.replace(/_/g, ''));
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be an integer >= ${min}, got "${v}"`);
    return n;
  };
}

export function floatOption(name: string, min = 0, max = Infinity) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be a number in [${min}, ${max}], got "${v}"`);
    return n;
  };
}

/** Runs a command body, turning thrown errors into one clear line and exit code 1. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void> | void) {
  return async (...args: A): Promise<void> => {
    try {
      await fn(...args);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      process.stderr.write(`midpack: error: ${msg}\n`);
      if (process.env.MIDPACK_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`);
      process.exitCode = 1;
    }
  };
}

/** Prints the ledger as a short summary on stderr. */
export function printLedger(ledger: Ledger, what = 'records'): void {
  const j = ledger.toJSON();
  const lines = [`${what}: ${j.records_in} in, ${j.records_out} out`];
  for (const [reason, n] of Object.entries(j.dropped)) lines.push(`  dropped ${reason}: ${n}`);
  for (const [k, n] of Object.entries(j.produced)) lines.push(`  ${k}: ${n}`);
  if (!ledger.balanced()) lines.push('  WARNING: the ledger does not balance');
  process.stderr.write(lines.join('\n') + '\n');
}

/**
 * The common shape of a standalone stage command: the documents of a source (and stages over it),
 * written to `--out` (JSONL or Parquet), OUT.manifest.json beside it, the accounting on stderr.
 */
export async function runStage(
  name: string,
  opts: { out: string; seed?: number; quiet?: boolean; [k: string]: unknown },
  docs: (ctx: StageContext) => AsyncIterable<Doc>,
): Promise<StageContext> {
  const ctx = defaultContext({ seed: opts.seed ?? 0 });
  if (!opts.quiet) ctx.ledger.printDrops(name);
  else ctx.log = () => {};
  const written = await writeDocuments(opts.out, docs(ctx));
  if (opts.out !== '-') writeStageManifest(`${opts.out}.manifest.json`, name, opts, ctx);
  if (!opts.quiet) {
    printLedger(ctx.ledger);
    process.stderr.write(`wrote ${written} documents to ${opts.out}\n`);
  }
  return ctx;
}

/** A stage run standalone leaves its accounting beside its output: OUT.manifest.json. */
export function writeStageManifest(path: string, stage: string, options: Record<string, unknown>, ctx: StageContext): void {
  const body = { stage, options, ledger: ctx.ledger.toJSON(), stats: ctx.stats };
  removeStaleTemps(path);
  writeFileSync(`${path}.tmp-${process.pid}`, JSON.stringify(body, null, 2) + '\n');
  renameSync(`${path}.tmp-${process.pid}`, path);
}

/** One meaning of --quiet on every command. */
export const QUIET_HELP = 'print errors only: no progress, per-record messages or summary';

/** The output of a standalone stage command: --out (JSONL or Parquet, "-" for stdout) and --quiet. */
export function addOutOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--out <file>', 'output documents: .jsonl (.gz, .zst) or .parquet; "-" for JSONL on stdout; OUT.manifest.json is written beside it')
    .option('--quiet', QUIET_HELP);
}

export function addSeedOption(cmd: Command): Command {
  return cmd.option('--seed <n>', 'seed for every random choice (ids and choices derive from it and the document)', intOption('--seed'), 0);
}
