/**
 * npm run bench:tokenizer-core -- [--tokenizer qwen3] [--baseline PATH] [--rounds 5] [--cold]
 *
 * The native tokenizer core alone, without JavaScript: native/bench/bench_tokenizer.cpp compiled
 * (g++ -O3) against this tree's core and, with --baseline, against another checkout's (a worktree
 * of main, say), then run in turns on the same texts: the sample code and prose of bench:tokenize
 * (coreTexts), with the core's tables as the native backend builds them for the tokenizer. Prints
 * per build the median MB per CPU-second over the rounds, the ratio, and whether the two builds
 * gave the same ids and ranges (a checksum of every token). CPU time of the one thread, and no V8
 * in the loop: on this shared machine its medians move a few percent where bench:tokenize's
 * tokenizer-alone rows move tens. Every run is on the same CPU (one-cpu.ts). By default the passes
 * are over texts the core has seen (its tables warm); `--cold` times each pass on a core built
 * afresh, so every piece's first sight (the merges of pieces not seen before) is in it, as in
 * bench:tokenize's tokenizer alone and a pack's one pass over new text.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repoRoot } from '../test/helpers/paths.js';
import { checkFlags } from './args.js';
import { coreTexts } from './core-texts.js';
import { benchCpu, onOneCpu } from './one-cpu.js';
import { nativeBinding } from '../src/pack/packer.js';
import { loadTokenizer } from '../src/tokenize/tokenizer.js';

const USAGE = 'usage: npm run bench:tokenizer-core -- [--tokenizer qwen3] [--baseline PATH] [--rounds 5] [--cold]';
const ARGUMENT_NAMES = ['byteIds', 'merges', 'classes', 'maxDigits', 'ignoreMerges', 'cacheEntries', 'tokenLengths', 'tokenBytes', 'pattern', 'unmergedTokens'];

/** Writes the core's constructor arguments for `tokenizer`, as the native backend passes them, into dir. */
async function dumpTables(tokenizer: string, dir: string): Promise<void> {
  const binding = nativeBinding() as unknown as { NativeTokenizer: new (...args: unknown[]) => object };
  const Core = binding.NativeTokenizer;
  let seen: unknown[] | undefined;
  binding.NativeTokenizer = class extends Core {
    constructor(...args: unknown[]) {
      super(...args);
      seen = args;
    }
  };
  try {
    await loadTokenizer(tokenizer, 'native', true);
  } finally {
    binding.NativeTokenizer = Core;
  }
  if (!seen) throw new Error(`${tokenizer}: the native backend made no core (its check failed?)`);
  const scalars: unknown[] = [];
  seen.forEach((value, k) => {
    if (ArrayBuffer.isView(value)) writeFileSync(join(dir, ARGUMENT_NAMES[k]!), new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    else scalars.push(typeof value === 'boolean' ? Number(value) : value);
  });
  writeFileSync(join(dir, 'meta'), `${scalars.join(' ')}\n`);
}

/** Length-prefixed UTF-16 texts, as bench_tokenizer.cpp reads them. */
function writeTexts(path: string, texts: string[]): void {
  const parts: Buffer[] = [];
  for (const text of texts) {
    const header = Buffer.alloc(4);
    header.writeUInt32LE(text.length);
    parts.push(header, Buffer.from(text, 'utf16le'));
  }
  writeFileSync(path, Buffer.concat(parts));
}

function build(root: string, out: string): void {
  const src = join(root, 'native', 'src');
  execFileSync('g++', ['-std=c++17', '-O3', '-DNDEBUG', `-I${join(root, 'native', 'include')}`, join(src, 'bpe_tokenizer.cpp'), join(src, 'splitters.cpp'), join(repoRoot, 'native', 'bench', 'bench_tokenizer.cpp'), '-o', out], { stdio: 'inherit' });
}

interface Pass {
  rate: number;
  sum: string;
}

/** One run of a build: per set (code, prose), its median rate and checksum. */
function runOnce(binary: string, dir: string, cold: boolean): Record<string, Pass> {
  const out: Record<string, Pass> = {};
  const pinned = onOneCpu(binary, [dir, '3', ...(cold ? ['cold'] : [])]);
  for (const line of execFileSync(pinned.command, pinned.args, { encoding: 'utf8' }).trim().split('\n')) {
    const m = /^(\w+) ([\d.]+) MB\/s .* sum ([0-9a-f]+)$/.exec(line);
    if (m) out[m[1]!] = { rate: Number(m[2]), sum: m[3]! };
  }
  return out;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  checkFlags(args, ['--tokenizer', '--baseline', '--rounds', '--cold'], USAGE);
  const cold = args.includes('--cold');
  const flag = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const tokenizer = flag('--tokenizer') ?? 'qwen3';
  const baseline = flag('--baseline');
  const rounds = Number(flag('--rounds') ?? 5);
  const dir = join(repoRoot, '.bench', `tokenizer-core-${tokenizer.replace(/[^\w.-]/g, '_')}`);
  mkdirSync(dir, { recursive: true });
  await dumpTables(tokenizer, dir);
  const { code, prose } = coreTexts(repoRoot);
  writeTexts(join(dir, 'code'), code);
  writeTexts(join(dir, 'prose'), prose);
  const builds: [string, string][] = [['this tree', repoRoot], ...(baseline ? [['baseline', resolve(baseline)] as [string, string]] : [])];
  for (const [label, root] of builds) build(root, join(dir, `bench-${label.replace(' ', '-')}`));
  const runs = new Map<string, Record<string, Pass>[]>(builds.map(([label]) => [label, []]));
  for (let r = 0; r < rounds; r++) for (const [label] of builds) runs.get(label)!.push(runOnce(join(dir, `bench-${label.replace(' ', '-')}`), dir, cold));
  const cpu = benchCpu();
  const cpuNote = cpu === undefined ? '; not pinned: no taskset' : `; every run on CPU ${cpu}`;
  const rate = (label: string, set: string): number => median(runs.get(label)!.map((x) => x[set]!.rate));
  for (const [label] of builds) {
    process.stdout.write(`tokenizer core alone, ${tokenizer}, ${label.padEnd(9)}  code ${rate(label, 'code').toFixed(1).padStart(6)} MB/s  prose ${rate(label, 'prose').toFixed(1).padStart(6)} MB/s  (CPU of one thread, ${cold ? 'cold' : 'warm'} passes, median of ${rounds}${cpuNote})\n`);
  }
  if (!baseline) return;
  const same = ['code', 'prose'].every((set) => runs.get('this tree')![0]![set]!.sum === runs.get('baseline')![0]![set]!.sum);
  process.stdout.write(`this tree / baseline: code ${(rate('this tree', 'code') / rate('baseline', 'code')).toFixed(3)}x, prose ${(rate('this tree', 'prose') / rate('baseline', 'prose')).toFixed(3)}x; ids and ranges: ${same ? 'identical' : 'DIFFERENT'}\n`);
  if (!same) process.exitCode = 1;
}

await main();
