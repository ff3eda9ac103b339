import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('inspect')
    .description('(not implemented yet)')
    .action(() => {
      process.stderr.write('midpack: inspect is not implemented yet\n');
      process.exitCode = 2;
    });
}
