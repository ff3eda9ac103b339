import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * checkFastPipeline's verdict kept on disk, keyed by the sha256 of the tokenizer.json content
 * and the version of the check: the check (about a second on the main thread, before any worker
 * can start) then runs once per tokenizer and machine, not once per job. The same bytes always
 * get the same verdict, so a cached one is as exact as a fresh one; a file that cannot be read
 * or does not name this hash is ignored and the check runs again.
 *
 * The folder is $MIDPACK_CACHE_DIR/tokenizer, else $XDG_CACHE_HOME/midpack/tokenizer, else
 * ~/.cache/midpack/tokenizer; MIDPACK_CACHE_DIR=off turns the cache off. A cache that cannot be
 * written only costs the check's time.
 */

/** Bump when checkFastPipeline changes what it accepts, so old verdicts are not reused. */
export const FAST_CHECK_VERSION = 1;

/** The cache folder, or null when the cache is off. */
export function verdictCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const dir = env.MIDPACK_CACHE_DIR;
  if (dir === 'off') return null;
  if (dir) return join(dir, 'tokenizer');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'midpack', 'tokenizer');
}

interface Verdict {
  sha256: string;
  version: number;
  /** Why the fast backend is not exact, or null when it is. */
  reason: string | null;
}

/** The verdict for the tokenizer.json with this hash: from the cache, else from `check` (then cached). */
export function cachedVerdict(hash: string, check: () => string | undefined, dir: string | null = verdictCacheDir()): string | undefined {
  if (!dir) return check();
  const path = join(dir, `fast-check-v${FAST_CHECK_VERSION}-${hash}.json`);
  const hit = readVerdict(path, hash);
  if (hit !== undefined) return hit.reason ?? undefined;
  const reason = check();
  const v: Verdict = { sha256: hash, version: FAST_CHECK_VERSION, reason: reason ?? null };
  try {
    mkdirSync(dir, { recursive: true });
    // Written under a unique name and renamed: concurrent jobs never read half a file.
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(tmp, JSON.stringify(v));
    renameSync(tmp, path);
  } catch {
    // read-only or missing home: the check simply runs again next time
  }
  return reason;
}

function readVerdict(path: string, hash: string): Verdict | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as Verdict;
    if (v.sha256 === hash && v.version === FAST_CHECK_VERSION && (v.reason === null || typeof v.reason === 'string')) return v;
  } catch {
    // absent or unreadable: not a verdict
  }
  return undefined;
}
