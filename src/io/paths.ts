import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { OptionError, type OptionTable } from '../core/options.js';
import { isRemote } from './remote.js';

/** The paths an option value names: a string (comma-separated, as the CLI's repeated flag joins them) or a list of strings. */
function listed(v: unknown): string[] {
  const list = typeof v === 'string' ? v.split(',') : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  return list.map((p) => p.trim()).filter((p) => p !== '');
}

/** The values of a table's options that name files or folders that must exist (spec `path: true`), by key. */
export function pathOptions(table: OptionTable, raw: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, spec] of Object.entries(table)) if (spec.type === 'string' && spec.path && raw[key] !== undefined) out[key] = listed(raw[key]);
  return out;
}

/**
 * A folder or file named in an option that does not exist is a usage error, like a missing input
 * file: one line naming the option and the path, before any work. The CLI checks from the working
 * folder, a run config from its own folder (`base`). Remote URLs are left to their readers.
 */
export function requirePaths(paths: Record<string, string[]>, base = '.'): void {
  for (const [key, list] of Object.entries(paths)) {
    for (const p of list) {
      if (isRemote(p)) continue;
      if (!existsSync(isAbsolute(p) ? p : join(base, p))) throw new OptionError(key, p, 'no such file or folder');
    }
  }
}
