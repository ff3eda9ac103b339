import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Doc } from '../doc/document.js';
import type { LedgerJson } from '../core/ledger.js';
import { rankList, type RankInfo } from '../core/ranks.js';
import { writeFileAtomic } from '../write/files.js';
import type { ReportJson } from '../report/figures.js';
import { MixtureCounts } from '../mix/counts.js';
import { countMixture } from '../mix/count-pass.js';
import { planMixture, shortfallLines, type MixturePlan } from '../mix/plan.js';
import { applyMixture } from '../mix/apply.js';
import { MixtureTally, mixtureReport, type MixtureReport } from '../mix/report.js';
import type { MixtureSpec } from '../mix/spec.js';
import { inputsIdentity } from './out-dir.js';
import type { RunConfig } from './run-config.js';

/**
 * The mixture steps of `midpack run`, between prepare and pack (docs/mixing.md):
 *   count  every prepared document's tokens, into this rank's histograms (.run/mixture-counts.json);
 *   plan   targets, repeat factors and thresholds from the counts of all ranks (--mixture-counts);
 *   apply  drop, keep and repeat, into .run/mixed.jsonl, which the pack job then reads.
 */
export class MixtureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MixtureError';
  }
}

export const MIXTURE_COUNTS_FILE = 'mixture-counts.json';

export interface MixtureStepOptions {
  cfg: RunConfig & { mixture: MixtureSpec };
  rank: RankInfo;
  runDir: string;
  workers: number;
  /** Merged counts of all ranks (required with several ranks). */
  mixtureCounts?: string;
  strict: boolean;
  /** Sources whose repeats go through their `then` stages again: their base documents' file. */
  baseFiles: Map<string, string>;
  restage: (source: string, docs: AsyncIterable<Doc>) => AsyncIterable<Doc>;
  /** Sources without stages whose reader draws per record: read again for each repeat (apply.ts). */
  reread?: Map<string, (repeat: number) => AsyncIterable<Doc>>;
}

/** Step 1: this rank's counts (kept in the run folder: a rerun reuses them). */
export async function countStep(o: Pick<MixtureStepOptions, 'cfg' | 'rank' | 'runDir' | 'workers'>): Promise<string> {
  const file = join(o.runDir, MIXTURE_COUNTS_FILE);
  if (existsSync(file)) return file;
  const counts = await countMixture({
    docsFile: join(o.runDir, 'docs.jsonl'),
    sources: o.cfg.sources.map((s) => s.name),
    seed: o.cfg.seed,
    rank: o.rank,
    tokenizer: o.cfg.tokenizer,
    workers: o.workers,
    tokensFile: join(o.runDir, 'doc-tokens.u32'),
  });
  counts.write(file);
  return file;
}

export interface MixtureStep {
  docsFile: string;
  plan: MixturePlan;
  stage: { type: 'mixture'; counts: string; ledger: LedgerJson; balanced: boolean; stats: Record<string, unknown> };
  /** What the pack identity adds: the counts the plan came from. */
  identity: Record<string, unknown>;
  /** The report section, from the pack's figures. */
  report: (r: ReportJson) => MixtureReport;
}

/** Steps 2 and 3: the plan from the counts of every rank, applied to this rank's documents. */
export async function mixtureStep(o: MixtureStepOptions): Promise<MixtureStep> {
  const own = await countStep(o);
  const countsFile = mergedCountsFile(o, own);
  const counts = MixtureCounts.read(countsFile);
  checkCounts(counts, o, countsFile);
  const plan = planMixture(o.cfg.mixture, counts);
  const shortfalls = shortfallLines(plan);
  if (shortfalls.length) {
    const lines = shortfalls.map((l) => `  ${l}`).join('\n');
    if (o.strict) throw new MixtureError(`--strict-mixture: targets cannot be met within maxRepeat:\n${lines}`);
    process.stderr.write(`midpack: run: mixture: targets not met within maxRepeat (the report gives the shortfall):\n${lines}\n`);
  }
  const planSha = createHash('sha256').update(JSON.stringify(plan)).digest('hex');
  const docsFile = join(o.runDir, 'mixed.jsonl');
  const doneFile = join(o.runDir, 'mixed.json');
  type Done = { plan_sha256: string; ledger: LedgerJson; balanced: boolean; tally: ReturnType<MixtureTally['toJSON']>; documents: number };
  let done: Done | undefined = existsSync(doneFile) ? (JSON.parse(readFileSync(doneFile, 'utf8')) as Done) : undefined;
  if (done?.plan_sha256 !== planSha) {
    const r = await applyMixture({ plan, docsFile: join(o.runDir, 'docs.jsonl'), tokensFile: join(o.runDir, 'doc-tokens.u32'), out: docsFile, baseFiles: o.baseFiles, restage: o.restage, reread: o.reread });
    done = { plan_sha256: planSha, ledger: r.ledger.toJSON(), balanced: r.ledger.balanced(), tally: r.tally.toJSON(), documents: r.documents };
    writeFileAtomic(doneFile, JSON.stringify(done) + '\n');
  }
  const tally = done.tally;
  return {
    docsFile,
    plan,
    stage: { type: 'mixture', counts: countsFile === own ? MIXTURE_COUNTS_FILE : countsFile, ledger: done.ledger, balanced: done.balanced, stats: { plan } },
    identity: { mixture_counts: inputsIdentity([countsFile]), plan_sha256: planSha },
    report: (r) => {
      const t = MixtureTally.fromJSON(tally);
      for (const [name, g] of Object.entries(r.by_mixture_source ?? {})) t.achieved(name, g.tokens, g.documents);
      return mixtureReport(plan, t, shortfalls);
    },
  };
}

function mergedCountsFile(o: MixtureStepOptions, own: string): string {
  if (o.mixtureCounts) return o.mixtureCounts;
  if (o.rank.worldSize > 1) {
    throw new MixtureError(
      `a mixture over ${o.rank.worldSize} ranks needs the counts of every rank: run --phase count on each rank, ` +
        '`midpack mixture merge OUT/rank-*/.run/mixture-counts.json --out COUNTS`, then run each rank with --mixture-counts COUNTS',
    );
  }
  return own;
}

function checkCounts(c: MixtureCounts, o: MixtureStepOptions, file: string): void {
  if (c.seed !== o.cfg.seed) throw new MixtureError(`${file}: counts of seed ${c.seed}, the config has seed ${o.cfg.seed}`);
  if (c.worldSize !== o.rank.worldSize) throw new MixtureError(`${file}: counts of a run of world size ${c.worldSize}, this run has ${o.rank.worldSize}`);
  if (!c.ranks.includes(o.rank.rank)) {
    throw new MixtureError(`${file}: holds ranks ${rankList(c.ranks)} of ${c.worldSize}, not this rank (${o.rank.rank}): merge the counts of every rank (midpack mixture merge)`);
  }
  const names = o.cfg.sources.map((s) => s.name).sort();
  const have = [...c.sources.keys()].sort();
  if (JSON.stringify(names) !== JSON.stringify(have)) throw new MixtureError(`${file}: counts of sources ${have.join(', ')}, the config has ${names.join(', ')}`);
}
