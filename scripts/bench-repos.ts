/**
 * Benchmark of repository serialization (npm run bench:repos): reading, filtering, ordering and
 * writing real source, on one core (the main thread; nothing else runs).
 *
 * The corpus is what this machine has installed: the packages of node_modules and the Debian
 * trees of headers, Python, Perl and CMake sources, each folder under a root one repository. When
 * they hold less than --min-mb of kept source, the list is read again (said in the output). A
 * first untimed pass warms the page cache, so the figure is the serializer's, not the disk's.
 * Prints MB/s of kept source and of written output, per ordering, and the peak RSS.
 *
 *   node dist/scripts/bench-repos.js [--min-mb 200] [--out FILE] [--baseline DIR | --baseline-commit REV] [--rounds 5]
 *
 * With --baseline DIR (another checkout, built) or --baseline-commit REV (a commit of this
 * repository, extracted with git archive into a temporary folder and its serializer built there
 * once), each ordering runs --rounds times with each serializer in the same process, interleaved
 * (ours then the baseline's, then the other way round), and the median over the rounds of the
 * ratio of this build's MB/s per core to the baseline's is printed: load on the machine falls on
 * both sides of a round alike, and the median leaves out a round a burst of load hit on one side.
 * `--baseline-commit c6ed7a8` is the serializer before Linguist's languages (issue 41). Last, with
 * a baseline, language resolution alone: each build's languageOf over one pass's kept files,
 * interleaved by repository, and its difference as a share of this build's CPU for one pass.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultContext } from '../src/core/stage.js';
import { writeDocsJsonl } from '../src/io/jsonl.js';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serializeRepos, type OrderWeights } from '../src/stages/repos/index.js';
import { DEFAULT_FILTERS } from '../src/stages/repos/filters.js';
import { languageOf } from '../src/stages/repos/languages.js';
import { repositoryFolders } from '../src/stages/repos/serialize.js';
import { readFolderRepo } from '../src/stages/repos/sources.js';

type Serialize = typeof serializeRepos;
type LanguageOf = typeof languageOf;

const ROOTS = [
  'node_modules',
  '/usr/include',
  '/usr/lib/python3.11',
  '/usr/lib/python3/dist-packages',
  '/usr/share/perl',
  '/usr/lib/x86_64-linux-gnu/perl',
  '/usr/lib/node_modules',
  '/usr/share/cmake-3.25',
];

interface Run {
  seconds: number;
  /** User + system CPU time of this process: the cost on one core, whatever else the machine runs. */
  cpuSeconds: number;
  keptBytes: number;
  outBytes: number;
  docs: number;
  filesIn: number;
  filesOut: number;
}

async function run(inputs: string[], order: OrderWeights, out: string, serialize: Serialize = serializeRepos): Promise<Run> {
  const ctx = defaultContext({ seed: 1, log: () => {} });
  let keptBytes = 0;
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  async function* counted() {
    for await (const d of serialize(inputs, { order, layout: 'collection' }, ctx)) {
      keptBytes += d.meta.bytes as number;
      yield d;
    }
  }
  const docs = await writeDocsJsonl(out, counted());
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  if (!ctx.ledger.balanced()) throw new Error('the ledger does not balance');
  return { seconds, cpuSeconds, keptBytes, outBytes: statSync(out).size, docs, filesIn: ctx.ledger.recordsIn, filesOut: ctx.ledger.recordsOut };
}

const MB = 1 << 20;
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function loadSerializer(checkout: string): Promise<Serialize> {
  const file = resolve(checkout, 'dist', 'src', 'stages', 'repos', 'index.js');
  if (!existsSync(file)) throw new Error(`--baseline ${checkout}: ${file} is missing (build that checkout first)`);
  return ((await import(pathToFileURL(file).href)) as { serializeRepos: Serialize }).serializeRepos;
}

/**
 * A commit's serializer, built once in a temporary folder: its tree from git archive, this
 * checkout's node_modules linked in, and only the serializer's module graph compiled (a
 * tsconfig that includes its index, so tsc follows its imports and nothing else).
 */
function buildCommit(rev: string): string {
  const sha = execFileSync('git', ['-C', REPO_ROOT, 'rev-parse', '--verify', `${rev}^{commit}`], { encoding: 'utf8' }).trim();
  const dir = join(tmpdir(), `midpack-bench-baseline-${sha.slice(0, 12)}`);
  if (existsSync(join(dir, 'dist', 'src', 'stages', 'repos', 'index.js'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tar = execFileSync('git', ['-C', REPO_ROOT, 'archive', '--format=tar', sha], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  symlinkSync(realpathSync(join(REPO_ROOT, 'node_modules')), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'tsconfig.bench.json'), JSON.stringify({ extends: './tsconfig.json', include: ['src/stages/repos/index.ts'] }));
  execFileSync(process.execPath, [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.bench.json')], { stdio: 'inherit' });
  return dir;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const perCore = (r: Run) => r.keptBytes / MB / r.cpuSeconds;
const perWall = (r: Run) => r.keptBytes / MB / r.seconds;

/** Rounds of this build and the baseline interleaved (AB, BA, AB, ...); the per-round ratios and their median, per core and wall. */
async function compare(name: string, rounds: number, go: (serialize: Serialize) => Promise<Run>, baseline: Serialize) {
  const core: number[] = [];
  const wall: number[] = [];
  const cpu: number[] = [];
  const rates: [number, number][] = [];
  for (let i = 0; i < rounds; i++) {
    let ours: Run;
    let base: Run;
    if (i % 2 === 0) [ours, base] = [await go(serializeRepos), await go(baseline)];
    else [base, ours] = [await go(baseline), await go(serializeRepos)];
    // The filters may differ between the builds (Linguist's vendored and generated paths): said once.
    if (i === 0 && ours.keptBytes !== base.keptBytes) console.log(`  (${(ours.keptBytes / MB).toFixed(1)} MB kept by this build, ${(base.keptBytes / MB).toFixed(1)} MB by the baseline)`);
    core.push(perCore(ours) / perCore(base));
    wall.push(perWall(ours) / perWall(base));
    rates.push([perCore(ours), perCore(base)]);
    cpu.push(ours.cpuSeconds);
  }
  console.log(
    `${name.padEnd(42)} this build / baseline, MB/s per core: median ${median(core).toFixed(3)} of ${rounds} rounds ` +
      `[${core.map((r) => r.toFixed(3)).join(' ')}]; wall median ${median(wall).toFixed(3)}; ` +
      `per core ${median(rates.map((r) => r[0])).toFixed(1)} vs ${median(rates.map((r) => r[1])).toFixed(1)} MB/s`,
  );
  return { ratio: median(core), cpuSeconds: median(cpu) };
}

/**
 * Language resolution alone: each build's languageOf over the kept files of one pass of the
 * corpus (each repository read once, both builds timed on it, who goes first alternating), in
 * CPU seconds. The baseline before Linguist named a file by its path alone.
 */
function compareLanguages(roots: string[], baseline: LanguageOf): { ours: number; base: number; files: number; bytes: number } {
  const total = { ours: 0, base: 0, files: 0, bytes: 0 };
  const time = (resolve: LanguageOf, files: { path: string; content: string }[]) => {
    const cpu = process.cpuUsage();
    for (const f of files) resolve(f.path, f.content);
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1e6;
  };
  let turn = 0;
  for (const root of roots) {
    for (const dir of repositoryFolders(root, 'collection')) {
      const files = readFolderRepo(dir, DEFAULT_FILTERS).files.filter((f) => f.reason === undefined) as { path: string; content: string; bytes: number }[];
      if (turn++ % 2 === 0) [total.ours, total.base] = [total.ours + time(languageOf, files), total.base + time(baseline, files)];
      else [total.base, total.ours] = [total.base + time(baseline, files), total.ours + time(languageOf, files)];
      total.files += files.length;
      total.bytes += files.reduce((n, f) => n + f.bytes, 0);
    }
  }
  return total;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'min-mb': { type: 'string', default: '200' },
      out: { type: 'string' },
      baseline: { type: 'string' },
      'baseline-commit': { type: 'string' },
      rounds: { type: 'string', default: '5' },
    },
  });
  const baselineDir = values['baseline-commit'] ? buildCommit(values['baseline-commit']) : values.baseline;
  const baseline = baselineDir ? await loadSerializer(baselineDir) : undefined;
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds ${values.rounds}: a whole number of at least 1`);
  const minBytes = Number(values['min-mb']) * MB;
  const out = values.out ?? join(tmpdir(), `midpack-bench-repos-${process.pid}.jsonl`);
  const roots = ROOTS.filter((r) => existsSync(r));
  // One untimed pass (each serializer's, when there is a baseline): warms the page cache and measures how much source the roots hold.
  const warm = await run(roots, { alpha: 1 }, out);
  if (baseline) await run(roots, { alpha: 1 }, out, baseline);
  const passes = Math.max(1, Math.ceil(minBytes / warm.keptBytes));
  const inputs = Array.from({ length: passes }, () => roots).flat();
  console.log(`corpus: ${roots.join(' ')}`);
  console.log(
    `  ${warm.filesIn} files seen, ${warm.filesOut} kept in ${warm.docs} repositories, ${(warm.keptBytes / MB).toFixed(1)} MB of kept source` +
      (passes > 1 ? `; read ${passes} times to reach ${values['min-mb']} MB` : ''),
  );
  if (baselineDir) console.log(`baseline: ${values['baseline-commit'] ? `${values['baseline-commit']} built in ` : ''}${baselineDir}`);
  const orders: [string, OrderWeights][] = [
    ['mixed alpha=0.3,dependency=0.5,random=0.2', { alpha: 0.3, dependency: 0.5, random: 0.2 }],
    ['alpha', { alpha: 1 }],
    ['dependency', { dependency: 1 }],
    ['random', { random: 1 }],
  ];
  const line = (name: string, r: Run) => {
    const mb = r.keptBytes / MB;
    console.log(
      `${name.padEnd(42)} ${mb.toFixed(1)} MB source, ${(r.outBytes / MB).toFixed(1)} MB written: ` +
        `${r.seconds.toFixed(2)} s wall = ${(mb / r.seconds).toFixed(1)} MB/s; ${r.cpuSeconds.toFixed(2)} s CPU = ${(mb / r.cpuSeconds).toFixed(1)} MB/s per core`,
    );
  };
  const ratios: number[] = [];
  let alphaCpu = 0;
  for (const [name, order] of orders) {
    if (!baseline) {
      line(name, await run(inputs, order, out));
      continue;
    }
    const { ratio, cpuSeconds } = await compare(name, rounds, (serialize) => run(inputs, order, out, serialize), baseline);
    ratios.push(ratio);
    if (name === 'alpha') alphaCpu = cpuSeconds;
  }
  if (baseline) console.log(`slowest ordering against the baseline: ${Math.min(...ratios).toFixed(3)} (within 5%: ${Math.min(...ratios) >= 0.95 ? 'yes' : 'no'})`);
  if (baselineDir) {
    const baseLanguageOf = ((await import(pathToFileURL(resolve(baselineDir, 'dist', 'src', 'stages', 'repos', 'languages.js')).href)) as { languageOf: LanguageOf }).languageOf;
    const l = compareLanguages(roots, baseLanguageOf);
    const perPass = alphaCpu / passes;
    console.log(
      `language resolution alone, ${l.files} kept files (${(l.bytes / MB).toFixed(1)} MB, one pass): this build ${l.ours.toFixed(3)} s CPU, baseline ${l.base.toFixed(3)} s; ` +
        `the difference is ${((100 * (l.ours - l.base)) / perPass).toFixed(1)}% of this build's CPU for one pass in alpha order (${perPass.toFixed(2)} s, serializing and writing)`,
    );
  }
  rmSync(out, { force: true });
  rmSync(`${out}.manifest.json`, { force: true });
  console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
}

await main();
