/**
 * npm run bench:s3 — `midpack pack` and `midpack run` to a local folder against the same
 * command to and from an S3-compatible server (s3rver on the loopback, started here), in one
 * run, each in a child process of its own with its own peak RSS:
 *   pack local      local corpus → local folder
 *   pack to-s3      local corpus → s3://bench/out (staged locally, uploaded, manifest last)
 *   pack s3-to-s3   s3://bench/in corpus (streamed by ranged GETs) → s3://bench/out
 *   run local       a run config (the corpus as a documents source, FIM on half) → local folder
 *   run s3-to-s3    the same config with s3:// inputs and out
 * Prints each one's time, MB/s of corpus, its ratio to the same command on local paths, and peak
 * RSS. The modes run in turn, --repeats times (best time kept), so a loaded machine weighs on all
 * of them alike.
 *
 *   npm run bench:s3 -- [--mb 10] [--seq-len 262144] [--repeats 2]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../test/helpers/paths.js';
import { startS3 } from '../test/helpers/s3-server.js';
import { putObject } from '../src/io/s3.js';
import { benchCorpus, numberFlag } from './build-e2e-corpus.js';

interface Measure {
  mode: string;
  seconds: number;
  bins: number;
  maxRssMB: number;
}

const MODES = ['pack local', 'pack to-s3', 'pack s3-to-s3', 'run local', 'run s3-to-s3'] as const;

async function child(mode: string, input: string, out: string, seqLen: number): Promise<void> {
  const { pack, run } = await import('../src/job/api.js');
  const t0 = performance.now();
  const s = mode.startsWith('run')
    ? (await run({ out, seed: 7, workers: 2, sources: [{ name: 'docs', type: 'documents', inputs: [input], then: [{ type: 'fim', options: { fimRate: 0.5 } }] }], pack: { seqLen, rowsPerShard: 16 } })).summary!
    : await pack([input], { out, workers: 2, seqLen, rowsPerShard: 16 });
  const m: Measure = { mode, seconds: (performance.now() - t0) / 1000, bins: s.manifest.counts.bins, maxRssMB: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(JSON.stringify(m) + '\n');
}

function packOnce(mode: string, input: string, out: string, seqLen: number, env: Record<string, string>): Measure {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', mode, input, out, String(seqLen)], { encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`pack (${mode}) failed with status ${r.status}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Measure;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1]!, args[2]!, args[3]!, Number(args[4]));
  const mb = numberFlag(args, '--mb', 10);
  const seqLen = numberFlag(args, '--seq-len', 262_144);
  const repeats = numberFlag(args, '--repeats', 2);
  const corpus = await benchCorpus(mb);
  const bench = join(repoRoot, '.bench');
  const corpusMB = statSync(corpus).size / 1e6;
  const s3 = await startS3();
  const staging = join(bench, 's3-staging');
  const env = { ...s3.env, MIDPACK_WORK_DIR: staging };
  const best = new Map<string, Measure>();
  try {
    await s3.bucket('bench');
    await putObject('s3://bench/in/corpus.jsonl', readFileSync(corpus));
    for (let k = 0; k < repeats; k++) {
      for (const mode of MODES) {
        const out = mode.endsWith('local') ? join(bench, 's3-local-out') : `s3://bench/out-${mode.replace(' ', '-')}-${k}`;
        rmSync(join(bench, 's3-local-out'), { recursive: true, force: true });
        rmSync(staging, { recursive: true, force: true });
        const m = packOnce(mode, mode.endsWith('s3-to-s3') ? 's3://bench/in/corpus.jsonl' : corpus, out, seqLen, env);
        if (!best.has(mode) || m.seconds < best.get(mode)!.seconds) best.set(mode, m);
      }
    }
  } finally {
    await s3.stop();
    rmSync(join(bench, 's3-local-out'), { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
  }
  // Each mode against the same command on local paths.
  const localOf = (m: Measure) => best.get(`${m.mode.split(' ')[0]} local`)!;
  const line = (m: Measure) => {
    const local = localOf(m);
    return `  ${m.mode.padEnd(13)} ${m.seconds.toFixed(2)} s  ${(corpusMB / m.seconds).toFixed(2).padStart(6)} MB/s  x${(local.seconds / m.seconds).toFixed(2)} of local  peak RSS ${m.maxRssMB.toFixed(0)} MB (${m.maxRssMB - local.maxRssMB >= 0 ? '+' : ''}${(m.maxRssMB - local.maxRssMB).toFixed(0)} MB)`;
  };
  const bins = (c: string) => best.get(`${c} local`)!.bins;
  process.stdout.write(
    [`midpack bench:s3 — ${corpusMB.toFixed(1)} MB corpus, L = ${seqLen}, ${bins('pack')} bins (run: ${bins('run')}), 2 workers, best of ${repeats}; s3rver on the loopback`, ...MODES.map((m) => line(best.get(m)!)), ''].join('\n'),
  );
}

main().catch((e) => {
  process.stderr.write(`bench:s3: ${e instanceof Error ? e.message : e}\n`);
  process.exitCode = 1;
});
