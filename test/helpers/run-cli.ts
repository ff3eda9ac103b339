import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from './paths.js';
import { OUTPUT_MARKER } from '../../src/io/inputs.js';
import { MEASURED_REPORT_KEYS } from '../../src/report/figures.js';

export const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');

/**
 * Reruns compare outputs byte for byte: SOURCE_DATE_EPOCH makes a run reproducible (report.html's
 * date fixed, the measured stage times left out of report.json and report.html).
 */
const REPRODUCIBLE = { SOURCE_DATE_EPOCH: '1700000000' };

/** Runs the midpack CLI to completion. */
export function midpack(args: string[], opts: { env?: Record<string, string>; input?: string } = {}) {
  const r = spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', env: { ...process.env, ...REPRODUCIBLE, ...opts.env }, input: opts.input, maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Starts the CLI and SIGKILLs it once `when(stderrSoFar, elapsedMs)` says so (or it ends). */
export function midpackKilled(args: string[], killAfterMs: number): Promise<{ killed: boolean; status: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...REPRODUCIBLE } });
    child.stderr.resume();
    let killed = false;
    const t = setTimeout(() => {
      killed = child.kill('SIGKILL');
    }, killAfterMs);
    child.on('exit', (status) => {
      clearTimeout(t);
      resolve({ killed: killed && status === null, status });
    });
  });
}

/**
 * sha256 of every file under dir (relative path → hash), for byte-identity checks. The output
 * marker (.midpack-output.json) is left out: it records where an output came from (input
 * paths and mtimes), so it differs between folders by design; it is not data. So are the
 * measurements of the machine in report.json (MEASURED_REPORT_KEYS: peak RSS), which differ
 * from run to run: the rest of report.json is hashed.
 */
function withoutMeasurements(reportJson: string): string {
  const r = JSON.parse(reportJson) as Record<string, unknown>;
  for (const k of MEASURED_REPORT_KEYS) delete r[k];
  return JSON.stringify(r);
}

export function hashTree(dir: string, skip: (rel: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const rel = relative(dir, p);
      if (skip(rel) || rel === OUTPUT_MARKER) continue;
      if (statSync(p).isDirectory()) walk(p);
      else out[rel] = createHash('sha256').update(name === 'report.json' ? withoutMeasurements(readFileSync(p, 'utf8')) : readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}
