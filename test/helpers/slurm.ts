import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/**
 * A real one-node Slurm for the tests: scripts/slurm-up.sh starts munged, slurmctld and slurmd
 * from Debian's slurm-wlm and munge with a generated slurm.conf, and stops them by their pids.
 * Where Slurm is not installed or cannot start (not root, no packages), `skip` says why and the
 * tests skip; nothing here imitates the scheduler.
 */
export interface SlurmCluster {
  /** The environment clients and jobs need (SLURM_CONF), on top of process.env. */
  env: NodeJS.ProcessEnv;
  dir: string;
  stop(): void;
}

const script = join(repoRoot, 'scripts', 'slurm-up.sh');

export function startSlurm(): { cluster?: SlurmCluster; skip?: string } {
  if (process.env.MIDPACK_SKIP_SLURM) return { skip: 'MIDPACK_SKIP_SLURM is set' };
  const have = spawnSync('sh', ['-c', 'command -v sbatch && command -v slurmctld && command -v slurmd && command -v munged'], { encoding: 'utf8' });
  if (have.status !== 0) return { skip: 'Slurm is not installed (apt-get install slurm-wlm munge; .ci/run does this as root)' };
  const dir = mkdtempSync(join(tmpdir(), 'midpack-slurm-'));
  const up = spawnSync('bash', [script, 'start', dir], { encoding: 'utf8', timeout: 60_000 });
  const stop = () => {
    spawnSync('bash', [script, 'stop', dir], { encoding: 'utf8', timeout: 60_000 });
    rmSync(dir, { recursive: true, force: true });
  };
  if (up.status !== 0) {
    stop();
    return { skip: `a one-node Slurm could not be started: ${(up.stderr || up.stdout || `exit ${up.status}`).trim()}` };
  }
  return { cluster: { env: { ...process.env, SLURM_CONF: join(dir, 'slurm.conf') }, dir, stop } };
}

/** Runs a Slurm client (sbatch, scontrol, scancel) against the cluster; throws with its output when it fails and `check`. */
export function slurmCmd(c: SlurmCluster, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; check?: boolean; timeoutMs?: number } = {}) {
  const r = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8', cwd: opts.cwd, env: { ...c.env, ...opts.env }, timeout: opts.timeoutMs ?? 120_000 });
  if ((opts.check ?? true) && r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `scontrol show job ID` as key=value pairs, one record per array task. */
export function showJob(c: SlurmCluster, id: string): Record<string, string>[] {
  const r = slurmCmd(c, ['scontrol', 'show', 'job', '-o', id]);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((line) => {
      const rec: Record<string, string> = {};
      for (const m of line.matchAll(/(\S+?)=(\S*)/g)) rec[m[1]!] ??= m[2]!;
      return rec;
    });
}

/**
 * Waits until every task of job `id` has left PENDING/RUNNING, or a pending task is marked
 * DependencyNeverSatisfied, or `done` says so (or `ms` passes); returns the tasks' records.
 */
export async function waitJob(c: SlurmCluster, id: string, ms = 120_000, done?: (task: Record<string, string>) => boolean): Promise<Record<string, string>[]> {
  const end = Date.now() + ms;
  for (;;) {
    const tasks = showJob(c, id);
    const active = tasks.some((t) => /^(PENDING|RUNNING|CONFIGURING|COMPLETING)$/.test(t.JobState ?? '') && t.Reason !== 'DependencyNeverSatisfied');
    if (!active || (done && tasks.every(done)) || Date.now() > end) return tasks;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** The slurmctld log, for a failing test's message. */
export function slurmLog(c: SlurmCluster): string {
  try {
    return readFileSync(join(c.dir, 'log', 'slurmctld.log'), 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '';
  }
}
