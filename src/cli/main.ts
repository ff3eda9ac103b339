#!/usr/bin/env node
import { Command } from 'commander';
import { registerCommands } from './commands/by-name.js';
import { VERSION } from '../version.js';

// `midpack inspect DIR --bin 0 | head`: a closed pipe ends the output, not with a stack trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const program = new Command();
program
  .name('midpack')
  .description(
    'Prepare code-centric mid-training data: serialize repositories, rewrite web pages, build FIM and ' +
      'search-and-replace samples, mask boilerplate out of the loss, and best-fit pack tokenized documents ' +
      'into fixed-length bins written as Arrow shards and Megatron-LM indexed datasets.',
  )
  .version(VERSION)
  // A missing or wrong option: one line naming it, then where the options are (not the whole help).
  .showHelpAfterError('(run with --help for the options)');

// Only the command asked for is loaded (its stage's modules), unless it is not known by name.
await registerCommands(program, process.argv[2]);

await program.parseAsync(process.argv);
