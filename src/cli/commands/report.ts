import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('report')
    .description('(not implemented yet)')
    .action(() => {
      process.stderr.write('midpack: report is not implemented yet\n');
      process.exitCode = 2;
    });
}
