/**
 * npm run bench:bigrepo — memory of a whole `midpack run` at the defaults when one repository is huge.
 *
 * Input (built once in .bench/bigrepo/): ONE repository of about 60M characters of real source
 * (the npm packages of node_modules, the Python standard library and the machine's C headers,
 * copied into one folder) next to the real repositories of data-samples/repos, the 130 real web
 * pages of the Readability test set, the p-limit release history, the real documents of
 * data-samples/docs and the real trajectories of data-samples/trajectories. The config is
 * examples/pipeline.yaml with these inputs and its defaults (masking on, L = 262,144, boundary cuts).
 *
 * It runs the whole pipeline in one process, as a user does (`midpack run CONFIG`), and prints the
 * peak RSS of each phase (report.json `peak_rss_mb`: prepare+tokenize, mask, plan, write) and of the
 * process (target < 1 GB), whether the accounting balances, how many parts the big repository
 * became, and the largest prepared document.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import YAML from 'yaml';
import { repoRoot, readabilityPages } from '../test/helpers/paths.js';

const dir = join(repoRoot, '.bench', 'bigrepo');
const TARGET_BYTES = 62_000_000;
const TEXT = /\.(js|mjs|cjs|ts|mts|cts|py|h|hpp|c|cc|md)$/;

/** Copies real source files (each under 1 MB) into one repository folder until TARGET_BYTES. */
function buildBigRepo(repo: string): number {
  let bytes = 0;
  const roots: [string, string][] = [
    [join(repoRoot, 'node_modules'), 'js'],
    ['/usr/lib/python3.11', 'python'],
    ['/usr/include', 'include'],
  ];
  for (const [root, as] of roots) {
    if (!existsSync(root)) continue;
    const files = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && TEXT.test(e.name))
      .map((e) => join(e.parentPath, e.name))
      .sort();
    for (const f of files) {
      if (bytes >= TARGET_BYTES) return bytes;
      const size = statSync(f).size;
      if (size === 0 || size > 1 << 20) continue;
      // Folder names that the repository filters treat as vendored are renamed, so the code counts.
      const rel = relative(root, f).replace(/(^|\/)(node_modules|site-packages|vendor)(?=\/)/g, '$1$2_');
      const to = join(repo, as, rel);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(f, to);
      bytes += size;
    }
  }
  return bytes;
}

function buildInputs(): string {
  const repos = join(dir, 'repos');
  const big = join(repos, 'bigrepo');
  if (!existsSync(join(dir, 'built'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(big, { recursive: true });
    const bytes = buildBigRepo(big);
    writeFileSync(join(dir, 'built'), `${bytes}\n`);
  }
  const cfg = YAML.parse(readFileSync(join(repoRoot, 'examples', 'pipeline.yaml'), 'utf8'));
  cfg.out = join(dir, 'out');
  const inputs: Record<string, string[]> = {
    repos: [repos, join(repoRoot, 'data-samples', 'repos')],
    web: [readabilityPages],
    history: [join(repoRoot, 'data-samples', 'history', 'p-limit.bundle')],
    docs: [join(repoRoot, 'data-samples', 'docs')],
    trajectories: [join(repoRoot, 'data-samples', 'trajectories')],
  };
  for (const s of cfg.sources) s.inputs = inputs[s.name];
  cfg.sources[0].options.layout = 'collection';
  const config = join(dir, 'pipeline.yaml');
  writeFileSync(config, YAML.stringify(cfg));
  return config;
}

/** The whole run in one process (--keep-work: the prepared documents stay for the figures below). */
function runAll(config: string): { seconds: number; rssMb: number; stderr: string } {
  const t0 = performance.now();
  const hook = join(repoRoot, 'dist', 'scripts', 'rss-at-exit.js');
  const r = spawnSync(process.execPath, ['--import', hook, join(repoRoot, 'dist', 'src', 'cli', 'main.js'), 'run', config, '--no-progress', '--keep-work'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = (performance.now() - t0) / 1000;
  const m = /midpack-bench: peak RSS (\d+) MB/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`run failed (${r.status}):\n${r.stderr.slice(-3000)}`);
  return { seconds, rssMb: Number(m[1]), stderr: r.stderr };
}

/** The prepared documents of the big repository: parts and their sizes, streamed. */
async function preparedFigures(docs: string): Promise<{ documents: number; parts: number; largest: number; bigChars: number }> {
  let documents = 0;
  let parts = 0;
  let largest = 0;
  let bigChars = 0;
  for await (const line of createInterface({ input: createReadStream(docs) })) {
    if (!line) continue;
    const d = JSON.parse(line) as { kind: string; text: string; meta: { repo?: string; parts?: number } };
    documents++;
    largest = Math.max(largest, d.text.length);
    if (d.meta.repo === 'bigrepo') {
      parts++;
      bigChars += d.text.length;
    }
  }
  return { documents, parts, largest, bigChars };
}

const config = buildInputs();
rmSync(join(dir, 'out'), { recursive: true, force: true });
console.log(`input: one repository of ${(Number(readFileSync(join(dir, 'built'), 'utf8')) / 1e6).toFixed(1)} MB of real source and data-samples/repos, 130 web pages, a git history, data-samples/docs, data-samples/trajectories`);
const run = runAll(config);
const figures = await preparedFigures(join(dir, 'out', '.run', 'docs.jsonl'));
const manifest = JSON.parse(readFileSync(join(dir, 'out', 'manifest.json'), 'utf8')) as { balanced: boolean; counts?: Record<string, unknown> };
const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8')) as { packing: { tokens: number; bins: number; lower_bound: number }; peak_rss_mb?: Record<string, number> };
const stagesBalanced = !/NOT balanced/.test(run.stderr);
console.log(`prepared ${figures.documents} documents; the big repository (${(figures.bigChars / 1e6).toFixed(1)}M characters, FIM samples included) in ${figures.parts} documents; largest document ${(figures.largest / 1e6).toFixed(2)}M characters`);
console.log(`packed ${report.packing.tokens.toLocaleString('en-US')} tokens into ${report.packing.bins} bins (lower bound ${report.packing.lower_bound}); accounting ${manifest.balanced && stagesBalanced ? 'balanced' : 'NOT balanced'}`);
console.log(`run: ${run.seconds.toFixed(1)} s, peak RSS ${run.rssMb} MB`);
console.log(`peak RSS by phase: ${Object.entries(report.peak_rss_mb ?? {}).map(([k, v]) => `${k} ${v} MB`).join(', ')}`);
console.log(`target: under 1024 MB -> ${run.rssMb < 1024 ? 'met' : 'NOT met'}`);
console.log(`manifest counts: ${JSON.stringify(manifest.counts ?? {})}`);
rmSync(join(dir, 'out', '.run'), { recursive: true, force: true });
