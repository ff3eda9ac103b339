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
 * It also measures the machine's own ceiling for that speedup (`cores`): the first CORE_MB of
 * the corpus's texts, read into memory before the clock starts, tokenized by W worker threads
 * and by one, each thread given its share up front, so no reading, parsing, messages or main
 * thread work is timed: only the tokenizer on the cores, as the pack's workers run it.
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
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../test/helpers/paths.js';
import { buildE2eCorpus } from './build-e2e-corpus.js';
import type { MemoBuffers } from '../src/tokenize/piece-memo.js';
import type { ResolvedBackend, TokenizerBackend } from '../src/tokenize/tokenizer.js';

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

/** Megabytes of text the `cores` measurement tokenizes (the same on 1 worker and on W). */
const CORE_MB = 100;

/** A `cores` thread: tokenizes its share when told to go, and says how long it took. */
async function coreThread(): Promise<void> {
  const { loadTokenizer } = await import('../src/tokenize/tokenizer.js');
  const { encodeBatch } = await import('../src/tokenize/batch.js');
  const { texts, backend, vocabulary } = workerData as { texts: string[]; backend: ResolvedBackend; vocabulary?: MemoBuffers };
  const tokenizer = await loadTokenizer('qwen3', backend, true, { vocabulary });
  parentPort!.once('message', () => {
    const t0 = performance.now();
    let tokens = 0;
    // Batches as the pool closes them (256K characters or 512 documents).
    for (let i = 0; i < texts.length; ) {
      let j = i;
      let chars = 0;
      while (j < texts.length && j - i < 512 && chars < 1 << 18) chars += texts[j++]!.length;
      tokens += encodeBatch(tokenizer, texts.slice(i, j).map((text) => ({ text }))).ids.length;
      i = j;
    }
    parentPort!.postMessage({ tokens, ms: performance.now() - t0 });
  });
  parentPort!.postMessage('ready');
}

/** The first CORE_MB of the corpus's texts, dealt to `workers` shares of about equal length. */
async function coreShares(input: string, workers: number): Promise<{ shares: string[][]; bytes: number }> {
  const { Ledger } = await import('../src/core/ledger.js');
  const { readDocuments } = await import('../src/io/documents.js');
  const shares: string[][] = Array.from({ length: workers }, () => []);
  const lens = new Array<number>(workers).fill(0);
  let bytes = 0;
  for await (const d of readDocuments([input], new Ledger())) {
    if (bytes >= CORE_MB * 1e6) break;
    const w = lens.indexOf(Math.min(...lens));
    shares[w]!.push(d.text);
    lens[w]! += d.text.length;
    bytes += Buffer.byteLength(d.text);
  }
  return { shares, bytes };
}

/** Tokenizes the in-memory shares on `workers` threads; the clock runs from "go" to the last reply. */
async function coreRun(input: string, workers: number, backend: ResolvedBackend): Promise<Omit<Measure, 'mode' | 'maxRssMB'>> {
  const { shares, bytes } = await coreShares(input, workers);
  const { sharedVocabulary } = await import('../src/tokenize/tokenizer.js');
  const vocabulary = backend === 'fast' ? sharedVocabulary('qwen3') : undefined; // as the pool shares it
  const threads = shares.map((texts) => new Worker(fileURLToPath(import.meta.url), { workerData: { texts, backend, vocabulary } }));
  await Promise.all(threads.map((t) => new Promise((ok) => t.once('message', ok))));
  const u0 = process.resourceUsage();
  const t0 = performance.now();
  const done = await Promise.all(threads.map((t) => new Promise<{ tokens: number; ms: number }>((ok) => { t.once('message', ok); t.postMessage('go'); })));
  const seconds = (performance.now() - t0) / 1000;
  const u1 = process.resourceUsage();
  if (process.env.BENCH_VERBOSE) process.stderr.write(`cores ${workers}: ${seconds.toFixed(2)} s, user ${((u1.userCPUTime - u0.userCPUTime) / 1e6).toFixed(2)} s, sys ${((u1.systemCPUTime - u0.systemCPUTime) / 1e6).toFixed(2)} s, minor faults ${u1.minorPageFault - u0.minorPageFault}\n`);
  await Promise.all(threads.map((t) => t.terminate()));
  const tokens = done.reduce((a, d) => a + d.tokens, 0);
  return { workers, seconds, bytes, tokens, workerBusy: done.map((d) => d.ms / 1000 / seconds) };
}

async function child(mode: string, input: string, workers: number, out: string, requested: string): Promise<void> {
  const { lastPoolStats } = await import('../src/tokenize/pool.js');
  const { resolveTokenizerBackend } = await import('../src/tokenize/tokenizer.js');
  const { backend } = await resolveTokenizerBackend('qwen3', requested as TokenizerBackend);
  if (mode === 'cores') {
    const m = await coreRun(input, workers, backend);
    process.stdout.write(JSON.stringify({ mode, ...m, maxRssMB: process.resourceUsage().maxRSS / 1024 }) + '\n');
    return;
  }
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
  const trials: Measure[][] = [[], [], [], [], [], []];
  for (let r = 0; r < rounds; r++) {
    trials[0]!.push(run('tokenize', big, workers));
    trials[1]!.push(run('pack', big, workers));
    trials[2]!.push(run('pack', big, 1));
    trials[3]!.push(run('tokenize', big, 1));
    trials[4]!.push(run('cores', big, workers));
    trials[5]!.push(run('cores', big, 1));
  }
  const fastest = (ms: Measure[]) => ms.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  const [tok, pack, pack1, tok1, cores, cores1] = trials.map(fastest) as [Measure, Measure, Measure, Measure, Measure, Measure];
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
    roundTimes(`cores, ${workers} workers`, trials[4]!),
    roundTimes('cores, 1 worker', trials[5]!),
    line(`tokenize alone, ${backendArg}, ${workers} workers`, tok),
    line(`pack, ${backendArg}, ${workers} workers`, pack),
    line(`pack, ${backendArg}, 1 worker`, pack1),
    line(`tokenize alone, ${backendArg}, 1 worker`, tok1),
    line(`cores, ${backendArg}, ${workers} workers (${CORE_MB} MB)`, cores),
    line(`cores, ${backendArg}, 1 worker (${CORE_MB} MB)`, cores1),
    line(`pack, ${backendArg}, ${workers} w, half corpus`, packHalf),
    line('pack, hf, 1 worker', packHf1),
    `pack MB/s per worker, ${backendArg} / hf (1 worker):  ${perWorker.toFixed(2)}x  (target >= 2)`,
    `pack / tokenize alone (${workers} workers):   ${ratio.toFixed(3)}  (target >= 0.9)`,
    `pack speedup 1 -> ${workers} workers:          ${speedup.toFixed(3)}  (target >= 1.8)`,
    `tokenize alone 1 -> ${workers} workers:        ${(mbOf(tok) / mbOf(tok1)).toFixed(3)}  (the pack's ceiling: the same workers with nothing else to do)`,
    `cores 1 -> ${workers} workers:                 ${(mbOf(cores) / mbOf(cores1)).toFixed(3)}  (the machine's ceiling: the tokenizer alone on the cores, texts in memory)`,
    `peak RSS: ${maxRss.toFixed(0)} MB (target < 2048); full corpus ${pack.maxRssMB.toFixed(0)} MB vs half ${packHalf.maxRssMB.toFixed(0)} MB`,
  ];
  process.stdout.write(out.join('\n') + '\n');
}

if (isMainThread) await main();
else await coreThread();
