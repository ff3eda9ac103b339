/**
 * Writes a seeded, realistic mixture of document lengths, one per line (see DEFAULT_MIXTURE in
 * src/pack/mixture.ts: long-tailed repository documents, some longer than 262,144 tokens, short
 * web and FIM documents, mid-sized edit documents). Same options, same bytes.
 * --order random (as drawn, streamed) | grouped (by kind, as a job emits its sources) | asc | desc
 * (the last three hold the lengths in memory, 5 bytes each); --repo-share S sets the repository
 * documents' share, the other kinds scaled to fill the rest.
 *
 *   node dist/scripts/gen-lengths.js --count 1000000 --seed 1 [--order grouped] [--repo-share 0.4] --out lengths.txt
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { DEFAULT_MIXTURE, MIXTURE_ORDERS, mixtureBatches, mixtureSample, withRepoShare, type MixtureOrder } from '../src/pack/mixture.js';

/** Streams `count` lengths to `path` ('-' for stdout), never holding more than one batch. */
export async function writeLengthFile(path: string, count: number, seed: number, order: MixtureOrder = 'random', repoShare?: number): Promise<void> {
  const out = path === '-' ? process.stdout : createWriteStream(path);
  const kinds = repoShare === undefined ? DEFAULT_MIXTURE : withRepoShare(repoShare);
  const all = order === 'random' ? undefined : mixtureSample(count, seed, order, kinds);
  const batches = all ? (function* () {
    for (let i = 0; i < all.length; i += 1 << 16) yield all.subarray(i, i + (1 << 16));
  })() : mixtureBatches(count, seed, 1 << 16, kinds);
  for (const batch of batches) {
    if (!out.write(batch.join('\n') + '\n')) await once(out, 'drain');
  }
  if (out !== process.stdout) {
    out.end();
    await once(out, 'finish');
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '1000000' },
      seed: { type: 'string', default: '1' },
      order: { type: 'string', default: 'random' },
      'repo-share': { type: 'string' },
      out: { type: 'string', default: '-' },
    },
  });
  const count = Number(values.count);
  const seed = Number(values.seed);
  const share = values['repo-share'] === undefined ? undefined : Number(values['repo-share']);
  if (!Number.isInteger(count) || count < 0 || !Number.isInteger(seed)) {
    process.stderr.write('gen-lengths: --count and --seed must be integers\n');
    process.exit(1);
  }
  if (!(MIXTURE_ORDERS as readonly string[]).includes(values.order!)) {
    process.stderr.write(`gen-lengths: --order must be one of ${MIXTURE_ORDERS.join(', ')}, got ${values.order}\n`);
    process.exit(1);
  }
  if (share !== undefined && !(share >= 0 && share <= 1)) {
    process.stderr.write(`gen-lengths: --repo-share must be in [0, 1], got ${values['repo-share']}\n`);
    process.exit(1);
  }
  await writeLengthFile(values.out!, count, seed, values.order as MixtureOrder, share);
}
