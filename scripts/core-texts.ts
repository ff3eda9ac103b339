import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The texts of the tokenizer-alone figures (bench:tokenize, bench:tokenizer-core): code files and documentation, about 8 MB each (repeated). */
export function coreTexts(root: string): { code: string[]; prose: string[] } {
  const code: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(py|js|ts|go|rs|java|c|h|cpp|md|json|toml|yaml|sh)$/.test(e.name)) code.push(readFileSync(p, 'utf8'));
    }
  };
  walk(join(root, 'data-samples', 'repos'));
  const prose = readFileSync(join(root, 'data-samples', 'docs', 'packages.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => String((JSON.parse(l) as { text?: unknown }).text ?? ''));
  const grow = (xs: string[]) => {
    const out: string[] = [];
    for (let size = 0; size < 8e6; ) for (const x of xs) (out.push(x), (size += Buffer.byteLength(x)));
    return out;
  };
  return { code: grow(code), prose: grow(prose) };
}
