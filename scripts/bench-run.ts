/**
 * npm run bench:run — the example mix at scale through `midpack run`, against tokenization alone.
 *
 * Input (built once in .bench/run/, over 500 MB): real repositories (the npm packages in
 * node_modules, the machine's C headers and Python packages, one repository per folder), the 130
 * real web pages of the Readability test set, the p-limit release history, and the real code and
 * prose documents of the e2e corpus. The config is examples/pipeline.yaml with these inputs.
 *
 * It runs `midpack run` (all stages, masking, tokenization, packing, writing), then tokenizes the
 * documents that run prepared (OUT/.run/docs.jsonl) with the same worker count and nothing else,
 * and prints both throughputs, their ratio (target >= 0.8), peak RSS (target < 2 GB) and the
 * report's figures.
 *
 *   npm run bench:run -- [--workers 2]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { repoRoot, readabilityPages } from '../test/helpers/paths.js';
import { buildE2eCorpus } from './build-e2e-corpus.js';

const dir = join(repoRoot, '.bench', 'run');
const args = process.argv.slice(2);
const workers = Number(args[args.indexOf('--workers') + 1] ?? 0) || 2;

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

async function buildInputs(): Promise<{ config: string; bytes: number }> {
  mkdirSync(dir, { recursive: true });
  // each subfolder of these is one repository: the packages of node_modules, /usr/include's folders, Python packages
  const repoRoots = [join(repoRoot, 'node_modules'), '/usr/include', '/usr/lib/python3/dist-packages', '/usr/lib/python3.11'].filter(existsSync);
  const docs = join(dir, 'docs.jsonl');
  if (!existsSync(docs)) await buildE2eCorpus(docs, 200);
  const cfg = YAML.parse(readFileSync(join(repoRoot, 'examples', 'pipeline.yaml'), 'utf8'));
  cfg.out = join(dir, 'out');
  const inputs: Record<string, string[]> = {
    repos: repoRoots,
    web: [readabilityPages],
    history: [join(repoRoot, 'data-samples', 'history', 'p-limit.bundle')],
    docs: [docs],
    trajectories: [join(repoRoot, 'data-samples', 'trajectories')],
  };
  for (const s of cfg.sources) s.inputs = inputs[s.name];
  cfg.sources[0].options.layout = 'collection';
  cfg.workers = workers;
  const config = join(dir, 'pipeline.yaml');
  writeFileSync(config, YAML.stringify(cfg));
  const bytes = Object.values(inputs).flat().reduce((s, p) => s + du(p), 0);
  return { config, bytes };
}

function timed(cmd: string[], env: Record<string, string> = {}): { seconds: number; stdout: string; maxRssMB: number } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...cmd], { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 26 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${cmd.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const lines = r.stderr.trim().split('\n');
  return { seconds, stdout: r.stdout, maxRssMB: Number(lines[lines.length - 1]) / 1024 };
}

const { config, bytes } = await buildInputs();
rmSync(join(dir, 'out'), { recursive: true, force: true });
process.stderr.write(`bench:run  input ${(bytes / 1e6).toFixed(0)} MB (repos, web pages, git history, documents), ${workers} workers\n`);
const cli = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const run = timed([cli, 'run', config, '--workers', String(workers), '--keep-work', '--no-progress']);
const prepared = join(dir, 'out', '.run', 'docs.jsonl');
const preparedBytes = statSync(prepared).size;
const tok = timed([join(repoRoot, 'dist', 'scripts', 'bench-e2e.js'), '--child', 'tokenize', prepared, String(workers), join(dir, 'tok-out')]);
const tokMeasure = JSON.parse(tok.stdout.trim().split('\n').pop()!);
const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
const p = report.packing;
const mb = (b: number, s: number) => (b / 1e6 / s).toFixed(2);
process.stdout.write(
  [
    `midpack run (all stages + pack)     ${run.seconds.toFixed(1)} s  ${mb(bytes, run.seconds)} MB/s of input, ${mb(preparedBytes, run.seconds)} MB/s of prepared documents, ${Math.round(p.tokens / run.seconds).toLocaleString('en-US')} tokens/s  peak RSS ${run.maxRssMB.toFixed(0)} MB`,
    `tokenization alone (same documents) ${tok.seconds.toFixed(1)} s  ${mb(preparedBytes, tok.seconds)} MB/s, ${Math.round(tokMeasure.tokens / tok.seconds).toLocaleString('en-US')} tokens/s  peak RSS ${tok.maxRssMB.toFixed(0)} MB`,
    `run / tokenization alone:           ${(tok.seconds / run.seconds).toFixed(3)}  (target >= 0.8)`,
    `peak RSS of the run:                ${run.maxRssMB.toFixed(0)} MB  (target < 2048)`,
    `report: ${p.documents.toLocaleString('en-US')} documents, ${p.tokens.toLocaleString('en-US')} tokens, ${p.bins} bins (lower bound ${p.lower_bound}, ratio ${p.bins_over_lower_bound.toFixed(6)}), padding ${(p.padding_rate * 100).toFixed(4)}%, fragmentation ${(p.fragmentation_rate * 100).toFixed(2)}%, overlong ${(p.overlong_rate * 100).toFixed(3)}% (${p.overlong_policy}), masked ${(report.masked_fraction * 100).toFixed(2)}%`,
    `by kind: ${Object.entries(report.by_kind as Record<string, { tokens: number }>).map(([k, g]) => `${k} ${g.tokens.toLocaleString('en-US')}`).join(', ')}`,
  ].join('\n') + '\n',
);
rmSync(join(dir, 'out'), { recursive: true, force: true });
rmSync(join(dir, 'tok-out'), { recursive: true, force: true });
