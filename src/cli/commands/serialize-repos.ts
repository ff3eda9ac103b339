import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('serialize-repos')
    .description('(not implemented yet)')
    .action(() => {
      process.stderr.write('midpack: serialize-repos is not implemented yet\n');
      process.exitCode = 2;
    });
}
