import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isRemote, joinRemote } from '../io/remote.js';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { hash64 } from './random.js';

/**
 * Which part of the input this process owns. Inputs partition by record: a record belongs to
 * rank hash(key) mod worldSize, where the key names the record (file and line, repository,
 * page, commit), so the split depends neither on timing nor on how many files there are.
 *
 * Under a scheduler the rank is the task's place in the job as first submitted:
 *   - a Slurm array task is rank (SLURM_ARRAY_TASK_ID - first index) / step, of a world as large
 *     as the array's span ((MAX - MIN) / STEP + 1), not its task count: `--array=0,2` is ranks 0
 *     and 2 of 3. A resubmitted task (`sbatch --array=1` after a 0-2 job) sees only its own
 *     one-task array, so the first rank to start records the job's shape in OUT (RANKS_RECORD):
 *     world size, first index, last index and step; later tasks take their rank from it.
 *   - a Kubernetes Indexed Job pod is rank JOB_COMPLETION_INDEX of JOB_COMPLETIONS (which the
 *     Job manifest sets to its `completions`); a retried pod keeps its index.
 */
export interface RankInfo {
  rank: number;
  worldSize: number;
}

export const SINGLE_RANK: RankInfo = { rank: 0, worldSize: 1 };

/** The shape of a multi-rank job, as its first rank recorded it in OUT. */
export const RANKS_RECORD = '.midpack-ranks.json';

export class RankError extends Error {}

/** A Slurm array task as its environment describes it. */
export interface SlurmTask {
  jobId?: string;
  task: number;
  min: number;
  max: number;
  step: number;
}

/** What this process was told about its rank: flags, then the scheduler's environment. */
export interface RankClaim {
  rank?: number;
  /** The world size stated outright (--world-size, config, MIDPACK_WORLD_SIZE, JOB_COMPLETIONS), and by what. */
  worldSize?: number;
  worldSizeFrom?: string;
  slurm?: SlurmTask;
  kubernetes?: { index: number };
}

export interface RanksRecord {
  format: 'midpack-ranks';
  version: 1;
  world_size: number;
  /** The Slurm array as first submitted (tasks min..max by step), when the ranks run as one. */
  slurm?: { array_job_id: string | null; min: number; max: number; step: number };
  recorded_by: { rank: number; host: string; pid: number; time: string; how: string };
}

function envInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new RankError(`${name}=${v} is not a non-negative integer`);
  return n;
}

/** Reads the flags and the scheduler's variables (nothing is decided yet). */
export function rankClaim(flags: { rank?: number; worldSize?: number }, env: NodeJS.ProcessEnv = process.env): RankClaim {
  const claim: RankClaim = { rank: flags.rank };
  const stated: [number | undefined, string][] = [
    [flags.worldSize, '--world-size'],
    [envInt(env, 'MIDPACK_WORLD_SIZE'), 'MIDPACK_WORLD_SIZE'],
  ];
  const task = envInt(env, 'SLURM_ARRAY_TASK_ID');
  const index = envInt(env, 'JOB_COMPLETION_INDEX');
  if (task !== undefined) {
    const min = envInt(env, 'SLURM_ARRAY_TASK_MIN') ?? 0;
    const step = envInt(env, 'SLURM_ARRAY_TASK_STEP') || 1;
    const count = envInt(env, 'SLURM_ARRAY_TASK_COUNT');
    const max = envInt(env, 'SLURM_ARRAY_TASK_MAX') ?? (count !== undefined ? min + (count - 1) * step : undefined);
    if (max === undefined) throw new RankError('SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_MAX (or SLURM_ARRAY_TASK_COUNT): give --world-size');
    claim.slurm = { jobId: env.SLURM_ARRAY_JOB_ID || undefined, task, min, max, step };
  } else if (index !== undefined) {
    claim.kubernetes = { index };
    stated.push([envInt(env, 'JOB_COMPLETIONS'), 'JOB_COMPLETIONS']);
  }
  const first = stated.find(([w]) => w !== undefined);
  if (first) [claim.worldSize, claim.worldSizeFrom] = first;
  return claim;
}

/** A Slurm task's rank within an array of first index `min` and step `step`. */
function slurmRank(t: SlurmTask, min: number, step: number, where: string): number {
  const off = t.task - min;
  if (off < 0 || off % step !== 0) throw new RankError(`Slurm array task ${t.task} is not on ${where} (first index ${min}, step ${step})`);
  return off / step;
}

const slurmSpan = (t: SlurmTask) => Math.floor((t.max - t.min) / t.step) + 1;

function checked(info: RankInfo): RankInfo {
  if (info.worldSize < 1) throw new RankError(`world size must be at least 1, got ${info.worldSize}`);
  if (info.rank >= info.worldSize) throw new RankError(`rank ${info.rank} is out of range for world size ${info.worldSize}`);
  return info;
}

/**
 * The rank from flags and environment alone (no output folder to consult): --rank/--world-size
 * win; else a Slurm array task, ranked within the array it runs in; else a Kubernetes Indexed Job.
 */
export function resolveRank(flags: { rank?: number; worldSize?: number }, env: NodeJS.ProcessEnv = process.env): RankInfo {
  return fromClaim(rankClaim(flags, env));
}

function fromClaim(c: RankClaim): RankInfo {
  if (c.slurm) {
    const rank = c.rank ?? slurmRank(c.slurm, c.slurm.min, c.slurm.step, `its array ${c.slurm.min}-${c.slurm.max}`);
    return checked({ rank, worldSize: c.worldSize ?? slurmSpan(c.slurm) });
  }
  if (c.kubernetes) {
    if (c.worldSize === undefined) throw new RankError("JOB_COMPLETION_INDEX is set but not JOB_COMPLETIONS (set it to the Job's completions) or --world-size");
    return checked({ rank: c.rank ?? c.kubernetes.index, worldSize: c.worldSize });
  }
  return checked({ rank: c.rank ?? 0, worldSize: c.worldSize ?? 1 });
}

/**
 * The rank of a process writing under OUT. World size, in order: stated (--world-size, the
 * config's worldSize, MIDPACK_WORLD_SIZE, JOB_COMPLETIONS); OUT's record; the Slurm array's span.
 * The first rank of a multi-rank job records its shape in OUT/.midpack-ranks.json; a later
 * process (a resubmitted task) takes its rank and world size from there, and one that
 * contradicts the record is refused, naming both. An s3:// OUT keeps no record (yet).
 */
export function resolveRankAt(out: string, flags: { rank?: number; worldSize?: number }, env: NodeJS.ProcessEnv = process.env): RankInfo {
  const claim = rankClaim(flags, env);
  // An s3:// OUT keeps no record yet (it would need a conditional PUT here): the claim alone decides.
  if (isRemote(out)) return fromClaim(claim);
  const path = join(out, RANKS_RECORD);
  let record = readRanksRecord(path);
  if (!record) {
    const info = fromClaim(claim);
    if (info.worldSize === 1) return info;
    record = writeRanksRecord(path, recordOf(info, claim));
  }
  return rankFromRecord(claim, record, path);
}

function recordOf(info: RankInfo, c: RankClaim): RanksRecord {
  const how = c.slurm ? `Slurm array job ${c.slurm.jobId ?? '?'} task ${c.slurm.task}` : c.kubernetes ? `Kubernetes Indexed Job index ${c.kubernetes.index}` : '--rank/--world-size';
  // The array as the world size implies it: a stated world size may be larger than the array submitted first.
  const slurm = c.slurm && c.rank === undefined ? { array_job_id: c.slurm.jobId ?? null, min: c.slurm.min, max: c.slurm.min + (info.worldSize - 1) * c.slurm.step, step: c.slurm.step } : undefined;
  return {
    format: 'midpack-ranks',
    version: 1,
    world_size: info.worldSize,
    ...(slurm ? { slurm } : {}),
    recorded_by: { rank: info.rank, host: hostname(), pid: process.pid, time: new Date().toISOString(), how },
  };
}

function describe(r: RanksRecord, path: string): string {
  const arr = r.slurm ? `, Slurm array ${r.slurm.min}-${r.slurm.max}${r.slurm.step > 1 ? `:${r.slurm.step}` : ''} of job ${r.slurm.array_job_id ?? '?'}` : '';
  return `${path} records world size ${r.world_size}${arr} (by rank ${r.recorded_by.rank}: ${r.recorded_by.how})`;
}

function rankFromRecord(c: RankClaim, r: RanksRecord, path: string): RankInfo {
  const fix = 'use another OUT for a job of another shape (or remove that file, which midpack wrote, to discard the earlier ranks)';
  if (c.worldSize !== undefined && c.worldSize !== r.world_size) {
    throw new RankError(`${c.worldSizeFrom} ${c.worldSize} contradicts ${describe(r, path)}: ${fix}`);
  }
  let rank = c.rank;
  if (rank === undefined && c.slurm) {
    const t = c.slurm;
    if (r.slurm) {
      const range = `the array ${describe(r, path)}`;
      if (t.min < r.slurm.min || t.max > r.slurm.max) {
        throw new RankError(`this Slurm array (job ${t.jobId ?? '?'}, tasks ${t.min}-${t.max}) is not part of ${range}: ${fix}`);
      }
      rank = slurmRank(t, r.slurm.min, r.slurm.step, range);
    } else {
      rank = slurmRank(t, t.min, t.step, `its array ${t.min}-${t.max}`);
    }
  } else if (rank === undefined && c.kubernetes) {
    rank = c.kubernetes.index;
  }
  if (rank === undefined) {
    throw new RankError(`${describe(r, path)}, and this process runs in no Slurm array or Indexed Job: give --rank R (0..${r.world_size - 1})`);
  }
  if (rank >= r.world_size) throw new RankError(`rank ${rank} is out of range: ${describe(r, path)}`);
  return { rank, worldSize: r.world_size };
}

export function readRanksRecord(path: string): RanksRecord | undefined {
  if (!existsSync(path)) return undefined;
  let r: RanksRecord;
  try {
    r = JSON.parse(readFileSync(path, 'utf8')) as RanksRecord;
  } catch (e) {
    throw new RankError(`${path}: not readable as JSON (${(e as Error).message})`);
  }
  if (r?.format !== 'midpack-ranks' || !Number.isInteger(r.world_size) || r.world_size < 1) throw new RankError(`${path}: not a midpack ranks record`);
  return r;
}

/**
 * Writes the record unless one is there: made whole under a temporary name and hard-linked into
 * place, so of ranks starting together one writes it and the others read it.
 */
function writeRanksRecord(path: string, record: RanksRecord): RanksRecord {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(record, null, 2) + '\n');
  try {
    linkSync(tmp, path);
    return record;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return readRanksRecord(path)!;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * How the partition keys a record: by its input's portable name (io/inputs.ts `portableNamer`:
 * its path below the input given, an object's key below the prefix given), never by where the
 * input sits, so a rank owns the same records whether its inputs are on local disk or in a
 * bucket. Part of the fingerprint of every multi-rank output: midpack before 2026-12 keyed by the
 * path as given, and a folder (or prefix) such a job left is refused, not resumed into.
 */
export const PARTITION_KEYS = 'portable-name';

/** What a multi-rank output's fingerprint records of the partition (nothing for one rank, whose fingerprint is as before). */
export function partitionKeys(info: RankInfo): { partition_keys?: string } {
  return info.worldSize > 1 ? { partition_keys: PARTITION_KEYS } : {};
}

/** Which records of one input a rank owns: `owns` asked with the input's name and the record's place in it (`:LINE`, `#rowN`). */
export function inputOwns(owns: ((key: string) => boolean) | undefined, name: string): ((record: string) => boolean) | undefined {
  return owns && ((record) => owns(name + record));
}

/** A predicate: does this rank own the record named `key`? */
export function ownedBy(info: RankInfo): ((key: string) => boolean) | undefined {
  if (info.worldSize === 1) return undefined;
  const w = BigInt(info.worldSize);
  const r = BigInt(info.rank);
  return (key) => hash64('partition', key) % w === r;
}

/** One rank of several writes to OUT/rank-RRRRR; `midpack merge OUT/rank-* --out DIR` joins them. */
export function rankOutDir(out: string, rank: RankInfo): string {
  const name = `rank-${String(rank.rank).padStart(5, '0')}`;
  // path.join would fold an s3:// prefix's `//`.
  return rank.worldSize > 1 ? (isRemote(out) ? joinRemote(out, name) : join(out, name)) : out;
}

/** Ranks 0..W-1 checked against the ranks a set of files covers: the ranks given twice (with the files), missing, or out of range. */
export function rankCoverage(parts: { ranks: number[]; name: string }[], worldSize: number): { doubled: string[]; missing: number[]; outOfRange: string[] } {
  const seen = new Map<number, string>();
  const doubled: string[] = [];
  const outOfRange: string[] = [];
  for (const { ranks, name } of parts) {
    for (const r of ranks) {
      if (!Number.isInteger(r) || r < 0 || r >= worldSize) outOfRange.push(`rank ${r} (${name})`);
      else if (seen.has(r)) doubled.push(`rank ${r} is given twice: ${seen.get(r)} and ${name}`);
      else seen.set(r, name);
    }
  }
  const missing = Array.from({ length: worldSize }, (_, r) => r).filter((r) => !seen.has(r));
  return { doubled, missing, outOfRange };
}

/** A list of ranks for a message, its first few when long. */
export function rankList(xs: readonly number[]): string {
  return xs.length <= 20 ? xs.join(', ') : `${xs.slice(0, 20).join(', ')} ... (${xs.length} in all)`;
}

/**
 * Checks that counts of several ranks (mask, mixture, dedup) are ranks 0..W-1 of one run, each
 * once: a doubled rank is always refused; a missing rank unless `allowMissing` (then returned,
 * to be recorded in the merged file).
 */
export function checkRankSet(what: string, parts: { ranks: number[]; worldSize: number; name: string }[], allowMissing: boolean): { ranks: number[]; worldSize: number; missing: number[] } {
  const W = parts[0]!.worldSize;
  for (const p of parts) {
    if (p.worldSize !== W) throw new RankError(`${what}: ${p.name} comes from a run of world size ${p.worldSize}, ${parts[0]!.name} from ${W}`);
  }
  const { doubled, missing, outOfRange } = rankCoverage(parts, W);
  if (outOfRange.length) throw new RankError(`${what}: out of range for world size ${W}: ${outOfRange.join(', ')}`);
  if (doubled.length) throw new RankError(`${what}: ${doubled.join('; ')}`);
  if (missing.length && !allowMissing) {
    throw new RankError(
      `${what}: missing rank${missing.length > 1 ? 's' : ''} ${rankList(missing)} of 0..${W - 1} (run ${missing.length > 1 ? 'them' : 'it'} first; ` +
        '--allow-missing-ranks merges without, and records which are missing)',
    );
  }
  const ranks = parts.flatMap((p) => p.ranks).sort((a, b) => a - b);
  return { ranks, worldSize: W, missing };
}
