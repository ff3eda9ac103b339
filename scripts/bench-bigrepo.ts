/**
 * npm run bench:bigrepo — memory of `midpack run` at the defaults when one repository is huge.
 *
 * Input (built once in .bench/bigrepo/): ONE repository of about 60M characters of real source
 * (the npm packages of node_modules, the Python standard library and the machine's C headers,
 * copied into one folder), the 130 real web pages of the Readability test set, the p-limit
 * release history and the real documents of data-samples/docs. The config is
 * examples/pipeline.yaml with these inputs and its defaults.
 *
 * It runs the prepare step and the pack step as two processes (`--phase prepare`, then
 * `--phase pack`) and prints the peak RSS of each (target < 1 GB), how many parts the big
 * repository became, and the largest prepared document.
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
    repos: [repos],
    web: [readabilityPages],
    history: [join(repoRoot, 'data-samples', 'history', 'p-limit.bundle')],
    docs: [join(repoRoot, 'data-samples', 'docs')],
  };
  for (const s of cfg.sources) s.inputs = inputs[s.name];
  cfg.sources[0].options.layout = 'collection';
  const config = join(dir, 'pipeline.yaml');
  writeFileSync(config, YAML.stringify(cfg));
  return config;
}

function runPhase(config: string, phase: 'prepare' | 'pack'): { seconds: number; rssMb: number } {
  const t0 = performance.now();
  const hook = join(repoRoot, 'dist', 'scripts', 'rss-at-exit.js');
  const r = spawnSync(process.execPath, ['--import', hook, join(repoRoot, 'dist', 'src', 'cli', 'main.js'), 'run', config, '--phase', phase, '--no-progress'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = (performance.now() - t0) / 1000;
  const m = /midpack-bench: peak RSS (\d+) MB/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`run --phase ${phase} failed (${r.status}):\n${r.stderr.slice(-3000)}`);
  return { seconds, rssMb: Number(m[1]) };
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
console.log(`input: one repository of ${(Number(readFileSync(join(dir, 'built'), 'utf8')) / 1e6).toFixed(1)} MB of real source, 130 web pages, a git history, data-samples/docs`);
const prepare = runPhase(config, 'prepare');
const figures = await preparedFigures(join(dir, 'out', '.run', 'docs.jsonl'));
const pack = runPhase(config, 'pack');
const manifest = JSON.parse(readFileSync(join(dir, 'out', 'manifest.json'), 'utf8')) as { counts?: Record<string, unknown>; accounting?: unknown };
console.log(`prepared ${figures.documents} documents; the big repository (${(figures.bigChars / 1e6).toFixed(1)}M characters, FIM samples included) in ${figures.parts} documents; largest document ${(figures.largest / 1e6).toFixed(2)}M characters`);
console.log(`prepare: ${prepare.seconds.toFixed(1)} s, peak RSS ${prepare.rssMb} MB`);
console.log(`pack:    ${pack.seconds.toFixed(1)} s, peak RSS ${pack.rssMb} MB`);
console.log(`target: each under 1024 MB -> ${prepare.rssMb < 1024 && pack.rssMb < 1024 ? 'met' : 'NOT met'}`);
console.log(`manifest counts: ${JSON.stringify(manifest.counts ?? {})}`);
