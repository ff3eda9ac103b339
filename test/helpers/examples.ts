import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/**
 * The cluster examples (examples/slurm, examples/kubernetes) rendered with small numbers: each
 * rank's 16 CPUs and 32 GB become 2 CPUs and 1 GB, a one-task job's 4 GB becomes 1 GB, 8 ranks
 * become 3. Nothing else changes: the scripts run as written.
 */
export function renderSmall(text: string): string {
  return text
    .replace(/--cpus-per-task=16\b/g, '--cpus-per-task=2')
    .replace(/--mem=(32|4)G\b/g, '--mem=1G')
    .replace(/cpu: "16"/g, 'cpu: "2"')
    .replace(/memory: (32|4)Gi/g, 'memory: 1Gi')
    .replace(/"--workers", "16"/g, '"--workers", "2"')
    .replace(/(completions|parallelism): 8\b/g, '$1: 3')
    .replace(/value: "8"/g, 'value: "3"');
}

export const exampleDirs = ['slurm', 'kubernetes'].map((d) => join(repoRoot, 'examples', d));

/** Copies examples/NAME rendered small into `into`; returns the folder. */
export function renderExamples(name: 'slurm' | 'kubernetes', into: string): string {
  const src = join(repoRoot, 'examples', name);
  mkdirSync(into, { recursive: true });
  for (const f of readdirSync(src)) {
    copyFileSync(join(src, f), join(into, f));
    writeFileSync(join(into, f), renderSmall(readFileSync(join(src, f), 'utf8')));
    chmodSync(join(into, f), 0o755);
  }
  return into;
}
