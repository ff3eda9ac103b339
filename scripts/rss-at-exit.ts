/**
 * Loaded with `node --import` into a benchmarked process: prints its peak RSS (threads
 * included) on stderr as it exits, so a benchmark can report the figure of each process.
 */
process.on('exit', () => {
  process.stderr.write(`\nmidpack-bench: peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`);
});
