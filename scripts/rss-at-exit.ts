/**
 * Loaded with `node --import` into a benchmarked process: prints its peak RSS (threads
 * included) on stderr as it exits, so a benchmark can report the figure of each process.
 */
process.on('exit', () => {
  // A job that measures its phases resets the kernel's peak per phase (src/core/phase-peaks.ts)
  // and keeps the process's peak in this slot.
  const kept = (globalThis as { [k: symbol]: number | undefined })[Symbol.for('midpack.peakRssKb')] ?? 0;
  const kb = Math.max(kept, process.resourceUsage().maxRSS);
  process.stderr.write(`\nmidpack-bench: peak RSS ${(kb / 1024).toFixed(0)} MB\n`);
});
