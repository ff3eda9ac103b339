import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';

/**
 * A git index file (format version 2) of blobs already in a repository, written here instead of
 * by `git update-index --index-info`: `git apply --check --cached` reads only each entry's mode,
 * object name and path, so its stat fields are zero. A process fewer per checked batch: a prepare
 * worker's spawn forks the whole process (tens of ms of CPU at a run's 600 MB RSS).
 *
 * Layout (git's Documentation/gitformat-index.txt): "DIRC", version 2, the entry count; each entry
 * ten 32-bit stat fields (mode the 7th), the object name, 16 bits of flags (the path's length,
 * at most 0xfff), the path and 1 to 8 NULs to a multiple of 8 bytes; the entries sorted by
 * path bytes; then the hash of everything before it (SHA-1, or SHA-256 for a SHA-256 repository).
 */
export interface IndexEntry {
  /** Octal, as ls-tree shows it (100644, 100755, 120000). */
  mode: string;
  /** The object name in hex: 40 digits (SHA-1) or 64 (SHA-256). */
  sha: string;
  path: string;
}

const STAT_BYTES = 40;

/**
 * Writes `entries` as the index file `file` of a repository whose object names are `hashBytes`
 * long (20: SHA-1, 32: SHA-256); a path given twice keeps its last entry, as update-index does.
 */
export function writeGitIndex(file: string, entries: readonly IndexEntry[], hashBytes: number): void {
  const byPath = new Map<string, { mode: number; sha: Buffer; path: Buffer }>();
  for (const e of entries) byPath.set(e.path, { mode: parseInt(e.mode, 8), sha: Buffer.from(e.sha, 'hex'), path: Buffer.from(e.path, 'utf8') });
  const sorted = [...byPath.values()].sort((a, b) => Buffer.compare(a.path, b.path));
  const parts: Buffer[] = [Buffer.from('DIRC\0\0\0\x02\0\0\0\0', 'latin1')];
  parts[0]!.writeUInt32BE(sorted.length, 8);
  for (const e of sorted) {
    const fixed = STAT_BYTES + hashBytes + 2;
    const entry = Buffer.alloc((fixed + e.path.length + 8) & ~7);
    entry.writeUInt32BE(e.mode, 24);
    e.sha.copy(entry, STAT_BYTES);
    entry.writeUInt16BE(Math.min(e.path.length, 0xfff), STAT_BYTES + hashBytes);
    e.path.copy(entry, fixed);
    parts.push(entry);
  }
  const body = Buffer.concat(parts);
  const checksum = createHash(hashBytes === 32 ? 'sha256' : 'sha1').update(body).digest();
  writeFileSync(file, Buffer.concat([body, checksum]));
}
