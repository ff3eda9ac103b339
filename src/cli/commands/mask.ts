import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('mask')
    .description('(not implemented yet)')
    .action(() => {
      process.stderr.write('midpack: mask is not implemented yet\n');
      process.exitCode = 2;
    });
}
