import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('edits')
    .description('(not implemented yet)')
    .action(() => {
      process.stderr.write('midpack: edits is not implemented yet\n');
      process.exitCode = 2;
    });
}
