import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The file that marks a folder as a midpack output (see src/job/out-dir.ts). */
export const OUTPUT_MARKER = '.midpack-output.json';

/**
 * A midpack output folder (its marker, or the manifest and shard state of an output older
 * than markers): its shards and work files are not documents to read again.
 */
export function isMidpackOutput(dir: string): boolean {
  return existsSync(join(dir, OUTPUT_MARKER)) || (existsSync(join(dir, 'manifest.json')) && existsSync(join(dir, 'shards', 'state.json')));
}

/**
 * Expands input arguments into a sorted list of files: a file stays as it is, a folder
 * gives the files under it whose names match `accept`. Sorted so that every rank and
 * every rerun sees the same order. A file reached twice (a folder and a file in it, two
 * spellings of one path, a link) is read once, and folders that are midpack outputs are
 * skipped, each with a warning on stderr.
 */
export function expandInputs(inputs: string[], accept: (name: string) => boolean): string[] {
  const out: string[] = [];
  const seen = new Map<string, string>();
  const add = (p: string) => {
    const real = realpathSync(p);
    const first = seen.get(real);
    if (first !== undefined) {
      process.stderr.write(`midpack: input ${p} is the same file as ${first}: read once\n`);
      return;
    }
    seen.set(real, p);
    out.push(p);
  };
  const walk = (dir: string) => {
    if (isMidpackOutput(dir)) {
      process.stderr.write(`midpack: skipping ${dir}: it is a midpack output folder, not input documents\n`);
      return;
    }
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && accept(e.name)) add(p);
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
    else add(input);
  }
  return out;
}

export const isJsonl = (name: string) => /\.jsonl(\.gz|\.zst|\.zstd)?$/.test(name);
export const isParquet = (name: string) => name.endsWith('.parquet');
