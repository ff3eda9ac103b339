/**
 * npm run bench:history — the edits stage alone on a real repository's full history.
 *
 * The repository is midpack's own history, cloned (no checkout) into .bench/edits/ and walked at
 * commit 38a73f5 (316 commits, 25 merges): real TypeScript, C++ and Markdown changes. It runs
 * `midpack edits` on it with a `git` first on PATH that counts every git process started (then
 * runs the real git), under /usr/bin/time for the peak RSS, and prints commits/s, git processes,
 * peak RSS, the samples by format and the ledger.
 *
 * With `--baseline DIR` (another checkout of midpack, built) it runs that build's `midpack edits`
 * on the same history in the same run, prints the ratio, and compares the samples: the same ids,
 * the same texts for every sample without a diff (`sr`), and for the others how many texts differ
 * (the diff is git's own text since issue 32, see docs/fim.md).
 *
 * `--baseline-context`: this build builds the context 38a73f5 built (changed files and related
 * ones: `--retrieve 0 --context-tokens 0`; BM25 retrieval and the token budget came with issue 30),
 * so both builds do the same work.
 *
 * `--history PATH`: another history instead, a git repository or a bundle (cloned into
 * .bench/edits/), walked at `--rev` (default HEAD): the shared go-readability bundle
 * (../shared/data/histories/, 187 commits with large HTML test fixtures) is the history-heavy case.
 *
 * `--samples N`: each round walks N times with each build, alternated, and prints the median wall
 * and the median CPU time of each (and every walk's): on a loaded machine one walk's CPU time
 * varies by a third, more than the changes it is to show.
 *
 *   npm run bench:history -- [--baseline /tmp/midpack-main] [--baseline-context] [--rounds 1] [--samples 1] [--history PATH [--rev REV]]
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { repoRoot } from '../test/helpers/paths.js';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const history = opt('--history');
const REV = opt('--rev') ?? (history ? 'HEAD' : '38a73f5');
const dir = join(repoRoot, '.bench', 'edits');
const baseline = opt('--baseline');
const rounds = Number(opt('--rounds') ?? 1);
/** Walks per build in a round, the builds alternated: the median is printed (one walk on a loaded 2-core machine varies by a third). */
const samples = Math.max(1, Number(opt('--samples') ?? 1));
const sameContext = args.includes('--baseline-context') ? ['--retrieve', '0', '--context-tokens', '0'] : [];

/** The history walked: midpack's own, or `--history` (a bundle or a repository), cloned without a checkout. */
function cloneHistory(): string {
  const from = history ?? repoRoot;
  const repo = join(dir, history ? basename(history, '.bundle') : 'midpack');
  if (!existsSync(join(repo, 'HEAD')) && !existsSync(join(repo, '.git'))) {
    mkdirSync(dir, { recursive: true });
    const r = spawnSync('git', ['clone', '--quiet', '--no-local', '--no-checkout', from, repo], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git clone failed: ${r.stderr}`);
  }
  return repo;
}

/** A `git` that counts its starts in a file, then is the real git. */
function countingGit(): { bin: string; counter: string } {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  const counter = join(dir, 'git-starts');
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$1 $2 $3 $4 $5" >> "${counter}"\nexec "${real}" "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  return { bin, counter };
}

interface Measure {
  seconds: number;
  /** User and system CPU seconds, git's included. */
  cpu: number;
  rssMB: number;
  gitStarts: number;
  byCommand: Record<string, number>;
  manifest: { ledger: { records_in: number; records_out: number; dropped: Record<string, number> }; stats: { edits: { samples: Record<string, number>; git_apply_checked: number } } };
  out: string;
}

function runEdits(root: string, repo: string, name: string, extra: string[] = []): Measure {
  const { bin, counter } = countingGit();
  rmSync(counter, { force: true });
  const out = join(dir, `${name}.jsonl`);
  const cli = join(root, 'dist', 'src', 'cli', 'main.js');
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', process.execPath, cli, 'edits', repo, '--rev', REV, '--out', out, '--quiet', ...extra], { encoding: 'utf8', env });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${name}: midpack edits failed: ${r.stderr.slice(-2000)}`);
  const starts = existsSync(counter) ? readFileSync(counter, 'utf8').trim().split('\n').filter(Boolean) : [];
  const byCommand: Record<string, number> = {};
  for (const s of starts) {
    const words = s.split(' ');
    const cmd = words[0] === '-C' ? (words[2] === '-c' ? words[4]! : words[2]!) : words[0]!;
    byCommand[cmd] = (byCommand[cmd] ?? 0) + 1;
  }
  const lines = r.stderr.trim().split('\n');
  const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'));
  const [rss, user, sys] = lines[lines.length - 1]!.split(' ').map(Number) as [number, number, number];
  return { seconds, cpu: user + sys, rssMB: rss / 1024, gitStarts: starts.length, byCommand, manifest, out };
}

const docsOf = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; text: string; meta: { format: string } });

function describe(label: string, m: Measure, commits: number): string {
  const l = m.manifest.ledger;
  return [
    `${label}: ${m.seconds.toFixed(2)} s (CPU ${m.cpu.toFixed(2)} s), ${(commits / m.seconds).toFixed(1)} commits/s, git processes started ${m.gitStarts} (${Object.entries(m.byCommand).map(([k, v]) => `${k} ${v}`).join(', ')}), peak RSS ${m.rssMB.toFixed(0)} MB`,
    `  ledger: commits in ${l.records_in}, kept ${l.records_out}, dropped ${JSON.stringify(l.dropped)}; samples ${JSON.stringify(m.manifest.stats.edits.samples)}, git apply --check on ${m.manifest.stats.edits.git_apply_checked}`,
  ].join('\n');
}

function compare(a: string, b: string): string {
  const x = docsOf(a);
  const y = docsOf(b);
  const ids = x.map((d) => d.id).join() === y.map((d) => d.id).join();
  const other = new Map(y.map((d) => [d.id, d]));
  const differs: Record<string, number> = {};
  const only: Record<string, number> = {};
  for (const d of x) {
    const o = other.get(d.id);
    if (!o) only[`this:${d.meta.format}`] = (only[`this:${d.meta.format}`] ?? 0) + 1;
    else if (o.text !== d.text) differs[d.meta.format] = (differs[d.meta.format] ?? 0) + 1;
    other.delete(d.id);
  }
  for (const d of other.values()) only[`baseline:${d.meta.format}`] = (only[`baseline:${d.meta.format}`] ?? 0) + 1;
  return `samples: ${x.length} against ${y.length}, same ids in the same order: ${ids}; only in one: ${JSON.stringify(only)}; texts that differ, by format: ${JSON.stringify(differs)}`;
}

const repo = cloneHistory();
const commits = Number(spawnSync('git', ['-C', repo, 'rev-list', '--count', REV], { encoding: 'utf8' }).stdout.trim());
process.stdout.write(`bench:history  ${history ? basename(history) : "midpack's own history"} at ${REV}: ${commits} commits, edits stage alone (formats sr,diff; git apply --check on${sameContext.length ? `; this build ${sameContext.join(' ')}` : ''})\n`);
/** Commits/s once started: the walk's time less a one-commit walk's (loading modules and the tokenizer, starting git). */
const started = (m: Measure, one: Measure) => (commits - 1) / Math.max(1e-3, m.seconds - one.seconds);
/** The walk `samples` times (this build and the baseline alternated by the caller): the median wall and the median CPU time, each over the samples, with the other figures of the first. */
function median(ms: Measure[]): Measure {
  const mid = <T>(xs: T[], by: (x: T) => number) => [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)]!;
  return { ...ms[0]!, seconds: mid(ms, (m) => m.seconds).seconds, cpu: mid(ms, (m) => m.cpu).cpu, rssMB: Math.max(...ms.map((m) => m.rssMB)) };
}

for (let round = 1; round <= rounds; round++) {
  const nows: Measure[] = [];
  const bases: Measure[] = [];
  for (let k = 0; k < samples; k++) {
    nows.push(runEdits(repoRoot, repo, 'this', sameContext));
    if (baseline) bases.push(runEdits(baseline, repo, 'baseline'));
  }
  const now = median(nows);
  const nowOne = runEdits(repoRoot, repo, 'this-one', [...sameContext, '--max-commits', '1']);
  const each = (ms: Measure[]) => (samples > 1 ? ` [each walk: ${ms.map((m) => `${m.seconds.toFixed(2)} s, CPU ${m.cpu.toFixed(2)} s`).join('; ')}]` : '');
  process.stdout.write(describe(`this build   round ${round}${samples > 1 ? `, median of ${samples}` : ''}`, now, commits) + each(nows) + '\n');
  if (baseline) {
    const base = median(bases);
    const baseOne = runEdits(baseline, repo, 'baseline-one', ['--max-commits', '1']);
    process.stdout.write(describe(`baseline     round ${round}${samples > 1 ? `, median of ${samples}` : ''}`, base, commits) + each(bases) + '\n');
    process.stdout.write(`speed-up this / baseline: ${(base.seconds / now.seconds).toFixed(2)}x in commits/s (CPU ${(base.cpu / now.cpu).toFixed(2)}x); git processes ${now.gitStarts} against ${base.gitStarts}\n`);
    const [a, b] = [started(now, nowOne), started(base, baseOne)];
    process.stdout.write(`once started (less a one-commit walk: ${nowOne.seconds.toFixed(2)} s against ${baseOne.seconds.toFixed(2)} s): ${a.toFixed(1)} commits/s against ${b.toFixed(1)}, ${(a / b).toFixed(2)}x\n`);
    process.stdout.write(compare(now.out, base.out) + '\n');
  }
}
