import { writeFileSync, renameSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { defaultContext, type StageContext } from '../../core/stage.js';
import { AtomicLineWriter } from '../../io/jsonl.js';
import { ownedBy, resolveRank } from '../../core/ranks.js';
import { readDocuments } from '../../io/documents.js';
import { action, floatOption, intOption, runStage, writeStageManifest } from '../common.js';
import { namedByFlag } from '../options.js';
import { requirePaths } from '../../io/paths.js';
import { benchmarkPaths } from '../../stages/hygiene/benchmarks.js';
import { countDedup } from '../../stages/hygiene/dedup-count.js';
import { checkIndexCovers, mergeIndexes } from '../../stages/hygiene/dedup-index.js';
import { clusterLines, dedupApply, loadDedupTables } from '../../stages/hygiene/dedup-apply.js';
import { resolveDedupOptions, type DedupOptions } from '../../stages/hygiene/dedup-options.js';
import { withLocalInputs, withLocalOutput } from '../../io/remote-files.js';
import { decontaminateStage, loadBenchmarks, resolveDecontaminateOptions } from '../../stages/hygiene/decontaminate.js';
import { redactStage, resolveRedactOptions } from '../../stages/hygiene/redact.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** The near-duplicate and memory options shared by `dedup`, `dedup count` and `dedup apply`. */
function dedupOptions(cmd: Command): Command {
  return cmd
    .option('--near', 'also remove near-duplicates (MinHash with LSH banding over token shingles)')
    .option('--shingle <n>', 'tokens per shingle (default 5)', intOption('--shingle', 1))
    .option('--bands <n>', 'LSH bands (default 32)', intOption('--bands', 1))
    .option('--rows <n>', 'MinHash values per band (default 4); the signature has bands x rows values', intOption('--rows', 1))
    .option('--min-tokens <n>', 'items with fewer tokens take part in exact dedup only (default 32)', intOption('--min-tokens', 1))
    .option('--threshold <j>', 'estimated Jaccard a candidate pair needs to be a near-duplicate (default 0.8)', floatOption('--threshold', 0, 1))
    .option('--memory-mb <n>', 'memory for record buffers and band tables (default 256)', intOption('--memory-mb', 8))
    .option('--work-dir <dir>', 'where sorted runs spill (default: beside --out)');
}

/** The flags both dedup passes take: this process's rank and quiet output. */
function rankFlags(cmd: Command): Command {
  return cmd
    .option('--rank <r>', 'this process is rank r of --world-size', intOption('--rank'))
    .option('--world-size <w>', 'number of ranks', intOption('--world-size', 1))
    .option('--quiet', 'print nothing but errors');
}

function resolveFromFlags(o: Record<string, unknown>): DedupOptions {
  const pick = ['near', 'shingle', 'bands', 'rows', 'minTokens', 'threshold', 'memoryMb', 'dryRun', 'workDir'];
  return resolveDedupOptions(Object.fromEntries(pick.filter((k) => o[k] !== undefined).map((k) => [k, o[k]])));
}

function writeLines(path: string, lines: string[]): void {
  writeFileSync(`${path}.tmp-${process.pid}`, lines.map((l) => l + '\n').join(''));
  renameSync(`${path}.tmp-${process.pid}`, path);
}

function registerDedup(program: Command): void {
  // `dedup` takes inputs and options itself and has subcommands with options of the same
  // names: options must belong to the command they follow. The program has no options of its
  // own, so making its options positional changes nothing else.
  program.enablePositionalOptions();
  const dedup = dedupOptions(
    program
      .command('dedup')
      // The options after `count`, `merge` or `apply` are theirs, not the one-process command's.
      .enablePositionalOptions()
      .description('Remove exact duplicates (and with --near, near-duplicates) of documents and of each file of repository documents; the copy with the smallest key stays')
      .argument('<inputs...>', 'JSONL/Parquet/Arrow documents (files or folders)')
      // Not `requiredOption`: commander checks a parent's required options for its subcommands too.
      .option('--out <file>', 'output JSONL ("-" for stdout), required; OUT.manifest.json and OUT.clusters.jsonl beside it')
      .option('--dry-run', 'write every document unchanged and the clusters, counting what would be removed')
      .option('--quiet', 'print nothing but errors'),
  ).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      if (typeof o.out !== 'string') throw new Error("dedup: required option '--out <file>' not specified");
      const options = resolveFromFlags(o);
      const out = o.out;
      const work = mkdtempSync(join(options.workDir ?? (out === '-' ? '.' : dirname(out)), '.dedup-'));
      try {
        const countCtx = defaultContext({ log: () => {} });
        await countDedup(readDocuments(inputs, countCtx.ledger), join(work, 'index.bin'), { ...options, workDir: work }, countCtx);
        const tables = loadDedupTables(join(work, 'index.bin'), options);
        const ctx = await runStage('dedup', { ...o, out, quiet: o.quiet as boolean }, (c) => dedupApply(tables, options)(readDocuments(inputs, c.ledger), c));
        if (out !== '-') writeLines(`${out}.clusters.jsonl`, clusterLines(tables));
        if (!o.quiet) summarizeDedup(ctx.stats.dedup as Record<string, unknown>);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }),
  );
  registerDedupRanks(dedup);
}

/** `dedup count`, `dedup merge`, `dedup apply`: the two passes over several ranks, with the merge between. */
function registerDedupRanks(dedup: Command): void {
  dedupOptions(
    rankFlags(dedup
      .command('count')
      .description('Pass 1 on one rank: write the dedup index (content hashes, keepers, signatures) of the documents this rank owns')
      .argument('<inputs...>', 'documents (files or folders)')
      .requiredOption('--out <file>', 'the index file to write')),
  ).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const options = resolveFromFlags(o);
      const rank = resolveRank({ rank: o.rank as number | undefined, worldSize: o.worldSize as number | undefined });
      const ctx = defaultContext();
      if (!o.quiet) ctx.ledger.printDrops('dedup count');
      // An s3:// --out is written locally and goes up, with its manifest, once complete.
      const h = await withLocalOutput(o.out as string, async (out) => {
        const header = await countDedup(readDocuments(inputs, ctx.ledger, ownedBy(rank)), out, options, ctx, rank.worldSize > 1 ? rank : undefined);
        writeStageManifest(`${out}.manifest.json`, 'dedup count', { inputs, ...o }, ctx);
        return header;
      });
      if (!o.quiet) process.stderr.write(`indexed ${h.items} items of ${h.documents} documents; wrote ${o.out}\n`);
    }),
  );

  dedup
    .command('merge')
    .description('Join the indexes of several ranks into one (the same bytes one rank over all inputs writes)')
    .argument('<indexes...>', 'index files')
    .requiredOption('--out <file>', 'the merged index')
    .option('--allow-missing-ranks', 'merge the indexes of a run\'s ranks with some missing (default: refused, naming them); the merged index records which are missing', false)
    .action(
      action(async (indexes: string[], o: { out: string; allowMissingRanks: boolean }) => {
        const h = await withLocalInputs(indexes, (local) => withLocalOutput(o.out, (out) => mergeIndexes(local, out, o.allowMissingRanks)));
        if (h.missing_ranks?.length) process.stderr.write(`midpack: dedup merge: --allow-missing-ranks: ranks ${h.missing_ranks.join(', ')} of ${h.world_size} are missing from ${o.out} (recorded in its header)\n`);
        process.stderr.write(`merged ${indexes.length} indexes: ${h.items} items of ${h.documents} documents; wrote ${o.out}\n`);
      }),
    );

  dedupOptions(
    rankFlags(dedup
      .command('apply')
      .description('Pass 2: drop the duplicates the (merged) index names, for the documents this rank owns')
      .argument('<inputs...>', 'documents (files or folders)')
      .requiredOption('--index <file>', 'index from `dedup count` or `dedup merge`')
      .requiredOption('--out <file>', 'output JSONL ("-" for stdout)')
      .option('--dry-run', 'write every document unchanged, counting what would be removed')),
  ).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const options = resolveFromFlags(o);
      const rank = resolveRank({ rank: o.rank as number | undefined, worldSize: o.worldSize as number | undefined });
      const tables = await withLocalInputs([o.index as string], ([index]) => loadDedupTables(index!, options));
      checkIndexCovers(o.index as string, tables.header, rank);
      const ctx = await runStage('dedup apply', o as { out: string }, (c) => dedupApply(tables, options)(readDocuments(inputs, c.ledger, ownedBy(rank)), c));
      if (o.out !== '-') writeLines(`${o.out}.clusters.jsonl`, clusterLines(tables));
      if (!o.quiet) summarizeDedup(ctx.stats.dedup as Record<string, unknown>);
    }),
  );
}

function summarizeDedup(s: Record<string, unknown>): void {
  process.stderr.write(
    `exact groups ${s.exact_groups}, near clusters ${s.near_clusters}; documents dropped ${JSON.stringify(s.documents_dropped)}, ` +
      `items removed from repositories${s.dry_run ? ' (dry run: would be)' : ''} ${JSON.stringify(s.items_removed)}\n`,
  );
}

function registerDecontaminate(program: Command): void {
  program
    .command('decontaminate')
    .description(
      'Remove (or mask) documents and repository files that share n-grams or long runs with benchmark items, or hold a short item as a whole ' +
        'statement, block or body; benchmark rows that are pull-request instances (SWE-bench) also drop samples of the same instance; every hit is written to OUT.hits.jsonl',
    )
    .argument('<inputs...>', 'documents (files or folders)')
    .requiredOption('--benchmark <file[:fields]>', 'benchmark JSONL/Parquet file or folder, with the fields that hold its text (default: every string field); repeatable', collect)
    .requiredOption('--out <file>', 'output JSONL ("-" for stdout)')
    .option('--action <a>', 'drop: remove the matching file (or document); mask: keep it out of the loss (default drop)')
    .option('--ngram <n>', 'n of the word n-gram method (default 13)', intOption('--ngram', 4))
    .option('--substring-tokens <n>', 'length of the identifier-abstracted run method (default 48)', intOption('--substring-tokens', 8))
    .option('--methods <list>', 'ngram,substring,whole (default all; whole: items too short for an n-gram window matched as whole units, items under 8 tokens counted as too_short_to_match)', (v: string) => v.split(',').filter(Boolean))
    .option('--min-fraction <f>', "an item is contaminated when it shares at least this fraction of a benchmark item's windows (default 0: one is enough)", floatOption('--min-fraction', 0, 1))
    .option('--quiet', 'print nothing but errors')
    .action(
      action(async (inputs: string[], o: Record<string, unknown>) => {
        namedByFlag(() => requirePaths({ benchmark: benchmarkPaths(o.benchmark as string[]) }));
        const options = resolveDecontaminateOptions({ benchmarks: o.benchmark, action: o.action, ngram: o.ngram, substringTokens: o.substringTokens, methods: o.methods, minFraction: o.minFraction });
        const index = await loadBenchmarks(options);
        const out = o.out as string;
        // Atomic like the documents: a failed job leaves no partial hits file, and a failed write
        // (kept by the writer, thrown by close) is one error, not an unhandled 'error' event.
        const hits = out === '-' ? undefined : new AtomicLineWriter(`${out}.hits.jsonl`);
        const hit = (h: unknown) => void hits?.writeRaw(JSON.stringify(h) + '\n').catch(() => {});
        let ctx: StageContext;
        try {
          ctx = await runStage('decontaminate', o as { out: string }, (c) => decontaminateStage(options, index, hit)(readDocuments(inputs, c.ledger), c));
          await hits?.close();
        } catch (e) {
          await hits?.abort();
          throw e;
        }
        if (!o.quiet) {
          const s = ctx.stats.decontaminate as { items_contaminated: number; hits_by_benchmark: Record<string, number>; too_short_to_match: number; instances_excluded?: Record<string, number> };
          process.stderr.write(
            `contaminated items: ${s.items_contaminated}; hits by benchmark: ${JSON.stringify(s.hits_by_benchmark)}; benchmark items too short to match: ${s.too_short_to_match}` +
              `${s.instances_excluded ? `; instances excluded: ${JSON.stringify(s.instances_excluded)}` : ''}\n`,
          );
        }
      }),
    );
}

function registerRedact(program: Command): void {
  program
    .command('redact')
    .description('Replace API keys, tokens, private keys, passwords in URLs and high-entropy secrets by placeholders such as <SECRET_AWS_KEY>; secrets are reported by rule and hash only')
    .argument('<inputs...>', 'documents (files or folders)')
    .requiredOption('--out <file>', 'output JSONL ("-" for stdout)')
    .option('--emails', 'also replace e-mail addresses by <EMAIL>')
    .option('--ips', 'also replace public IPv4 addresses by <IP_ADDRESS>')
    .option('--min-entropy <bits>', 'bits per character a generic secret value needs (default 3.5)', floatOption('--min-entropy', 0, 8))
    .option('--disable <rules>', 'rule ids to turn off, comma-separated', (v: string) => v.split(',').filter(Boolean))
    .option('--quiet', 'print nothing but errors')
    .action(
      action(async (inputs: string[], o: Record<string, unknown>) => {
        const options = resolveRedactOptions({ emails: o.emails, ips: o.ips, minEntropy: o.minEntropy, disable: o.disable });
        const ctx = await runStage('redact', o as { out: string }, (c) => redactStage(options)(readDocuments(inputs, c.ledger), c));
        if (!o.quiet) {
          const s = ctx.stats.redact as { secrets_by_rule: Record<string, number>; lines_changed: number; lines: number };
          process.stderr.write(`secrets by rule: ${JSON.stringify(s.secrets_by_rule)}; ${s.lines_changed} of ${s.lines} lines changed\n`);
        }
      }),
    );
}

export function register(program: Command): void {
  registerDedup(program);
  registerDecontaminate(program);
  registerRedact(program);
}
