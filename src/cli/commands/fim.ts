import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('fim')
    .description('(not implemented yet)')
    .action(() => {
      process.stderr.write('midpack: fim is not implemented yet\n');
      process.exitCode = 2;
    });
}
