/**
 * Flags of the benchmark and sweep scripts: `--help` prints the script's usage, and a flag the
 * script does not know stops it before any work, so a mistyped flag never starts an hour-long
 * run with the defaults.
 */

/** Exits 0 after printing `usage` on `--help`/`-h`; exits 2 on a flag not in `known`. */
export function checkFlags(args: readonly string[], known: readonly string[], usage: string): void {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const unknown = args.filter((a) => a.startsWith('-') && !known.includes(a));
  if (unknown.length === 0) return;
  process.stderr.write(`unknown flag ${unknown.join(', ')}\n${usage}\n`);
  process.exit(2);
}
