import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDir } from '../../helpers/paths.js';

/** HumanEval from shared/ (its licence beside it): the benchmark planted in real code. */
export const HUMANEVAL = join(sharedDir, 'data', 'benchmarks', 'HumanEval.jsonl.gz');

/** The machine's Python standard library: real, clean Python to plant benchmark items into. */
export const STDLIB = readdirSync('/usr/lib').filter((d) => /^python3\.\d+$/.test(d)).map((d) => join('/usr/lib', d))[0]!;

/** The `.py` files below `dir` in name order, without test, IDLE and third-party folders. */
export function pythonFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory() && !/^(test|tests|idlelib|site-packages|dist-packages|__pycache__)$/.test(e.name)) pythonFiles(p, out);
    else if (e.isFile() && e.name.endsWith('.py')) out.push(p);
  }
  return out;
}
