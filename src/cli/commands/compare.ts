import { statSync } from 'node:fs';
import { Option, type Command } from 'commander';
import cliProgress from 'cli-progress';
import { action, intOption } from '../common.js';
import { addOptions, resolveFlags } from '../options.js';
import { PACK_OPTIONS, PACKER_KEYS, resolvePackOptions } from '../../job/pack-options.js';
import {
  compareStrategiesFrom,
  strategyRow,
  LENGTH_ORDERS,
  orderLengths,
  readLengthFile,
  type LengthOrder,
  type LengthSource,
  type OverlongPolicy,
  type StrategyFigures,
} from '../../pack/index.js';

interface CompareOpts {
  lengths: string;
  seqLen: number;
  overlong: OverlongPolicy;
  slideStride?: number;
  windowUnits?: number;
  maxOpenBins?: number;
  passUnits?: number;
  order: LengthOrder;
  orderSeed: number;
  json?: boolean;
}

/** Plain files larger than this get a progress bar (on a TTY only). */
const PROGRESS_MIN_BYTES = 16 << 20;

export function register(program: Command): void {
  const cmd = program
    .command('compare')
    .description(
      'Compare the five packing strategies of Table 13 (concat-then-split, restart-last-document, pad-last-document, ' +
        'best-fit without and with overlong handling) on a file of document lengths, one per line',
    )
    .requiredOption('--lengths <file>', 'document lengths in tokens (end-of-text included), one per line; .gz/.zst read too')
    .addOption(
      new Option('--order <order>', 'order the lengths are given to every strategy; anything but as-given holds all lengths in memory (4 bytes each)')
        .choices(LENGTH_ORDERS as string[])
        .default('as-given'),
    )
    .option('--order-seed <n>', 'seed of --order shuffled (default: 0)', intOption('--order-seed', 0), 0)
    .option('--json', 'print one JSON object keyed by strategy');
  addOptions(cmd, PACK_OPTIONS, PACKER_KEYS).action(
    action(async (o: Record<string, unknown>) =>
      compare({
        lengths: o.lengths as string,
        json: o.json as boolean | undefined,
        order: o.order as LengthOrder,
        orderSeed: o.orderSeed as number,
        ...resolveFlags(PACK_OPTIONS, o, resolvePackOptions, PACKER_KEYS),
      }),
    ),
  );
}

async function compare(opts: CompareOpts): Promise<void> {
  const options = {
    capacity: opts.seqLen,
    overlong: opts.overlong,
    slideStride: opts.slideStride,
    windowUnits: opts.windowUnits,
    maxOpenBins: opts.maxOpenBins,
    passUnits: opts.passUnits,
  };
  const bar = progressBar(opts.lengths);
  let figures: Record<string, StrategyFigures>;
  try {
    figures = await compareStrategiesFrom(await lengthSource(opts, bar), options);
  } finally {
    bar?.stop();
  }
  process.stdout.write(opts.json ? JSON.stringify(figures) + '\n' : formatTable(figures, opts.seqLen));
}

/**
 * As given, the file is streamed (once per strategy pass; the bar follows the first); any other
 * order reads it into memory once and reorders it.
 */
async function lengthSource(opts: CompareOpts, bar: cliProgress.SingleBar | undefined): Promise<LengthSource> {
  let first = true;
  const stream = () => {
    const onBytes = first && bar ? (b: number) => bar.update(b) : undefined;
    first = false;
    return readLengthFile(opts.lengths, { onBytes });
  };
  if (opts.order === 'as-given') {
    if (opts.lengths !== '-') return stream;
  }
  const parts: Uint32Array[] = [];
  for await (const b of stream()) parts.push(b);
  const all = new Uint32Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const ordered = orderLengths(all, opts.order, opts.orderSeed);
  return () => [ordered];
}

function progressBar(path: string): cliProgress.SingleBar | undefined {
  if (!process.stderr.isTTY || path === '-' || /\.(gz|zst|zstd)$/.test(path)) return undefined;
  const size = statSync(path).size;
  if (size < PROGRESS_MIN_BYTES) return undefined;
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'lengths [{bar}] {percentage}% | {value}/{total} bytes | eta {eta}s', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(size, 0);
  return bar;
}

/** The side-by-side table. */
export function formatTable(figures: Record<string, StrategyFigures>, L: number): string {
  const header = ['strategy', 'fragmentation', 'padding', 'bins', 'lower_bound', 'bins/lb', 'units', 'overlong', 'dropped_tok', 'duplicated_tok'];
  const rows = Object.entries(figures).map(([name, f]) => strategyRow(name, f));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const first = Object.values(figures)[0];
  const intro = `L = ${L}, ${first?.tokens ?? 0} tokens in documents\n`;
  return intro + [line(header), ...rows.map(line)].join('\n') + '\n';
}
