/**
 * Throughput of the output writers at the real bin size (L = 262,144), against a plain
 * file write of the same bytes measured in the same run:
 *   npm run bench:write [-- BINS]
 * Prints MB/s and bins/s for the Arrow shard writer and the Megatron writer, their ratio
 * to the plain write, and peak RSS (bounded: it must not grow with BINS). Files go to
 * /dev/shm when it exists (BENCH_DIR overrides) so a shared noisy disk does not drown the
 * writers' own cost; each figure is the best of three rounds, interleaved.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Rng } from '../src/core/random.js';
import { AtomicFile, ArrowShardWriter, MegatronBinsWriter, type PackedBin } from '../src/write/index.js';

const L = 262_144;
const BINS = Number(process.argv[2] ?? 48);
const UNIT_BYTES = 5; // int32 token + uint8 mask per position

/** A few distinct bins, reused round-robin (their contents do not matter to the writers). */
function makeBins(count: number): PackedBin[] {
  const rng = new Rng(1, 'bench-write');
  return Array.from({ length: count }, (_, b) => {
    const docLens: number[] = [];
    let used = 0;
    while (used < L - 4096) {
      const n = Math.min(L - used, 1 + rng.int(0, 40_000));
      docLens.push(n);
      used += n;
    }
    const inputIds = new Int32Array(L);
    for (let i = 0; i < L; i++) inputIds[i] = (i * 2654435761 + b) % 151_643;
    const lossMask = new Uint8Array(L).fill(1, 0, used);
    return {
      inputIds,
      lossMask,
      docLens: Int32Array.from(docLens),
      docIds: docLens.map((_, i) => `bench/${b}/${i}`),
      docKinds: docLens.map(() => 'repo'),
      docOffsets: new Int32Array(docLens.length),
    };
  });
}

async function timed(run: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await run();
  return (performance.now() - t0) / 1000;
}

const sample = makeBins(4);
const bin = (i: number) => sample[i % sample.length]!;
const base = process.env.BENCH_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
const megabytes = (BINS * L * UNIT_BYTES) / 1e6;

const plainRun = (dir: string) => timed(async () => {
  const ids = new AtomicFile(join(dir, 'plain', 'ids.bin'));
  const mask = new AtomicFile(join(dir, 'plain', 'mask.bin'));
  for (let i = 0; i < BINS; i++) {
    // AtomicFile copies what it is given (the caller may reuse it), so views are passed as they are.
    await ids.write(new Uint8Array(bin(i).inputIds.buffer));
    await mask.write(bin(i).lossMask);
  }
  await ids.commit();
  await mask.commit();
});

const arrowRun = (dir: string) => timed(async () => {
  const w = new ArrowShardWriter({ dir: join(dir, 'shards'), seqLen: L, rowsPerShard: 16, batchRows: 8 });
  for (let i = 0; i < BINS; i++) await w.writeBin(bin(i));
  await w.close();
});

const megatronRun = (dir: string) => timed(async () => {
  const w = new MegatronBinsWriter({ dir: join(dir, 'megatron'), name: 'bench', seqLen: L });
  for (let i = 0; i < BINS; i++) await w.writeBin(bin(i));
  await w.close();
});

const runs = [plainRun, arrowRun, megatronRun];
const best = runs.map(() => Infinity);
for (let round = 0; round < 3; round++) {
  for (const [i, run] of runs.entries()) {
    const dir = mkdtempSync(join(base, 'midpack-bench-write-'));
    best[i] = Math.min(best[i]!, await run(dir));
    rmSync(dir, { recursive: true, force: true });
  }
}
const [plain, arrow, megatron] = best as [number, number, number];

const line = (name: string, seconds: number) =>
  `${name.padEnd(22)} ${(megabytes / seconds).toFixed(0).padStart(6)} MB/s ${(BINS / seconds).toFixed(1).padStart(7)} bins/s   ratio to plain write ${(plain / seconds).toFixed(2)}`;
console.log(`bench:write  ${BINS} bins of L = ${L} tokens (${megabytes.toFixed(0)} MB of tokens + masks) into ${base}, best of 3`);
console.log(line('plain file write', plain));
console.log(line('Arrow shards', arrow));
console.log(line('Megatron .bin/.idx', megatron));
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
