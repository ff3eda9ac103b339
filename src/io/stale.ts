import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

/**
 * What a killed midpack leaves behind, and how a later run removes it: only files it can prove
 * its own. A temporary output is `OUT.tmp-PID` beside the exact output this run writes; a spill
 * folder carries a marker naming its process and host. Either is removed only when that process
 * is gone (on this host): a live writer, another host's folder or a user's file is never touched.
 */
export function processIsGone(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH'; // EPERM: it exists, under another user
  }
}

/** Removes `OUT.tmp-PID` files of dead midpack processes beside `path`; returns what it removed. */
export function removeStaleTemps(path: string): string[] {
  const dir = dirname(path);
  const prefix = `${basename(path)}.tmp-`;
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = name.slice(prefix.length);
    if (!/^\d+$/.test(pid) || !processIsGone(Number(pid))) continue;
    rmSync(join(dir, name), { force: true });
    removed.push(join(dir, name));
  }
  return removed;
}

const SPILL_MARKER = '.midpack-spill';

/** The name of a spill folder of this process: `PREFIX<pid>-`, completed by mkdtemp. */
export function spillPrefix(parent: string, prefix: string): string {
  return join(parent, `${prefix}${process.pid}-`);
}

/** Marks a new spill folder as this process's, so a later run can prove it and remove it after a kill. */
export function markSpill(dir: string): void {
  writeFileSync(join(dir, SPILL_MARKER), JSON.stringify({ pid: process.pid, host: hostname() }) + '\n');
}

/** Removes spill folders `PREFIX<pid>-*` under `parent` whose marker names a dead process of this host. */
export function removeStaleSpills(parent: string, prefix: string): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return removed;
  }
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\d+)-[A-Za-z0-9]{6}$`);
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m) continue;
    const marker = join(parent, name, SPILL_MARKER);
    if (!existsSync(marker)) continue;
    let owner: { pid?: unknown; host?: unknown };
    try {
      owner = JSON.parse(readFileSync(marker, 'utf8')) as typeof owner;
    } catch {
      continue;
    }
    if (owner.pid !== Number(m[1]) || owner.host !== hostname() || !processIsGone(Number(m[1]))) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
    removed.push(join(parent, name));
  }
  return removed;
}
