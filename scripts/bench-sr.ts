/**
 * npm run bench:sr — SEARCH/REPLACE blocks built and applied on real code, this build against
 * another checkout's (`--baseline DIR`, built), in interleaved rounds of one process.
 *
 * Inputs: every .js/.ts/.py file of 2 KB..256 KB under node_modules and Python's standard library
 * (up to 12 MB), each edited two ways: an S&R FIM hole (one block: a run of lines taken out, as
 * the sr_fim format does) and a multi-region edit (every 40th line changed: one block per
 * region, as edit samples do). Every block set is applied back and must give the file; the two
 * builds must give the same blocks. Prints MB/s of source per build, the ratio, peak RSS.
 *
 *   npm run bench:sr -- [--baseline /tmp/midpack-main] [--rounds 3]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../test/helpers/paths.js';
import * as here from '../src/stages/fim/search-replace.js';

type SR = Pick<typeof here, 'buildBlocks' | 'applyBlocks'>;
const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const baselineDir = opt('--baseline');
const rounds = Number(opt('--rounds') ?? 3);

function collect(dir: string, out: string[], budget: { bytes: number }): void {
  for (const name of readdirSync(dir).sort()) {
    if (budget.bytes <= 0) return;
    const p = join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) collect(p, out, budget);
    else if (/\.(js|ts|py)$/.test(name) && st.size >= 2048 && st.size <= 256 * 1024) {
      const text = readFileSync(p, 'utf8');
      if (text.endsWith('\n') && !text.includes('<<<<<<< SEARCH')) {
        out.push(text);
        budget.bytes -= text.length;
      }
    }
  }
}

const pyDir = execFileSync('python3', ['-c', 'import os; print(os.path.dirname(os.__file__))'], { encoding: 'utf8' }).trim();
const files: string[] = [];
const budget = { bytes: 12e6 };
for (const root of [join(repoRoot, 'node_modules'), pyDir]) collect(root, files, budget);
const totalMB = files.reduce((s, f) => s + f.length, 0) / 1e6;

/** The two edits of a file: a hole of 1..12 lines (one block), and every 40th line changed. */
function edits(text: string, k: number): { before: string; after: string; oneBlock: boolean }[] {
  const lines = text.split(/(?<=\n)/);
  const at = (k * 7919) % Math.max(1, lines.length - 12);
  const holed = [...lines.slice(0, at), ...lines.slice(at + 1 + (k % 12))].join('');
  const changed = lines.map((l, i) => (i % 40 === 17 ? `${l.trimEnd()} // edited ${i}\n` : l)).join('');
  return [
    { before: holed, after: text, oneBlock: true },
    { before: text, after: changed, oneBlock: false },
  ];
}

function run(sr: SR): { seconds: number; hole: number; digest: string[] } {
  const digest: string[] = [];
  const spent = [0, 0];
  files.forEach((text, k) => {
    for (const [j, e] of edits(text, k).entries()) {
      const t0 = performance.now();
      const r = sr.buildBlocks('f', e.before, e.after, { maxContextLines: 20, oneBlock: e.oneBlock });
      if ('reason' in r) {
        digest.push(r.reason);
        spent[j]! += performance.now() - t0;
        continue;
      }
      const applied = sr.applyBlocks(new Map([['f', e.before]]), r.blocks);
      spent[j]! += performance.now() - t0;
      if ('error' in applied || applied.get('f') !== e.after) throw new Error(`file ${k}: the blocks do not give the file back`);
      digest.push(r.blocks.map((b) => `${b.search.length}:${b.replace.length}`).join(','));
    }
  });
  return { seconds: (spent[0]! + spent[1]!) / 1000, hole: spent[0]! / 1000, digest };
}

const baseline: SR | undefined = baselineDir ? await import(join(baselineDir, 'dist', 'src', 'stages', 'fim', 'search-replace.js')) : undefined;
process.stdout.write(`bench:sr  ${files.length} real files, ${totalMB.toFixed(1)} MB, 2 edits each (an S&R FIM hole, a multi-region edit)\n`);
for (let round = 1; round <= rounds; round++) {
  const now = run(here);
  let line = `round ${round}: this build ${now.seconds.toFixed(2)} s (S&R FIM holes ${now.hole.toFixed(2)} s), ${((2 * totalMB) / now.seconds).toFixed(1)} MB/s`;
  if (baseline) {
    const base = run(baseline);
    const same = base.digest.length === now.digest.length && base.digest.every((d, i) => d === now.digest[i]);
    line += `; baseline ${base.seconds.toFixed(2)} s (holes ${base.hole.toFixed(2)} s), ${((2 * totalMB) / base.seconds).toFixed(1)} MB/s; this / baseline ${(base.seconds / now.seconds).toFixed(2)}x (holes ${(base.hole / now.hole).toFixed(2)}x, multi-region ${((base.seconds - base.hole) / (now.seconds - now.hole)).toFixed(2)}x); same blocks: ${same}`;
  }
  process.stdout.write(line + '\n');
}
process.stdout.write(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`);
