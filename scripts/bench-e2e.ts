/**
 * npm run bench:e2e — the whole `pack` against tokenization alone, in one run.
 *
 * Builds (once, in .bench/) a corpus of real code and prose (scripts/build-e2e-corpus.ts), then
 * measures in separate child processes, each with its own peak RSS:
 *   tokenize  read + tokenize on W workers, nothing else (the ceiling)
 *   pack      the full pack job (read, tokenize, chunks, native packing, Arrow + Megatron, report)
 * at W = 2 and W = 1, the pack at half the corpus size to show peak RSS does not grow with
 * the corpus, and the pack on 1 worker with the reference backend (hf); tokenization alone on
 * 1 worker too, whose speedup is the ceiling for the pack's. Prints, all from this one
 * run: throughputs, pack MB/s per worker with each backend and their ratio (target >= 2), the
 * pack/tokenize ratio (target >= 0.9), the 1 -> W worker speedup (target >= 1.8), how busy the
 * tokenizer workers were, and peak RSS (target < 2 GB).
 *
 * The machine is shared and its load moves by several times within minutes, so the four runs
 * the ratios compare (tokenize alone and pack, each on W workers and on 1) are made in interleaved
 * rounds and each keeps its fastest round: the one least slowed by other work. Every round's
 * time is printed.
 *
 *   npm run bench:e2e -- [--mb 200] [--workers 2] [--rounds 3] [--tokenizer-backend auto|hf|fast]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../test/helpers/paths.js';
import { buildE2eCorpus } from './build-e2e-corpus.js';

interface Measure {
  mode: string;
  workers: number;
  seconds: number;
  bytes: number;
  tokens: number;
  maxRssMB: number;
  /** Share of the wall time each tokenizer worker spent tokenizing. */
  workerBusy?: number[];
}

async function child(mode: string, input: string, workers: number, out: string, requested: string): Promise<void> {
  const { lastPoolStats } = await import('../src/tokenize/pool.js');
  const { resolveTokenizerBackend } = await import('../src/tokenize/tokenizer.js');
  const { backend } = await resolveTokenizerBackend('qwen3', requested as 'auto' | 'hf' | 'fast');
  const bytes = statSync(input).size;
  const t0 = performance.now();
  let tokens = 0;
  if (mode === 'tokenize') {
    const { Ledger } = await import('../src/core/ledger.js');
    const { readDocuments } = await import('../src/io/documents.js');
    const { TokenizePool } = await import('../src/tokenize/pool.js');
    const pool = new TokenizePool({ workers, backend });
    const ledger = new Ledger();
    for await (const [, r] of pool.map(readDocuments([input], ledger), (d) => ({ text: d.text, special_spans: d.special_spans, loss_mask_spans: d.loss_mask_spans }))) tokens += r.ids?.length ?? 0;
    await pool.close();
  } else {
    const { runPackJob, PACK_DEFAULTS } = await import('../src/job/pack-job.js');
    const s = await runPackJob({ ...PACK_DEFAULTS, inputs: [input], out, workers, tokenizerBackend: backend });
    tokens = s.report.packing.tokens;
  }
  const seconds = (performance.now() - t0) / 1000;
  const stats = lastPoolStats();
  const workerBusy = stats?.busyMs.map((b) => b / stats.wallMs);
  const m: Measure = { mode, workers, seconds, bytes, tokens, maxRssMB: process.resourceUsage().maxRSS / 1024, workerBusy };
  process.stdout.write(JSON.stringify(m) + '\n');
}

let backendArg = 'auto';
function run(mode: string, input: string, workers: number, backend = backendArg): Measure {
  const out = join(repoRoot, '.bench', `e2e-out-${mode}-${workers}`);
  rmSync(out, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', mode, input, String(workers), out, backend], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${mode} (workers ${workers}) failed with status ${r.status}`);
  rmSync(out, { recursive: true, force: true });
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Measure;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1]!, args[2]!, Number(args[3]), args[4]!, args[5]!);
  const b = args.indexOf('--tokenizer-backend');
  if (b >= 0) backendArg = args[b + 1]!;
  const opt = (name: string, dflt: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  const mb = opt('--mb', 200);
  const workers = opt('--workers', 2);
  const dir = join(repoRoot, '.bench');
  mkdirSync(dir, { recursive: true });
  const corpus = async (size: number) => {
    const p = join(dir, `e2e-${size}.jsonl`);
    if (!existsSync(p)) await buildE2eCorpus(p, size);
    return p;
  };
  const big = await corpus(mb);
  const half = await corpus(Math.round(mb / 2));
  const mbOf = (m: Measure) => m.bytes / 1e6 / m.seconds;
  const line = (label: string, m: Measure) =>
    `${label.padEnd(34)} ${mbOf(m).toFixed(2).padStart(7)} MB/s ${Math.round(m.tokens / m.seconds).toLocaleString('en-US').padStart(11)} tokens/s  ${m.seconds.toFixed(1).padStart(6)} s  peak RSS ${m.maxRssMB.toFixed(0)} MB` +
    (m.workerBusy ? `  workers busy ${m.workerBusy.map((b) => `${(100 * b).toFixed(0)}%`).join(' ')}` : '');

  process.stderr.write(`tokenizer backend: ${backendArg}\n`);
  process.stderr.write(`corpus: ${(statSync(big).size / 1e6).toFixed(0)} MB JSONL (${big}); half: ${(statSync(half).size / 1e6).toFixed(0)} MB\n`);
  const rounds = opt('--rounds', 3);
  const trials: Measure[][] = [[], [], [], []];
  for (let r = 0; r < rounds; r++) {
    trials[0]!.push(run('tokenize', big, workers));
    trials[1]!.push(run('pack', big, workers));
    trials[2]!.push(run('pack', big, 1));
    trials[3]!.push(run('tokenize', big, 1));
  }
  const fastest = (ms: Measure[]) => ms.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  const [tok, pack, pack1, tok1] = trials.map(fastest) as [Measure, Measure, Measure, Measure];
  const roundTimes = (label: string, ms: Measure[]) => `  ${label.padEnd(32)} ${ms.map((m) => `${m.seconds.toFixed(1)} s`).join('  ')}`;
  const packHalf = run('pack', half, workers);
  const packHf1 = run('pack', big, 1, 'hf');
  const ratio = mbOf(pack) / mbOf(tok);
  const speedup = mbOf(pack) / mbOf(pack1);
  const perWorker = mbOf(pack1) / mbOf(packHf1);
  const maxRss = Math.max(...trials.flat().filter((m) => m.mode === 'pack').map((m) => m.maxRssMB), packHalf.maxRssMB, packHf1.maxRssMB);
  const out = [
    `rounds (fastest kept):`,
    roundTimes(`tokenize alone, ${workers} workers`, trials[0]!),
    roundTimes(`pack, ${workers} workers`, trials[1]!),
    roundTimes('pack, 1 worker', trials[2]!),
    roundTimes('tokenize alone, 1 worker', trials[3]!),
    line(`tokenize alone, ${backendArg}, ${workers} workers`, tok),
    line(`pack, ${backendArg}, ${workers} workers`, pack),
    line(`pack, ${backendArg}, 1 worker`, pack1),
    line(`tokenize alone, ${backendArg}, 1 worker`, tok1),
    line(`pack, ${backendArg}, ${workers} w, half corpus`, packHalf),
    line('pack, hf, 1 worker', packHf1),
    `pack MB/s per worker, ${backendArg} / hf (1 worker):  ${perWorker.toFixed(2)}x  (target >= 2)`,
    `pack / tokenize alone (${workers} workers):   ${ratio.toFixed(3)}  (target >= 0.9)`,
    `pack speedup 1 -> ${workers} workers:          ${speedup.toFixed(3)}  (target >= 1.8)`,
    `tokenize alone 1 -> ${workers} workers:        ${(mbOf(tok) / mbOf(tok1)).toFixed(3)}  (the pack's ceiling: the same workers with nothing else to do)`,
    `peak RSS: ${maxRss.toFixed(0)} MB (target < 2048); full corpus ${pack.maxRssMB.toFixed(0)} MB vs half ${packHalf.maxRssMB.toFixed(0)} MB`,
  ];
  process.stdout.write(out.join('\n') + '\n');
}

await main();
