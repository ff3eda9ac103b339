/**
 * npm run bench:tokenize — each tokenizer backend on the e2e corpus (scripts/build-e2e-corpus.ts),
 * in one run, each measure in its own child process with its own peak RSS:
 *   tokenize  read + tokenize on one worker (MB/s per core), and a sha256 of every id in order
 *   pack      the whole pack job on one worker
 * for the hf backend (@huggingface/tokenizers) and the fast one, then tokenize and pack with the
 * fast backend on 2 workers, so the one run also prints the issue's pack figures: pack MB/s per
 * worker with each backend and their ratio, pack / tokenize alone, 1 -> 2 worker scaling, peak
 * RSS. The ids of the two backends must hash alike over the whole corpus, or the benchmark fails.
 * Then the identity sweep over every page of both shared web development sets (many languages
 * and scripts; the tests sweep a seeded sample): one page whose ids differ fails the benchmark.
 *
 *   npm run bench:tokenize -- [--mb 100]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../test/helpers/paths.js';
import { buildE2eCorpus } from './build-e2e-corpus.js';
import { identitySweep, referenceTokenizer, webSetPages } from '../test/helpers/web-pages.js';

interface Measure {
  mode: string;
  backend: string;
  seconds: number;
  bytes: number;
  tokens: number;
  idsSha256: string;
  maxRssMB: number;
}

async function child(mode: string, backend: 'hf' | 'fast', input: string, out: string, workers: number): Promise<void> {
  const bytes = statSync(input).size;
  const t0 = performance.now();
  let tokens = 0;
  const hash = createHash('sha256');
  if (mode === 'tokenize') {
    const { Ledger } = await import('../src/core/ledger.js');
    const { readDocuments } = await import('../src/io/documents.js');
    const { TokenizePool } = await import('../src/tokenize/pool.js');
    const pool = new TokenizePool({ workers, backend });
    for await (const [, r] of pool.map(readDocuments([input], new Ledger()), (d) => ({ text: d.text, special_spans: d.special_spans }))) {
      if (!r.ids) throw new Error(`a document failed to tokenize: ${r.error}`);
      tokens += r.ids.length;
      hash.update(new Uint8Array(r.ids.buffer, r.ids.byteOffset, r.ids.byteLength));
    }
    await pool.close();
  } else {
    const { runPackJob, PACK_DEFAULTS } = await import('../src/job/pack-job.js');
    const s = await runPackJob({ ...PACK_DEFAULTS, inputs: [input], out, workers, tokenizerBackend: backend });
    tokens = s.report.packing.tokens;
    hash.update(s.manifest.shards_fingerprint);
  }
  const seconds = (performance.now() - t0) / 1000;
  const m: Measure = { mode, backend, seconds, bytes, tokens, idsSha256: hash.digest('hex'), maxRssMB: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(JSON.stringify(m) + '\n');
}

function run(mode: string, backend: string, input: string, workers = 1): Measure {
  const out = join(repoRoot, '.bench', `tokenize-out-${mode}-${backend}`);
  rmSync(out, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', mode, backend, input, out, String(workers)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`${mode} (${backend}) failed with status ${r.status}`);
  rmSync(out, { recursive: true, force: true });
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Measure;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1]!, args[2] as 'hf' | 'fast', args[3]!, args[4]!, Number(args[5]));
  const i = args.indexOf('--mb');
  const mb = i >= 0 ? Number(args[i + 1]) : 100;
  const dir = join(repoRoot, '.bench');
  mkdirSync(dir, { recursive: true });
  const input = join(dir, `e2e-${mb}.jsonl`);
  if (!existsSync(input)) await buildE2eCorpus(input, mb);
  process.stderr.write(`corpus: ${(statSync(input).size / 1e6).toFixed(0)} MB JSONL (${input})\n`);
  const m = {
    tokHf: run('tokenize', 'hf', input),
    tokFast: run('tokenize', 'fast', input),
    packHf: run('pack', 'hf', input),
    packFast: run('pack', 'fast', input),
    tokFast2: run('tokenize', 'fast', input, 2),
    packFast2: run('pack', 'fast', input, 2),
  };
  const mbs = (x: Measure) => x.bytes / 1e6 / x.seconds;
  const line = (label: string, x: Measure) =>
    `${label.padEnd(30)} ${mbs(x).toFixed(2).padStart(7)} MB/s ${Math.round(x.tokens / x.seconds).toLocaleString('en-US').padStart(11)} tokens/s  ${x.seconds.toFixed(1).padStart(6)} s  peak RSS ${x.maxRssMB.toFixed(0)} MB`;
  const sameIds = m.tokHf.idsSha256 === m.tokFast.idsSha256 && m.tokHf.tokens === m.tokFast.tokens;
  const sameShards = m.packHf.idsSha256 === m.packFast.idsSha256 && m.packFast2.idsSha256 === m.packFast.idsSha256;
  process.stdout.write(
    [
      line('tokenize alone, hf, 1 worker', m.tokHf),
      line('tokenize alone, fast, 1 worker', m.tokFast),
      line('pack, hf, 1 worker', m.packHf),
      line('pack, fast, 1 worker', m.packFast),
      line('tokenize alone, fast, 2 workers', m.tokFast2),
      line('pack, fast, 2 workers', m.packFast2),
      `fast / hf, tokenize alone:    ${(mbs(m.tokFast) / mbs(m.tokHf)).toFixed(2)}x`,
      `fast / hf, pack per worker:   ${(mbs(m.packFast) / mbs(m.packHf)).toFixed(2)}x  (target >= 2)`,
      `pack / tokenize alone, fast:  ${(mbs(m.packFast) / mbs(m.tokFast)).toFixed(3)} (1 worker), ${(mbs(m.packFast2) / mbs(m.tokFast2)).toFixed(3)} (2 workers)  (target >= 0.9)`,
      `pack speedup 1 -> 2 workers:  ${(mbs(m.packFast2) / mbs(m.packFast)).toFixed(3)}  (target >= 1.8)`,
      `ids over the corpus: ${sameIds ? 'identical' : 'DIFFERENT'} (${m.tokFast.tokens} tokens, sha256 ${m.tokFast.idsSha256.slice(0, 16)}); shards: ${sameShards ? 'identical' : 'DIFFERENT'}`,
      `peak RSS: ${Math.max(...Object.values(m).map((x) => x.maxRssMB)).toFixed(0)} MB (target < 2048)`,
    ].join('\n') + '\n',
  );
  if (!sameIds || !sameShards) process.exitCode = 1;
  if (!(await webIdentity())) process.exitCode = 1;
}

/** The fast backend against @huggingface/tokenizers on every page of the shared web sets; false if one differs. */
async function webIdentity(): Promise<boolean> {
  const sets = webSetPages();
  if (!sets) {
    process.stdout.write('web sets: not on this machine, the identity sweep over them is not run\n');
    return true;
  }
  const { loadTokenizer } = await import('../src/tokenize/tokenizer.js');
  const t0 = performance.now();
  const r = identitySweep(sets.flat(), referenceTokenizer(), await loadTokenizer('qwen3', 'fast'));
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  process.stdout.write(`ids over the web sets: ${r.mismatches.length === 0 ? 'identical' : `DIFFERENT on ${r.mismatches.length} pages`} (${r.pages} pages, ${r.chars} characters, ${seconds} s)\n`);
  for (const m of r.mismatches.slice(0, 20)) process.stdout.write(`  ${m}\n`);
  return r.mismatches.length === 0;
}

await main();
