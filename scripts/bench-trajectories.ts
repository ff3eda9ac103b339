/**
 * Trajectories benchmark: the whole source (read the .traj files, normalize, render, parse back
 * and compare) on SWE-agent's own trajectories, one template at a time, one core. Each template
 * runs the set repeatedly for at least two seconds. Prints trajectories/s, MB/s of input (.traj
 * bytes) and of output (rendered text, UTF-8), and the peak RSS of the process.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defaultContext } from '../src/core/stage.js';
import { TEMPLATE_NAMES, resolveTrajectoriesOptions, trajectoriesSource } from '../src/stages/trajectories/index.js';
import { sharedDir } from '../test/helpers/paths.js';

const dir = join(sharedDir, 'data', 'trajectories', 'swe-agent');
const files: string[] = [];
const walk = (d: string) => {
  for (const n of readdirSync(d).sort()) {
    const p = join(d, n);
    if (statSync(p).isDirectory()) walk(p);
    else if (n.endsWith('.traj')) files.push(p);
  }
};
walk(dir);
const inputBytes = files.reduce((n, f) => n + statSync(f).size, 0);

async function pass(template: string): Promise<{ trajectories: number; outBytes: number; rejected: number }> {
  const ctx = defaultContext({ log: () => {} });
  let outBytes = 0;
  let trajectories = 0;
  for await (const d of trajectoriesSource(files, resolveTrajectoriesOptions({ templates: `${template}=1` }), ctx)) {
    outBytes += Buffer.byteLength(d.text);
    trajectories++;
  }
  return { trajectories, outBytes, rejected: ctx.ledger.droppedTotal };
}

console.log(`${files.length} SWE-agent trajectories, ${(inputBytes / 1e6).toFixed(2)} MB of .traj files (${dir})`);
console.log('template       passes  trajectories/s  input MB/s  output MB/s  rejected');
for (const template of TEMPLATE_NAMES) {
  await pass(template); // warm-up: module and JIT
  let passes = 0;
  let trajectories = 0;
  let outBytes = 0;
  let rejected = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 2000) {
    const r = await pass(template);
    passes++;
    trajectories += r.trajectories;
    outBytes += r.outBytes;
    rejected += r.rejected;
  }
  const s = (performance.now() - t0) / 1000;
  const row = [template.padEnd(13), String(passes).padStart(7), (trajectories / s).toFixed(1).padStart(15), ((passes * inputBytes) / 1e6 / s).toFixed(2).padStart(11), (outBytes / 1e6 / s).toFixed(2).padStart(12), String(rejected).padStart(9)];
  console.log(row.join(' '));
}
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
