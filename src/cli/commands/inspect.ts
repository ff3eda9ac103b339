import { InvalidArgumentError, type Command } from 'commander';
import { action, intOption } from '../common.js';
import { inspectBin, readBin, renderBin } from '../../report/inspect.js';
import { loadTokenizer } from '../../tokenize/tokenizer.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** "1,3-5" → {1, 3, 4, 5}: units as the header numbers them (from 1). */
function unitList(v: string): Set<number> {
  const units = new Set<number>();
  for (const part of v.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    const [a, b] = [Number(m?.[1]), Number(m?.[2] ?? m?.[1])];
    if (!m || a < 1 || b < a) throw new InvalidArgumentError(`--docs: units are numbers from 1 or ranges like 3-5, got "${v}"`);
    for (let u = a; u <= b; u++) units.add(u);
  }
  return units;
}

export function register(program: Command): void {
  program
    .command('inspect')
    .description('Show one packed bin as text: units separated, masked spans marked ⟦like this⟧, padding counted')
    .argument('<dir>', 'a pack output folder')
    .requiredOption('--bin <n>', 'bin (row) number, from 0', intOption('--bin'))
    .option('--max-tokens <n>', 'show at most this many tokens of each unit (0: all)', intOption('--max-tokens'), 1000)
    .option('--docs <units>', 'only these units, numbered from 1 as the headers show them: "1,3-5" (default: all)', unitList)
    .option('--json', 'print one JSON object: the bin figures and each shown unit (id, kind, tokens, offset, masked tokens, text)')
    .option('--color', 'dim masked text with terminal colours instead of ⟦ ⟧', false)
    .action(
      action(async (dir: string, opts: { bin: number; color: boolean; maxTokens: number; docs?: Set<number>; json?: boolean }) => {
        const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { config: { tokenizer: string } };
        const tokenizer = await loadTokenizer(manifest.config.tokenizer);
        const bin = await readBin(dir, opts.bin);
        const o = { maxTokens: opts.maxTokens, units: opts.docs, color: opts.color && !opts.json };
        process.stdout.write((opts.json ? JSON.stringify(inspectBin(bin, tokenizer, opts.bin, o)) : renderBin(bin, tokenizer, opts.bin, o)) + '\n');
      }),
    );
}
