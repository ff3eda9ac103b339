import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('merge')
    .description('(not implemented yet)')
    .action(() => {
      process.stderr.write('midpack: merge is not implemented yet\n');
      process.exitCode = 2;
    });
}
