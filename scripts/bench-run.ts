/**
 * npm run bench:run — the example mix at scale through `midpack run`, against tokenization alone.
 *
 * Input (built once in .bench/run/, over 500 MB): real repositories (the npm packages in
 * node_modules, the machine's C headers and Python packages, one repository per folder), the 130
 * real web pages of the Readability test set, real history (the p-limit release history, and
 * midpack's own 316 commits cloned from this checkout at 38a73f5), and the real code and prose
 * documents of the e2e corpus. The config is examples/pipeline.yaml with these inputs.
 * `--small` (in .bench/run-small/): the sample packages of data-samples/repos and the machine's
 * Python packages as repositories, and 20 MB of documents — a run like issue 32's.
 *
 * It runs `midpack run` (all stages, masking, tokenization, packing, writing), then the pack phase
 * alone on the documents that run prepared (the same command again without its pack work: the
 * prepared documents are reused), then that pack phase on 1 worker (the output must be the same
 * bytes), then tokenizes the prepared documents (OUT/.run/docs.jsonl) with the same worker
 * count and nothing else, and prints the throughputs, the ratios, peak RSS (target < 2 GB) and
 * the report's figures, with the time of each stage from the report.
 *
 * `--baseline DIR` (another checkout of midpack, built) runs that build's `midpack run` on the
 * same config (its own output folder) in the same run, prints the speed-up, and compares the
 * prepared documents: the same ids in the same order, and which texts differ, by kind.
 *
 * `--baseline-context`: this build's history edits get the context 38a73f5 gave them (changed files
 * and related ones: `retrieve: 0, contextTokens: 0`), so both builds do the same work.
 *
 * `--history-heavy` (in .bench/run-history/): the `--small` repositories, pages and documents, with
 * the shared go-readability history (../shared/data/histories/go-readability.bundle: 187 commits,
 * large HTML test fixtures) as the history: the run whose long pole is the history stage.
 *
 * Beside run / pack alone, it prints the prepare phase alone (`--phase prepare` into a fresh
 * folder) and the overlap figure: the whole run over the longer of its two phases measured alone
 * (1 when they overlap entirely, their sum over the longer when not at all), the history stage's
 * MB/s and commits/s, and the run's peak RSS by phase (report.json `peak_rss_mb`).
 *
 * `--rounds N` (N > 1): then N - 1 more rounds of the four timings, alternated (the run, the pack
 * phase alone, the prepare phase alone, the baseline run), and the median of each over all N
 * rounds with the overlap and speed-up figures from those medians: on a shared machine whose load
 * changes from minute to minute, one round's ratios compare moments, not builds.
 *
 *   npm run bench:run -- [--workers 2] [--small | --history-heavy] [--baseline /tmp/midpack-main] [--baseline-context] [--rounds 3]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism, loadavg } from 'node:os';
import YAML from 'yaml';
import { repoRoot, readabilityPages, sharedDir } from '../test/helpers/paths.js';
import { buildE2eCorpus } from './build-e2e-corpus.js';
import { cpuTicks, speedProbeMs, stealPercent } from './steal.js';

const args = process.argv.slice(2);
const historyHeavy = args.includes('--history-heavy');
const small = args.includes('--small') || historyHeavy;
const dir = join(repoRoot, '.bench', historyHeavy ? 'run-history' : small ? 'run-small' : 'run');
/** The shared history with large files (read-only; the edits source clones the bundle into the run's work folder). */
const sharedHistory = join(sharedDir, 'data', 'histories', 'go-readability.bundle');
const workers = Number(args[args.indexOf('--workers') + 1] ?? 0) || 2;
const baseline = args.includes('--baseline') ? args[args.indexOf('--baseline') + 1] : undefined;
const HISTORY_REV = '38a73f5';
/** History edits without BM25 retrieval and a token budget (`--retrieve 0 --context-tokens 0`), as 38a73f5 built them. */
const sameContext = args.includes('--baseline-context');
const rounds = Math.max(1, Number(args[args.indexOf('--rounds') + 1] ?? 1) || 1);

/** midpack's own history, cloned from this checkout (no working tree) with its HEAD at HISTORY_REV. */
function ownHistory(): string {
  const repo = join(dir, 'midpack-history');
  if (!existsSync(repo)) {
    const clone = spawnSync('git', ['clone', '--quiet', '--no-local', '--no-checkout', repoRoot, repo], { encoding: 'utf8' });
    if (clone.status !== 0) throw new Error(`git clone: ${clone.stderr}`);
    const reset = spawnSync('git', ['-C', repo, 'reset', '--quiet', '--soft', HISTORY_REV], { encoding: 'utf8' });
    if (reset.status !== 0) throw new Error(`git reset: ${reset.stderr}`);
  }
  return repo;
}

function du(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((s, f) => {
    try {
      return s + du(join(path, f));
    } catch {
      return s;
    }
  }, 0);
}

async function buildInputs(): Promise<{ config: string; baselineConfig: string; bytes: number }> {
  mkdirSync(dir, { recursive: true });
  // each subfolder of these is one repository: the packages of node_modules, /usr/include's folders, Python packages
  const repoRoots = (small ? [join(repoRoot, 'data-samples', 'repos'), '/usr/lib/python3/dist-packages'] : [join(repoRoot, 'node_modules'), '/usr/include', '/usr/lib/python3/dist-packages', '/usr/lib/python3.11']).filter(existsSync);
  const docs = join(dir, 'docs.jsonl');
  if (!existsSync(docs)) await buildE2eCorpus(docs, small ? 20 : 200);
  const cfg = YAML.parse(readFileSync(join(repoRoot, 'examples', 'pipeline.yaml'), 'utf8'));
  cfg.out = join(dir, 'out');
  const inputs: Record<string, string[]> = {
    repos: repoRoots,
    web: [readabilityPages],
    history: historyHeavy ? [sharedHistory] : [join(repoRoot, 'data-samples', 'history', 'p-limit.bundle'), ownHistory()],
    docs: [docs],
    trajectories: [join(repoRoot, 'data-samples', 'trajectories')],
  };
  for (const s of cfg.sources) s.inputs = inputs[s.name];
  cfg.sources[0].options.layout = 'collection';
  cfg.workers = workers;
  const baselineConfig = join(dir, 'pipeline-baseline.yaml');
  writeFileSync(baselineConfig, YAML.stringify({ ...cfg, out: join(dir, 'out-baseline') }));
  // The context 38a73f5 built for history edits (changed files and 2 related ones): the same work, to compare the machinery.
  if (sameContext) for (const s of cfg.sources) if (s.type === 'edits') s.options = { ...s.options, retrieve: 0, contextTokens: 0 };
  const config = join(dir, 'pipeline.yaml');
  writeFileSync(config, YAML.stringify(cfg));
  const bytes = Object.values(inputs).flat().reduce((s, p) => s + du(p), 0);
  return { config, baselineConfig, bytes };
}

/** SHA-256 of every file of the output (shards, Megatron files, manifest), the work folders left out. */
function outputHashes(out: string): string {
  const h = createHash('sha256');
  const walk = (d: string, rel: string) => {
    for (const f of readdirSync(d).sort()) {
      if (f.startsWith('.')) continue;
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p, `${rel}${f}/`);
      else if (!['report.html', 'manifest.json', 'report.json'].includes(f)) h.update(`${rel}${f}\0`).update(readFileSync(p));
    }
  };
  walk(out, '');
  return h.digest('hex').slice(0, 16);
}

const fileHash = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16);

/** The history stage's figures from the run's report and manifest: MB/s of its documents and commits/s, on its wall time. */
function historyFigures(report: { stage_times?: Record<string, { wall_s: number; mb_per_s: number }> }, manifest: { stages?: Record<string, { ledger?: { records_in?: number } }> }): string {
  const t = report.stage_times?.history;
  const commits = manifest.stages?.history?.ledger?.records_in;
  if (!t || commits === undefined) return 'history stage: no figures (stage_times needs MIDPACK_STAGE_TIMES or the report)';
  return `history stage: ${commits} commits in ${t.wall_s.toFixed(1)} s of wall time (its threads' sum): ${(commits / t.wall_s).toFixed(1)} commits/s, ${t.mb_per_s.toFixed(2)} MB/s of its documents`;
}

/** The prepared documents of two runs compared: ids in order, and the texts that differ by kind. */
function comparePrepared(a: string, b: string): string {
  const read = (f: string) => readFileSync(f, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; kind: string; text: string; meta: { format?: string } });
  // A document's key: its id and which one of that id it is (a repository cut in parts shares its id).
  const keyed = (docs: ReturnType<typeof read>) => {
    const seen = new Map<string, number>();
    return docs.map((d) => {
      const n = seen.get(d.id) ?? 0;
      seen.set(d.id, n + 1);
      return { ...d, key: `${d.id}#${n}` };
    });
  };
  const x = keyed(read(a));
  const y = keyed(read(b));
  const other = new Map(y.map((d) => [d.key, d]));
  const differ: Record<string, number> = {};
  const only: Record<string, number> = {};
  const named: string[] = [];
  for (const d of x) {
    const o = other.get(d.key);
    const k = d.kind === 'edit' ? `edit:${d.meta.format}` : d.kind;
    if (!o) only[`this:${k}`] = (only[`this:${k}`] ?? 0) + 1;
    else if (o.text !== d.text) differ[k] = (differ[k] ?? 0) + 1;
    if ((!o || o.text !== d.text) && d.kind !== 'edit' && named.length < 5) named.push(`${d.id} (${d.kind}, ${(d as { source?: string }).source})`);
    other.delete(d.key);
  }
  for (const d of other.values()) if (d.kind !== 'edit' && named.length < 5) named.push(`baseline only: ${d.id} (${d.kind}, ${(d as { source?: string }).source})`);
  for (const d of other.values()) only[`baseline:${d.kind === 'edit' ? `edit:${d.meta.format}` : d.kind}`] = (only[`baseline:${d.kind === 'edit' ? `edit:${d.meta.format}` : d.kind}`] ?? 0) + 1;
  const sameOrder = x.length === y.length && x.every((d, i) => d.id === y[i]!.id);
  return `prepared documents: ${x.length} against ${y.length}, same ids in the same order: ${sameOrder}; only in one: ${JSON.stringify(only)}; texts that differ, by kind: ${JSON.stringify(differ)}${named.length ? `; not edits: ${named.join('; ')}` : ''}`;
}

/**
 * The overlap the run's own CPU allows: its CPU-seconds spread over every core at once still take
 * their sum / cores of wall time, so while each phase alone keeps the cores busy the overlap
 * cannot go under that over the longer phase: only less CPU moves it.
 */
function overlapFloor(runCpu: number, longerPhase: number): string {
  const cores = availableParallelism();
  const least = runCpu / cores;
  return `overlap's floor from CPU:           ${(least / longerPhase).toFixed(2)}  (the run's ${runCpu.toFixed(1)} CPU-seconds on ${cores} cores take at least ${least.toFixed(1)} s, over the longer phase alone)`;
}

/** Wall seconds, peak RSS, and CPU seconds (user + system, its git processes included). */
function timed(cmd: string[], env: Record<string, string> = {}): { seconds: number; stdout: string; maxRssMB: number; cpu: number; steal: number } {
  const t0 = performance.now();
  const ticks = cpuTicks();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', process.execPath, ...cmd], { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 26 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${cmd.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const lines = r.stderr.trim().split('\n');
  const [rss, user, sys] = lines[lines.length - 1]!.split(' ').map(Number) as [number, number, number];
  return { seconds, stdout: r.stdout, maxRssMB: rss / 1024, cpu: user + sys, steal: stealPercent(ticks) };
}

const { config, baselineConfig, bytes } = await buildInputs();
const out = join(dir, 'out');
rmSync(out, { recursive: true, force: true });
process.stderr.write(`bench:run  input ${(bytes / 1e6).toFixed(0)} MB (repos, web pages, git history, documents), ${workers} workers\n`);
const probeBefore = speedProbeMs();
const cli = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const runArgs = (w: number) => [cli, 'run', config, '--workers', String(w), '--keep-work', '--no-progress'];
const run = timed(runArgs(workers));
const runHash = outputHashes(out);
const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
// The pack phase alone: the same command again, its pack work removed, the prepared documents reused.
rmSync(join(out, '.work'), { recursive: true, force: true });
const packAlone = timed(runArgs(workers));
const packHash = outputHashes(out);
rmSync(join(out, '.work'), { recursive: true, force: true });
const packOne = timed(runArgs(1));
const oneHash = outputHashes(out);
const prepared = join(out, '.run', 'docs.jsonl');
const preparedBytes = statSync(prepared).size;
const tok = timed([join(repoRoot, 'dist', 'scripts', 'bench-e2e.js'), '--child', 'tokenize', prepared, String(workers), join(dir, 'tok-out')]);
const tokMeasure = JSON.parse(tok.stdout.trim().split('\n').pop()!);
// The prepare phase alone, from scratch: the run's other phase, for the overlap figure.
const preparedHash = fileHash(prepared);
rmSync(out, { recursive: true, force: true });
const prepareAlone = timed([cli, 'run', config, '--workers', String(workers), '--phase', 'prepare', '--no-progress']);
const prepareSame = fileHash(prepared) === preparedHash;
const p = report.packing;
/** Wall seconds of each timing, round by round (the first round's are the ones printed above). */
const walls: Record<'run' | 'pack' | 'prepare' | 'baseline', number[]> = { run: [run.seconds], pack: [packAlone.seconds], prepare: [prepareAlone.seconds], baseline: [] };
const mb = (b: number, s: number) => (b / 1e6 / s).toFixed(2);
const stageLines = Object.entries((report.stage_times ?? {}) as Record<string, { wall_s: number; cpu_s: number; documents: number; docs_per_s: number; mb_per_s: number }>).map(
  ([name, t]) => `  stage ${name.padEnd(24)} wall ${t.wall_s.toFixed(1)} s, CPU ${t.cpu_s.toFixed(1)} s, ${t.documents.toLocaleString('en-US')} documents, ${t.docs_per_s.toFixed(0)} docs/s, ${t.mb_per_s.toFixed(2)} MB/s`,
);
process.stdout.write(
  [
    `midpack run (all stages + pack)     ${run.seconds.toFixed(1)} s (CPU ${run.cpu.toFixed(1)} s)  ${mb(bytes, run.seconds)} MB/s of input, ${mb(preparedBytes, run.seconds)} MB/s of prepared documents, ${Math.round(p.tokens / run.seconds).toLocaleString('en-US')} tokens/s  peak RSS ${run.maxRssMB.toFixed(0)} MB  steal ${run.steal.toFixed(0)}%`,
    ...stageLines,
    `pack phase alone (same documents)   ${packAlone.seconds.toFixed(1)} s (CPU ${packAlone.cpu.toFixed(1)} s)  peak RSS ${packAlone.maxRssMB.toFixed(0)} MB  steal ${packAlone.steal.toFixed(0)}%; on 1 worker ${packOne.seconds.toFixed(1)} s`,
    `run / pack phase alone:             ${(run.seconds / packAlone.seconds).toFixed(2)}  (target <= 2; of CPU time ${(run.cpu / packAlone.cpu).toFixed(2)})`,
    `output identical: run ${runHash}, pack alone ${packHash}, pack alone on 1 worker ${oneHash}: ${runHash === packHash && packHash === oneHash}`,
    `tokenization alone (same documents) ${tok.seconds.toFixed(1)} s  ${mb(preparedBytes, tok.seconds)} MB/s, ${Math.round(tokMeasure.tokens / tok.seconds).toLocaleString('en-US')} tokens/s  peak RSS ${tok.maxRssMB.toFixed(0)} MB`,
    `run / tokenization alone:           ${(tok.seconds / run.seconds).toFixed(3)}  (tokenization's share of the run)`,
    `prepare phase alone                 ${prepareAlone.seconds.toFixed(1)} s (CPU ${prepareAlone.cpu.toFixed(1)} s)  peak RSS ${prepareAlone.maxRssMB.toFixed(0)} MB; the same prepared documents: ${prepareSame}`,
    `overlap: run / longer phase alone:  ${(run.seconds / Math.max(packAlone.seconds, prepareAlone.seconds)).toFixed(2)}  (target <= 1.2; run / sum of both phases ${(run.seconds / (packAlone.seconds + prepareAlone.seconds)).toFixed(2)})`,
    overlapFloor(run.cpu, Math.max(packAlone.seconds, prepareAlone.seconds)),
    historyFigures(report, manifest),
    `peak RSS of the run:                ${run.maxRssMB.toFixed(0)} MB  (target < 1024); by phase: ${Object.entries((report.peak_rss_mb ?? {}) as Record<string, number>).map(([k, v]) => `${k} ${v}`).join(', ')} MB`,
    `report: ${p.documents.toLocaleString('en-US')} documents, ${p.tokens.toLocaleString('en-US')} tokens, ${p.bins} bins (lower bound ${p.lower_bound}, ratio ${p.bins_over_lower_bound.toFixed(6)}), padding ${(p.padding_rate * 100).toFixed(4)}%, fragmentation ${(p.fragmentation_rate * 100).toFixed(2)}%, overlong ${(p.overlong_rate * 100).toFixed(3)}% (${p.overlong_policy}), masked ${(report.masked_fraction * 100).toFixed(2)}%`,
    `by kind: ${Object.entries(report.by_kind as Record<string, { tokens: number }>).map(([k, g]) => `${k} ${g.tokens.toLocaleString('en-US')}`).join(', ')}`,
  ].join('\n') + '\n',
);
if (baseline) {
  const baseOut = join(dir, 'out-baseline');
  rmSync(baseOut, { recursive: true, force: true });
  const base = timed(baselineArgs());
  walls.baseline.push(base.seconds);
  process.stdout.write(
    [
      `baseline run (${baseline})  ${base.seconds.toFixed(1)} s (CPU ${base.cpu.toFixed(1)} s)  peak RSS ${base.maxRssMB.toFixed(0)} MB  steal ${base.steal.toFixed(0)}%`,
      `speed-up of the run, this / baseline: wall ${(base.seconds / run.seconds).toFixed(2)}x, CPU ${(base.cpu / run.cpu).toFixed(2)}x  (target >= 2.5)`,
      comparePrepared(prepared, join(baseOut, '.run', 'docs.jsonl')),
    ].join('\n') + '\n',
  );
  rmSync(baseOut, { recursive: true, force: true });
}
if (rounds > 1) moreRounds();
process.stdout.write(`machine speed probe (fixed integer work, one thread): ${probeBefore.toFixed(0)} ms before, ${speedProbeMs().toFixed(0)} ms after: the same work, so a difference is the host's load\n`);
rmSync(out, { recursive: true, force: true });
rmSync(join(dir, 'tok-out'), { recursive: true, force: true });

function baselineArgs(): string[] {
  return [join(baseline!, 'dist', 'src', 'cli', 'main.js'), 'run', baselineConfig, '--workers', String(workers), '--keep-work', '--no-progress'];
}

/** Rounds 2..N of the four timings, alternated, then the medians over all rounds (see --rounds). */
function moreRounds(): void {
  for (let r = 2; r <= rounds; r++) {
    rmSync(out, { recursive: true, force: true });
    const t = { run: timed(runArgs(workers)).seconds, pack: 0, prepare: 0, baseline: 0 };
    rmSync(join(out, '.work'), { recursive: true, force: true });
    t.pack = timed(runArgs(workers)).seconds;
    rmSync(out, { recursive: true, force: true });
    t.prepare = timed([cli, 'run', config, '--workers', String(workers), '--phase', 'prepare', '--no-progress']).seconds;
    if (baseline) {
      rmSync(join(dir, 'out-baseline'), { recursive: true, force: true });
      t.baseline = timed(baselineArgs()).seconds;
      walls.baseline.push(t.baseline);
    }
    for (const k of ['run', 'pack', 'prepare'] as const) walls[k].push(t[k]);
    process.stdout.write(`round ${r}: run ${t.run.toFixed(1)} s, pack alone ${t.pack.toFixed(1)} s, prepare alone ${t.prepare.toFixed(1)} s${baseline ? `, baseline ${t.baseline.toFixed(1)} s` : ''}; load average ${loadavg()[0]!.toFixed(1)}\n`);
  }
  rmSync(join(dir, 'out-baseline'), { recursive: true, force: true });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [mr, mp, mq] = [median(walls.run), median(walls.pack), median(walls.prepare)];
  process.stdout.write(
    `median of ${rounds} rounds: run ${mr.toFixed(1)} s, pack alone ${mp.toFixed(1)} s, prepare alone ${mq.toFixed(1)} s; run / pack alone ${(mr / mp).toFixed(2)}; ` +
      `overlap: run / longer phase alone ${(mr / Math.max(mp, mq)).toFixed(2)} (target <= 1.2; run / sum ${(mr / (mp + mq)).toFixed(2)})` +
      (baseline ? `; baseline ${median(walls.baseline).toFixed(1)} s, speed-up ${(median(walls.baseline) / mr).toFixed(2)}x (target >= 2.5)` : '') +
      '\n',
  );
}
