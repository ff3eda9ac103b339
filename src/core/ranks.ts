import { join } from 'node:path';
import { hash64 } from './random.js';

/**
 * Which part of the input this process owns. Inputs partition by record: a record belongs to
 * rank hash(key) mod worldSize, where the key names the record (file and line, repository,
 * page, commit), so the split depends neither on timing nor on how many files there are.
 */
export interface RankInfo {
  rank: number;
  worldSize: number;
}

export const SINGLE_RANK: RankInfo = { rank: 0, worldSize: 1 };

/**
 * --rank/--world-size win; else a Slurm job array (SLURM_ARRAY_TASK_ID, with SLURM_ARRAY_TASK_COUNT
 * or MIN/MAX); else a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with the completions count in
 * JOB_COMPLETIONS, which the Job manifest sets); MIDPACK_WORLD_SIZE overrides the count.
 */
export function resolveRank(flags: { rank?: number; worldSize?: number }, env: NodeJS.ProcessEnv = process.env): RankInfo {
  const num = (name: string): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name}=${v} is not a non-negative integer`);
    return n;
  };
  let rank = flags.rank;
  let worldSize = flags.worldSize ?? num('MIDPACK_WORLD_SIZE');
  if (rank === undefined && num('SLURM_ARRAY_TASK_ID') !== undefined) {
    const min = num('SLURM_ARRAY_TASK_MIN') ?? 0;
    rank = num('SLURM_ARRAY_TASK_ID')! - min;
    worldSize ??= num('SLURM_ARRAY_TASK_COUNT') ?? (num('SLURM_ARRAY_TASK_MAX') !== undefined ? num('SLURM_ARRAY_TASK_MAX')! - min + 1 : undefined);
    if (worldSize === undefined) throw new Error('SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT (or MIN/MAX): give --world-size');
  } else if (rank === undefined && num('JOB_COMPLETION_INDEX') !== undefined) {
    rank = num('JOB_COMPLETION_INDEX');
    worldSize ??= num('JOB_COMPLETIONS');
    if (worldSize === undefined) throw new Error('JOB_COMPLETION_INDEX is set but not JOB_COMPLETIONS (set it to the Job\'s completions) or --world-size');
  }
  rank ??= 0;
  worldSize ??= 1;
  if (worldSize < 1) throw new Error(`world size must be at least 1, got ${worldSize}`);
  if (rank >= worldSize) throw new Error(`rank ${rank} is out of range for world size ${worldSize}`);
  return { rank, worldSize };
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
  return rank.worldSize > 1 ? join(out, `rank-${String(rank.rank).padStart(5, '0')}`) : out;
}
