/**
 * npm run bench:tokenize — each tokenizer backend on the e2e corpus (scripts/build-e2e-corpus.ts),
 * in one run, each measure in its own child process with its own peak RSS:
 *   tokenize  read + tokenize on one worker (MB/s per core), the JSONL read as the pack job reads
 *             it (lines parsed by the workers), and a sha256 of every id in order
 *   pack      the whole pack job on one worker
 * for the hf backend (@huggingface/tokenizers) and the fast one, then tokenize and pack with the
 * fast backend on 2 workers, so the one run also prints the issue's pack figures: pack MB/s per
 * worker with each backend and their ratio, pack / tokenize alone, 1 -> 2 worker scaling, peak
 * RSS. The ids of the two backends must hash alike over the whole corpus, or the benchmark fails.
 * Then the identity sweep over every page of both shared web development sets (many languages
 * and scripts; the tests sweep a seeded sample): one page whose ids differ fails the benchmark.
 *
 * The native rows are runs of a second or two, where a shared host's noise moves a single run's
 * ratio by a tenth: tokenize alone and pack are run `--rounds` times each (default 3), the two
 * alternated, and the ratios use each one's median time; every round is printed.
 *
 * `--baseline DIR` (another checkout of midpack, built: the main an issue was filed against) also
 * runs that build's own `midpack pack --workers 1` on the corpus, as a user would, in each round
 * beside this tree's native pack: the pack against the baseline's build itself, not against this
 * tree's fast backend (which shares this tree's reading, planning and writing).
 *
 *   npm run bench:tokenize -- [--mb 100] [--rounds 3] [--baseline DIR]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../test/helpers/paths.js';
import { buildE2eCorpus } from './build-e2e-corpus.js';
import { checkFlags } from './args.js';
import { directWriteSeconds } from './disk-write.js';
import { coreTexts } from './core-texts.js';
import { benchCpu, onOneCpu } from './one-cpu.js';
import { identitySweep, referenceTokenizer, webSetPages } from '../test/helpers/web-pages.js';
import type { ResolvedBackend } from '../src/tokenize/tokenizer.js';

interface Measure {
  mode: string;
  backend: string;
  seconds: number;
  bytes: number;
  tokens: number;
  idsSha256: string;
  maxRssMB: number;
  /** pack: seconds from the write phase's start (planning done) to the job's end, and the bytes it wrote to OUT. */
  afterPlanSeconds?: number;
  outBytes?: number;
}

async function child(mode: string, backend: ResolvedBackend, input: string, out: string, workers: number): Promise<void> {
  const bytes = statSync(input).size;
  const t0 = performance.now();
  let tokens = 0;
  const hash = createHash('sha256');
  if (mode === 'tokenize') {
    // Read as the pack job reads plain JSONL: batches of lines, decoded and parsed by the workers.
    const { openBytes, readLineBatches } = await import('../src/io/lines.js');
    const { TokenizePool } = await import('../src/tokenize/pool.js');
    const pool = new TokenizePool({ workers, backend });
    const batches = async function* () {
      for await (const b of readLineBatches(openBytes(input), pool.lineBatchBytes)) yield { ...b, file: input, name: input };
    };
    for await (const { outcomes } of pool.mapLines(batches())) {
      for (const o of outcomes) {
        const r = 'doc' in o ? o.result : { ids: undefined, error: o.message };
        if (!r.ids) throw new Error(`a document failed to tokenize: ${r.error}`);
        tokens += r.ids.length;
        hash.update(new Uint8Array(r.ids.buffer, r.ids.byteOffset, r.ids.byteLength));
      }
    }
    await pool.close();
  }
  let writeStart: number | undefined;
  if (mode === 'pack') {
    const { runPackJob, PACK_DEFAULTS } = await import('../src/job/pack-job.js');
    const onProgress = (e: { phase: string }) => {
      if (e.phase === 'write') writeStart ??= performance.now();
    };
    const s = await runPackJob({ ...PACK_DEFAULTS, inputs: [input], out, workers, tokenizerBackend: backend, onProgress });
    tokens = s.report.packing.tokens;
    hash.update(s.manifest.shards_fingerprint);
  }
  const end = performance.now();
  const seconds = (end - t0) / 1000;
  const m: Measure = { mode, backend, seconds, bytes, tokens, idsSha256: hash.digest('hex'), maxRssMB: process.resourceUsage().maxRSS / 1024 };
  if (writeStart !== undefined) Object.assign(m, { afterPlanSeconds: (end - writeStart) / 1000, outBytes: treeBytes(out) });
  process.stdout.write(JSON.stringify(m) + '\n');
}

/** Bytes of the files under `dir` (the pack's outputs; its work store is gone by then). */
function treeBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).reduce((sum, e) => sum + (e.isFile() ? statSync(join(e.parentPath, e.name)).size : 0), 0);
}

/** The baseline checkout's own CLI, `pack INPUT --workers 1` with its defaults: its wall seconds, tokens and shards' fingerprint. */
function runBaseline(dir: string, input: string): Measure {
  const out = join(repoRoot, '.bench', 'tokenize-out-baseline');
  rmSync(out, { recursive: true, force: true });
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(dir, 'dist', 'src', 'cli', 'main.js'), 'pack', input, '--out', out, '--workers', '1', '--quiet'], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'inherit'] });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`the baseline's pack (${dir}) failed with status ${r.status}`);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { shards_fingerprint: string };
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { packing: { tokens: number } };
  rmSync(out, { recursive: true, force: true });
  const idsSha256 = createHash('sha256').update(manifest.shards_fingerprint).digest('hex');
  // Its peak RSS is not measured (the CLI is another build's process): NaN, never printed.
  return { mode: 'pack', backend: 'baseline', seconds, bytes: statSync(input).size, tokens: report.packing.tokens, idsSha256, maxRssMB: Number.NaN };
}

function run(mode: string, backend: string, input: string, workers = 1): Measure {
  const out = join(repoRoot, '.bench', `tokenize-out-${mode}-${backend}`);
  rmSync(out, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', mode, backend, input, out, String(workers)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`${mode} (${backend}) failed with status ${r.status}`);
  rmSync(out, { recursive: true, force: true });
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Measure;
}

/** tokenize alone and pack with the native backend, `rounds` times each, alternated: each one's median-time run, and every round's seconds. */
function nativeRounds(input: string, workers: number, rounds: number, baseline?: string): { tok: Measure; pack: Measure; base?: Measure; toks: Measure[]; packs: Measure[]; bases: Measure[]; printed: string } {
  const toks: Measure[] = [];
  const packs: Measure[] = [];
  const bases: Measure[] = [];
  for (let r = 0; r < rounds; r++) {
    toks.push(run('tokenize', 'native', input, workers));
    packs.push(run('pack', 'native', input, workers));
    if (baseline) bases.push(runBaseline(baseline, input));
  }
  const median = (xs: Measure[]) => [...xs].sort((a, b) => a.seconds - b.seconds)[(xs.length - 1) >> 1]!;
  const secs = (xs: Measure[]) => xs.map((x) => x.seconds.toFixed(2)).join(', ');
  const printed = `native, ${workers} worker${workers > 1 ? 's' : ''}, ${rounds} alternated rounds (s): tokenize alone ${secs(toks)}; pack ${secs(packs)}${baseline ? `; the baseline's pack ${secs(bases)}` : ''}`;
  return { tok: median(toks), pack: median(packs), base: baseline ? median(bases) : undefined, toks, packs, bases, printed };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1]!, args[2] as ResolvedBackend, args[3]!, args[4]!, Number(args[5]));
  if (args[0] === '--core') return coreChild(args[1]!, args[2]!);
  checkFlags(args, ['--mb', '--rounds', '--baseline'], 'usage: npm run bench:tokenize -- [--mb 100] [--rounds 3] [--baseline DIR]');
  const i = args.indexOf('--mb');
  const mb = i >= 0 ? Number(args[i + 1]) : 100;
  const r = args.indexOf('--rounds');
  const rounds = r >= 0 ? Number(args[r + 1]) : 3;
  const b = args.indexOf('--baseline');
  const baseline = b >= 0 ? args[b + 1] : undefined;
  if (baseline !== undefined && !existsSync(join(baseline, 'dist', 'src', 'cli', 'main.js'))) throw new Error(`--baseline ${baseline}: no built midpack there (dist/src/cli/main.js)`);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds takes a whole number of at least 1, not ${args[r + 1]}`);
  const dir = join(repoRoot, '.bench');
  mkdirSync(dir, { recursive: true });
  const input = join(dir, `e2e-${mb}.jsonl`);
  if (!existsSync(input)) await buildE2eCorpus(input, mb);
  process.stderr.write(`corpus: ${(statSync(input).size / 1e6).toFixed(0)} MB JSONL (${input})\n`);
  await coreFigures();
  const native1 = nativeRounds(input, 1, rounds, baseline);
  const native2 = nativeRounds(input, 2, rounds);
  const m = {
    tokHf: run('tokenize', 'hf', input),
    tokFast: run('tokenize', 'fast', input),
    tokNative: native1.tok,
    packHf: run('pack', 'hf', input),
    packFast: run('pack', 'fast', input),
    packNative: native1.pack,
    tokFast2: run('tokenize', 'fast', input, 2),
    packFast2: run('pack', 'fast', input, 2),
    tokNative2: native2.tok,
    packNative2: native2.pack,
  };
  const floor = await writeFloor(dir, native1.pack, native2);
  const mbs = (x: Measure) => x.bytes / 1e6 / x.seconds;
  const line = (label: string, x: Measure) =>
    `${label.padEnd(30)} ${mbs(x).toFixed(2).padStart(7)} MB/s ${Math.round(x.tokens / x.seconds).toLocaleString('en-US').padStart(11)} tokens/s  ${x.seconds.toFixed(1).padStart(6)} s  peak RSS ${x.maxRssMB.toFixed(0)} MB`;
  // Every round's ids and shards, not only the medians'.
  const sameIds = [m.tokFast, m.tokFast2, ...native1.toks, ...native2.toks].every((x) => x.idsSha256 === m.tokHf.idsSha256 && x.tokens === m.tokHf.tokens);
  const sameShards = [m.packFast, m.packFast2, ...native1.packs, ...native2.packs].every((x) => x.idsSha256 === m.packHf.idsSha256);
  // Printed, not a failure: a baseline from before a stated change of the output may differ.
  const baselineShards = native1.bases.length === 0 ? '' : `; the baseline's shards: ${native1.bases.every((x) => x.idsSha256 === m.packHf.idsSha256) ? 'identical' : 'DIFFERENT'}`;
  process.stdout.write(
    [
      line('tokenize alone, hf, 1 worker', m.tokHf),
      line('tokenize alone, fast, 1 worker', m.tokFast),
      line('pack, hf, 1 worker', m.packHf),
      line('pack, fast, 1 worker', m.packFast),
      line('tokenize alone, native, 1 worker', m.tokNative),
      line('pack, native, 1 worker', m.packNative),
      line('tokenize alone, fast, 2 workers', m.tokFast2),
      line('pack, fast, 2 workers', m.packFast2),
      line('tokenize alone, native, 2 workers', m.tokNative2),
      line('pack, native, 2 workers', m.packNative2),
      native1.printed,
      native2.printed,
      `fast / hf, tokenize alone:    ${(mbs(m.tokFast) / mbs(m.tokHf)).toFixed(2)}x`,
      `native / fast, tokenize alone: ${(mbs(m.tokNative) / mbs(m.tokFast)).toFixed(2)}x`,
      // This tree's fast backend shares this tree's reading, planning and writing: the issue's "today's main" is --baseline's row.
      `native / fast (this tree's fast backend), pack, 1 worker: ${(mbs(m.packNative) / mbs(m.packFast)).toFixed(2)}x  (native's median of ${rounds}; fast's one run)`,
      ...(native1.base ? [`native / the baseline's own pack (${baseline}), 1 worker: ${(native1.base.seconds / m.packNative.seconds).toFixed(2)}x  (target >= 4; medians of ${rounds} alternated rounds)`] : []),
      `pack / tokenize alone, native: ${(mbs(m.packNative) / mbs(m.tokNative)).toFixed(3)} (1 worker), ${(mbs(m.packNative2) / mbs(m.tokNative2)).toFixed(3)} (2 workers)  (target >= 0.8; medians of ${rounds} alternated rounds)`,
      floor,
      `pack speedup 1 -> 2 workers, native: ${(mbs(m.packNative2) / mbs(m.packNative)).toFixed(3)}`,
      `ids over the corpus: ${sameIds ? 'identical' : 'DIFFERENT'} (${m.tokFast.tokens} tokens, sha256 ${m.tokFast.idsSha256.slice(0, 16)}); shards: ${sameShards ? 'identical' : 'DIFFERENT'}${baselineShards}`,
      `peak RSS: ${Math.max(...[...Object.values(m), ...native1.toks, ...native1.packs, ...native2.toks, ...native2.packs].map((x) => x.maxRssMB)).toFixed(0)} MB (target < 2048)`,
    ].join('\n') + '\n',
  );
  if (!sameIds || !sameShards) process.exitCode = 1;
  if (!(await webIdentity())) process.exitCode = 1;
}

/**
 * What the pack spends once planning is done (writing its outputs, the manifest and the report),
 * beside the time this disk takes to write as many bytes direct, probed twice now (the faster
 * kept): bins are written only once every document is tokenized and planned, so on 2 workers
 * pack / tokenize alone cannot pass tokenize alone / (tokenize alone + that time) on this disk.
 */
async function writeFloor(dir: string, pack1: Measure, native2: { tok: Measure; pack: Measure }): Promise<string> {
  const outBytes = native2.pack.outBytes!;
  const probes = [await directWriteSeconds(dir, outBytes), await directWriteSeconds(dir, outBytes)];
  const after = `after planning, native pack: ${pack1.afterPlanSeconds!.toFixed(2)} s (1 worker), ${native2.pack.afterPlanSeconds!.toFixed(2)} s (2 workers), writing ${(outBytes / 1e6).toFixed(0)} MB`;
  if (probes.some((x) => x === undefined)) return `${after}; this filesystem has no direct writes: the disk's floor is not measured`;
  const disk = Math.min(...(probes as number[]));
  const ceiling = native2.tok.seconds / (native2.tok.seconds + disk);
  return `${after}; this disk writes as many bytes direct in ${disk.toFixed(2)} s (${(outBytes / 1e6 / disk).toFixed(0)} MB/s, the faster of two probes now): pack / tokenize alone on 2 workers is at most ${ceiling.toFixed(3)} here, were every other step free`;
}

/**
 * The tokenizer alone (ids and character ranges, in process, one thread) on real code (the
 * sample repositories) and prose (the sample documentation), each backend and the Rust
 * reference (npm tokenizers) on the same texts in one child process per backend. midpack's
 * backends write into one reused buffer, as a pack worker does; the reference returns its own.
 */
async function coreFigures(): Promise<void> {
  const rows: Record<string, { code: number; prose: number; rss: number }> = {};
  for (const backend of ['native', 'fast', 'hf', 'rust']) {
    // One CPU for every backend's child: the rows are compared with each other (one-cpu.ts).
    const pinned = onOneCpu(process.execPath, [fileURLToPath(import.meta.url), '--core', backend, repoRoot]);
    const r = spawnSync(pinned.command, pinned.args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (r.status !== 0) throw new Error(`tokenizer alone (${backend}) failed with status ${r.status}`);
    rows[backend] = JSON.parse(r.stdout.trim().split('\n').pop()!);
  }
  for (const [backend, x] of Object.entries(rows)) {
    process.stdout.write(`tokenizer alone, ${(backend === 'rust' ? 'Rust reference' : backend).padEnd(14)} code ${x.code.toFixed(1).padStart(7)} MB/s  prose ${x.prose.toFixed(1).padStart(7)} MB/s  peak RSS ${x.rss.toFixed(0)} MB\n`);
  }
  const n = rows.native!;
  const cpu = benchCpu();
  process.stdout.write(cpu === undefined ? 'tokenizer alone: each child where the scheduler put it (no taskset)\n' : `tokenizer alone: every child on CPU ${cpu}\n`);
  process.stdout.write(`native / Rust reference, one thread: code ${(n.code / rows.rust!.code).toFixed(1)}x, prose ${(n.prose / rows.rust!.prose).toFixed(1)}x (target >= 20x); native / fast: code ${(n.code / rows.fast!.code).toFixed(1)}x\n`);
}

async function coreChild(backend: string, root: string): Promise<void> {
  const { code, prose } = coreTexts(root);
  let encode: (text: string) => Promise<unknown> | unknown;
  if (backend === 'rust') {
    const { rustReference } = await import('../test/helpers/reference-tokenizer.js');
    encode = rustReference('qwen3');
  } else {
    // As a pack worker tokenizes (batch.ts): ids and ranges into one buffer reused per batch.
    const { loadTokenizer } = await import('../src/tokenize/tokenizer.js');
    const { TokenBuffer } = await import('../src/tokenize/token-buffer.js');
    const t = await loadTokenizer('qwen3', backend as ResolvedBackend, true);
    const out = new TokenBuffer(1 << 16);
    encode = (text) => {
      out.length = 0;
      t.encodeDocInto({ text }, out);
    };
  }
  const speed = async (texts: string[]) => {
    for (const t of texts.slice(0, 50)) await encode(t); // warm up
    const bytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0);
    const t0 = performance.now();
    for (const t of texts) {
      const pending = encode(t);
      if (pending instanceof Promise) await pending; // only the reference's binding is asynchronous
    }
    return bytes / 1e6 / ((performance.now() - t0) / 1000);
  };
  const out = { code: await speed(code), prose: await speed(prose), rss: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(JSON.stringify(out) + '\n');
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
