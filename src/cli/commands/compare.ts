import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('compare')
    .description('(not implemented yet)')
    .action(() => {
      process.stderr.write('midpack: compare is not implemented yet\n');
      process.exitCode = 2;
    });
}
