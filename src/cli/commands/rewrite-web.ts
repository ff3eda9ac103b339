import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('rewrite-web')
    .description('(not implemented yet)')
    .action(() => {
      process.stderr.write('midpack: rewrite-web is not implemented yet\n');
      process.exitCode = 2;
    });
}
