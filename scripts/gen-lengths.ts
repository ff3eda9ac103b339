/**
 * Writes a seeded, realistic mixture of document lengths, one per line (see DEFAULT_MIXTURE in
 * src/pack/mixture.ts: long-tailed repository documents, some longer than 262,144 tokens, short
 * web and FIM documents, mid-sized edit documents). Same --count and --seed, same bytes.
 *
 *   node dist/scripts/gen-lengths.js --count 1000000 --seed 1 --out lengths.txt
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { mixtureBatches } from '../src/pack/mixture.js';

/** Streams `count` lengths to `path` ('-' for stdout), never holding more than one batch. */
export async function writeLengthFile(path: string, count: number, seed: number): Promise<void> {
  const out = path === '-' ? process.stdout : createWriteStream(path);
  for (const batch of mixtureBatches(count, seed, 1 << 16)) {
    if (!out.write(batch.join('\n') + '\n')) await once(out, 'drain');
  }
  if (out !== process.stdout) {
    out.end();
    await once(out, 'finish');
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const { values } = parseArgs({
    options: { count: { type: 'string', default: '1000000' }, seed: { type: 'string', default: '1' }, out: { type: 'string', default: '-' } },
  });
  const count = Number(values.count);
  const seed = Number(values.seed);
  if (!Number.isInteger(count) || count < 0 || !Number.isInteger(seed)) {
    process.stderr.write('gen-lengths: --count and --seed must be integers\n');
    process.exit(1);
  }
  await writeLengthFile(values.out!, count, seed);
}
