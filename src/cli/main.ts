#!/usr/bin/env node
import { Command } from 'commander';
import { commands } from './commands/index.js';

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
  .version('0.1.0')
  .showHelpAfterError();

for (const register of commands) register(program);

await program.parseAsync(process.argv);
