import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('pack')
    .description('(not implemented yet)')
    .action(() => {
      process.stderr.write('midpack: pack is not implemented yet\n');
      process.exitCode = 2;
    });
}
