import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('run')
    .description('(not implemented yet)')
    .action(() => {
      process.stderr.write('midpack: run is not implemented yet\n');
      process.exitCode = 2;
    });
}
