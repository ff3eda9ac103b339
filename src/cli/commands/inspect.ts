import type { Command } from 'commander';
import { action, intOption } from '../common.js';
import { readBin, renderBin } from '../../report/inspect.js';
import { loadTokenizer } from '../../tokenize/tokenizer.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function register(program: Command): void {
  program
    .command('inspect')
    .description('Show one packed bin as text: units separated, masked spans marked ⟦like this⟧, padding counted')
    .argument('<dir>', 'a pack output folder')
    .requiredOption('--bin <n>', 'bin (row) number, from 0', intOption('--bin'))
    .option('--color', 'dim masked text with terminal colours instead of ⟦ ⟧', false)
    .action(
      action(async (dir: string, opts: { bin: number; color: boolean }) => {
        const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { config: { tokenizer: string } };
        const tokenizer = await loadTokenizer(manifest.config.tokenizer);
        const bin = await readBin(dir, opts.bin);
        process.stdout.write(renderBin(bin, tokenizer, opts.bin, opts.color) + '\n');
      }),
    );
}
