import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Expands input arguments into a sorted list of files: a file stays as it is, a folder
 * gives the files under it whose names match `accept`. Sorted so that every rank and
 * every rerun sees the same order.
 */
export function expandInputs(inputs: string[], accept: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && accept(e.name)) out.push(p);
    }
  };
  for (const input of inputs) {
    if (input === '-') {
      out.push(input);
      continue;
    }
    let st;
    try {
      st = statSync(input);
    } catch {
      throw new Error(`input not found: ${input}`);
    }
    if (st.isDirectory()) walk(input);
    else out.push(input);
  }
  return out;
}

export const isJsonl = (name: string) => /\.jsonl(\.gz|\.zst|\.zstd)?$/.test(name);
export const isParquet = (name: string) => name.endsWith('.parquet');
