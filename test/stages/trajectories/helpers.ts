import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Doc } from '../../../src/doc/document.js';
import { collect, defaultContext } from '../../../src/core/stage.js';
import { resolveTrajectoriesOptions, trajectoriesSource } from '../../../src/stages/trajectories/index.js';
import { sharedDir } from '../../helpers/paths.js';

/** SWE-agent's own trajectories (MIT), the real data the stage is built for. */
export const sweAgentDir = join(sharedDir, 'data', 'trajectories', 'swe-agent');

export const tmp = () => mkdtempSync(join(tmpdir(), 'midpack-traj-'));

/** Runs the trajectories source over inputs; returns the documents, ledger and stats. */
export async function runSource(inputs: string[], raw: Record<string, unknown> = {}, seed = 0) {
  const ctx = defaultContext({ seed, log: () => {} });
  const docs: Doc[] = await collect(trajectoriesSource(inputs, resolveTrajectoriesOptions(raw), ctx));
  return { docs, ledger: ctx.ledger.toJSON(), balanced: ctx.ledger.balanced(), stats: ctx.stats.trajectories as Record<string, any> };
}

/** Writes rows as a JSONL file and returns its path. */
export function jsonlFile(dir: string, name: string, rows: unknown[]): string {
  const p = join(dir, name);
  writeFileSync(p, rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
  return p;
}

export const readJsonlDocs = (path: string): Doc[] => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Doc);
