/**
 * Scaffold readers benchmark: read, detect and filter (no template) the shared samples of each
 * scaffold's own files, one scaffold at a time, one core. Each scaffold's folder runs repeatedly for
 * at least two seconds. Prints trajectories/s and MB/s of input files (SWE-bench reports beside the
 * trajectories are counted in the input: the reader opens them to tell them apart), the ratio of
 * each scaffold's MB/s to SWE-agent's in the same run, and the peak RSS of the process.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defaultContext } from '../src/core/stage.js';
import { filteredTrajectories, resolveTrajectoriesOptions } from '../src/stages/trajectories/index.js';
import { TrajectoryStats } from '../src/stages/trajectories/stats.js';
import { sharedDir } from '../test/helpers/paths.js';

const root = join(sharedDir, 'data', 'trajectories');
const SCAFFOLDS = ['swe-agent', 'mini-swe-agent', 'openhands', 'claude-code', 'qwen-code', 'terminus'];
const isInput = (n: string) => n.endsWith('.traj') || n.endsWith('.json') || n.endsWith('.jsonl');

function inputBytes(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) n += inputBytes(p);
    else if (isInput(name)) n += statSync(p).size;
  }
  return n;
}

async function pass(dir: string): Promise<number> {
  const ctx = defaultContext({ log: () => {} });
  let n = 0;
  for await (const t of filteredTrajectories([dir], resolveTrajectoriesOptions({ requireTermination: false, requireValidCalls: false }), ctx, new TrajectoryStats())) n += t.messages.length > 0 ? 1 : 0;
  return n;
}

console.log(`shared scaffold samples (${root}); read + detect + filters, no template`);
console.log('scaffold         files MB  passes  trajectories/s  input MB/s  vs swe-agent');
let base = 0;
for (const scaffold of SCAFFOLDS) {
  const dir = join(root, scaffold);
  const bytes = inputBytes(dir);
  await pass(dir); // warm-up: module and JIT
  let passes = 0;
  let trajectories = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 2000) {
    trajectories += await pass(dir);
    passes++;
  }
  const s = (performance.now() - t0) / 1000;
  const mbs = (passes * bytes) / 1e6 / s;
  if (scaffold === 'swe-agent') base = mbs;
  const row = [scaffold.padEnd(15), (bytes / 1e6).toFixed(2).padStart(8), String(passes).padStart(7), (trajectories / s).toFixed(1).padStart(15), mbs.toFixed(2).padStart(11), (mbs / base).toFixed(2).padStart(12)];
  console.log(row.join(' '));
}
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
