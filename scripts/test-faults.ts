/**
 * Reliability under kills (issue 17): `midpack pack` and `midpack run` are killed at random
 * points (SIGKILL at a tokenized chunk, a packed bin, a prepared document, a chunk whose masks a
 * masked run placed after tokenizing beside preparing, or after a random time) and rerun, round
 * after round, into ONE output folder that keeps holding the finished
 * output of the round before, made from other inputs and other settings. After every round:
 *
 *   - every input document is in the shards exactly once, token-exact against a fresh
 *     tokenization, and no other document is;
 *   - the manifest's counts (bins, rows, tokens, units, documents) equal what the shards hold,
 *     the Megatron files hold the same rows, and no file of an earlier round is left beside them;
 *   - no lock, work folder or temporary file is left behind;
 *   - a rerun without --overwrite into the other dataset is refused and changes no byte.
 *
 * Then bucket rounds: the same, with --out an s3:// prefix on an s3rver started here, and the
 * local staging folder wiped between some attempts (a rank resumed on another node, from what
 * the bucket holds); the finished output is brought down and checked as above, and the prefix
 * must hold no lock, work or temporary object.
 *
 *   npm run test:faults                     8 rounds (a few minutes)
 *   node dist/scripts/test-faults.js --short    CI: 3 local rounds and 1 bucket round, about two minutes
 *   options: --rounds N  --bucket-rounds N  --kills K (per round, at most)  --seed S  --budget-s T (no new round after T s)
 *
 * Seeded: the same seed makes the same rounds, inputs and kill points (a timed kill lands
 * wherever the machine has got to, which is the point of it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { repoRoot } from '../test/helpers/paths.js';
import { cliPath, hashTree } from '../test/helpers/run-cli.js';
import { outputProblems, writeDocs } from '../test/helpers/shard-check.js';
import { startS3 } from '../test/helpers/s3-server.js';
import { OUTPUT_MARKER } from '../src/io/inputs.js';
import { getObject, listObjects } from '../src/io/s3.js';

interface Args {
  rounds: number;
  /** Rounds into an s3:// prefix after the local ones. */
  bucketRounds: number;
  /** Kills per round, at most. */
  kills: number;
  seed: number;
  budgetS: number;
}

function parseArgs(argv: string[]): Args {
  const short = argv.includes('--short');
  const value = (name: string, fallback: number) => {
    const i = argv.indexOf(name);
    if (i < 0) return fallback;
    const n = Number(argv[i + 1]);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} needs a number, got ${argv[i + 1]}`);
    return n;
  };
  return { rounds: value('--rounds', short ? 3 : 8), bucketRounds: value('--bucket-rounds', short ? 1 : 3), kills: value('--kills', short ? 1 : 3), seed: value('--seed', 17), budgetS: value('--budget-s', short ? 45 : 900) };
}

/** A small seeded generator (LCG): rounds, inputs and kill points follow the seed. */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

const SOURCES = ['commander/lib/command.js', 'commander/Readme.md', 'yaml/dist/parse/lexer.js', 'yaml/dist/compose/composer.js', 'p-limit/readme.md', 'hyparquet/src/read.js'].map((f) =>
  join(repoRoot, 'node_modules', f),
);

interface Round {
  job: 'pack' | 'run';
  /** Input files (JSONL) and the documents they hold. */
  inputs: string[];
  docs: Map<string, string>;
  seqLen: number;
  /** Output settings; each round draws new ones. */
  settings: { seqLen: number; chunkTokens: number; rowsPerShard: number; name: string };
  /** A run with masking: it tokenizes while it prepares and places the masks after (kill point `masks`). */
  masked: boolean;
}

/** One round's job: which command, which inputs (fresh documents each round), which settings. */
function makeRound(dir: string, k: number, pick: (n: number) => number): Round {
  const job = k % 2 === 0 ? 'pack' : 'run';
  const docs = new Map<string, string>();
  const inputs: string[] = [];
  for (let f = 0; f < 1 + pick(2); f++) {
    const path = join(dir, `round-${k}-${f}.jsonl`);
    for (const [id, text] of writeDocs(path, `r${k}f${f}`, SOURCES, 8 + pick(25), 1000 * k + f)) docs.set(id, text);
    inputs.push(path);
  }
  const seqLen = [512, 1024, 2048][pick(3)]!;
  const settings = { seqLen, chunkTokens: 800 + pick(1500), rowsPerShard: 1 + pick(4), name: ['midpack', 'mix'][pick(2)]! };
  // Every other run round masks (rounds 1, 5, ...): not drawn, so the rounds' draws stay those of earlier seeds.
  return { job, inputs, docs, seqLen, settings, masked: k % 4 === 1 };
}

/** The command line of a round into `out` (a run gets its config written beside the inputs). */
function commandOf(r: Round, dir: string, out: string, k: number): string[] {
  const s = r.settings;
  const settings = ['--seq-len', String(s.seqLen), '--chunk-tokens', String(s.chunkTokens), '--rows-per-shard', String(s.rowsPerShard), '--name', s.name];
  if (r.job === 'pack') return ['pack', ...r.inputs, '--out', out, ...settings, '--workers', '1', '--no-progress'];
  const cfg = join(dir, `round-${k}.yaml`);
  const sources = r.inputs.map((p, i) => ({ name: `docs${i}`, type: 'documents', inputs: [p] }));
  writeFileSync(cfg, YAML.stringify({ out, seed: k, sources, pack: r.settings, ...(r.masked ? { mask: { minDocs: 2 } } : {}) }));
  return ['run', cfg, '--workers', '1', '--no-progress'];
}

/** Runs the CLI, SIGKILLed by MIDPACK_FAULT or after `killAfterMs`; resolves with its exit status (null: killed). */
function runOnce(args: string[], fault: string | undefined, killAfterMs: number | undefined): Promise<number | null> {
  return new Promise((resolve) => {
    const env = { ...process.env, ...(fault ? { MIDPACK_FAULT: fault } : {}) };
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const t = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (status) => {
      if (t) clearTimeout(t);
      if (status !== null && status !== 0) process.stderr.write(`  exit ${status}: ${stderr.trim().split('\n').slice(-2).join(' | ')}\n`);
      resolve(status);
    });
  });
}

/** A kill point for one attempt: a fault point of the job, or a random time. */
function killPoint(r: Round, pick: (n: number) => number): { fault?: string; ms?: number; what: string } {
  const kinds = r.job === 'run' ? ['chunks', 'plan', 'bins', 'docs', ...(r.masked ? ['masks'] : []), 'time'] : ['chunks', 'plan', 'bins', 'time'];
  const kind = kinds[pick(kinds.length)]!;
  if (kind === 'time') {
    const ms = 300 + pick(4000);
    return { ms, what: `after ${ms} ms` };
  }
  // Within the job's reach (about 3.5 characters a token), so most kills land.
  const tokens = [...r.docs.values()].reduce((t, d) => t + d.length, 0) / 3.5;
  // The planner emits closed bins a few at a time (a window's worth): fewer plan points than bins.
  const reach = { chunks: tokens / r.settings.chunkTokens, masks: tokens / r.settings.chunkTokens, plan: tokens / r.settings.seqLen / 8, bins: tokens / r.settings.seqLen, docs: r.docs.size }[kind as 'chunks' | 'masks' | 'plan' | 'bins' | 'docs'];
  const n = 1 + pick(Math.max(1, Math.floor(reach)));
  return { fault: `${kind}:${n}`, what: `at ${kind}:${n}` };
}

/** What must hold after every finished round, besides the shards' contents. */
function leftovers(out: string): string[] {
  const problems: string[] = [];
  for (const f of ['.midpack.lock', '.work', '.run']) if (existsSync(join(out, f))) problems.push(`${f} left behind`);
  for (const sub of ['', 'shards', 'megatron']) {
    for (const f of readdirSync(join(out, sub))) if (/\.tmp-\d+$/.test(f)) problems.push(`${join(sub, f)} left behind`);
  }
  return problems;
}

/** Where the rounds write: a local folder, or an s3:// prefix. */
interface Target {
  out: string;
  finished(): Promise<boolean>;
  /** Every byte of the output, as a string to compare. */
  snapshot(): Promise<string>;
  problems(round: Round, k: number): Promise<string[]>;
  /** Before each attempt (a bucket target may wipe its local staging: another node). */
  beforeAttempt(pick: (n: number) => number): string;
}

function localTarget(out: string): Target {
  return {
    out,
    finished: async () => existsSync(join(out, 'manifest.json')),
    snapshot: async () => JSON.stringify(hashTree(out)),
    problems: async (round) => [...(await outputProblems(out, round.docs, round.seqLen)), ...leftovers(out)],
    beforeAttempt: () => '',
  };
}

/** An s3:// prefix; the output is brought down into DIR/bucket-K to be checked like a folder. */
function bucketTarget(out: string, dir: string, staging: string): Target {
  return {
    out,
    finished: async () => (await getObject(`${out}/manifest.json`)) !== undefined,
    snapshot: async () => JSON.stringify((await listObjects(`${out}/`)).map((o) => [o.key, o.etag])),
    async problems(round, k) {
      const copy = join(dir, `bucket-${k}`);
      const marker = JSON.parse((await getObject(`${out}/${OUTPUT_MARKER}`))!.toString('utf8')) as { files: string[] };
      for (const f of marker.files) {
        mkdirSync(join(copy, f, '..'), { recursive: true });
        writeFileSync(join(copy, f), (await getObject(`${out}/${f}`)) ?? Buffer.alloc(0));
      }
      const keys = (await listObjects(`${out}/`)).map((o) => o.key.slice(o.key.indexOf('/') + 1));
      const left = keys.filter((key) => /(^|\/)(\.midpack\.lock|\.work|\.run)(\/|$)|\.tmp-\d+$/.test(key)).map((key) => `${key} left in the bucket`);
      return [...(await outputProblems(copy, round.docs, round.seqLen)), ...left];
    },
    beforeAttempt(pick) {
      if (pick(2) === 0) return '';
      rmSync(staging, { recursive: true, force: true });
      return ', staging wiped';
    },
  };
}

async function playRound(k: number, dir: string, target: Target, pick: (n: number) => number, maxKills: number): Promise<string[]> {
  const round = makeRound(dir, k, pick);
  const args = commandOf(round, dir, target.out, k);
  const log = (s: string) => process.stderr.write(`round ${k} (${round.job}${round.masked ? ', masked' : ''}${target.out.startsWith('s3://') ? ' to a bucket' : ''}, ${round.docs.size} docs, L=${round.seqLen}): ${s}\n`);
  if (await target.finished()) {
    // The folder holds the previous round's output: without --overwrite, refused, untouched.
    const before = await target.snapshot();
    const status = await runOnce(args, undefined, undefined);
    if (status !== 1) return [`a run into another dataset without --overwrite exited ${status}, not 1`];
    if ((await target.snapshot()) !== before) return ['a refused run changed the folder'];
    log('refused without --overwrite, folder untouched');
  }
  const kills = 1 + pick(maxKills);
  for (let attempt = 0; attempt < kills; attempt++) {
    const wiped = target.beforeAttempt(pick);
    const kill = killPoint(round, pick);
    const status = await runOnce([...args, '--overwrite'], kill.fault, kill.ms);
    log(`attempt ${attempt + 1}${wiped} killed ${kill.what}: ${status === null ? 'killed' : `finished first (exit ${status})`}`);
    if (status !== null && status !== 0) return [`attempt ${attempt + 1} failed with exit ${status}`];
  }
  const status = await runOnce([...args, '--overwrite'], undefined, undefined);
  if (status !== 0) return [`the final rerun exited ${status}`];
  const problems = await target.problems(round, k);
  log(problems.length ? `FAILED: ${problems.slice(0, 5).join('; ')}` : 'shards hold every document once, token-exact; counts match');
  return problems;
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'midpack-faults-'));
  const out = join(dir, 'out');
  mkdirSync(dir, { recursive: true });
  const pick = rng(a.seed);
  let failed = 0;
  let played = 0;
  for (let k = 0; k < a.rounds; k++) {
    // The first two rounds always run: one pack and one run, the second into the first's output.
    if (k > 1 && (Date.now() - started) / 1000 > a.budgetS) {
      process.stderr.write(`test:faults: time budget of ${a.budgetS} s spent; ${a.rounds - k} rounds not started\n`);
      break;
    }
    const problems = await playRound(k, dir, localTarget(out), pick, Math.max(1, a.kills));
    played++;
    if (problems.length) failed++;
  }
  const bucket = await playBucketRounds(a, dir, pick);
  played += bucket.played;
  failed += bucket.failed;
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(`test:faults: seed ${a.seed}: ${played} rounds, ${failed} failed, ${secs} s\n`);
  if (failed || played === 0) process.exitCode = 1;
  else rmSync(dir, { recursive: true, force: true });
}

/** The bucket rounds, on an s3rver of their own (its environment is the children's too). */
async function playBucketRounds(a: Args, dir: string, pick: (n: number) => number): Promise<{ played: number; failed: number }> {
  if (a.bucketRounds <= 0) return { played: 0, failed: 0 };
  const s3 = await startS3();
  const staging = join(dir, 'staging');
  process.env.MIDPACK_WORK_DIR = staging;
  let failed = 0;
  try {
    await s3.bucket('faults');
    const target = bucketTarget('s3://faults/out', dir, staging);
    for (let k = 0; k < a.bucketRounds; k++) if ((await playRound(a.rounds + k, dir, target, pick, Math.max(1, a.kills))).length) failed++;
  } finally {
    await s3.stop();
  }
  return { played: a.bucketRounds, failed };
}

await main();
