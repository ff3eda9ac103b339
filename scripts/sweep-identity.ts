/**
 * The identity sweep (issue 38, item 4): the pack path's ids (encodeDoc on the backend `auto`
 * picks) against the Rust reference (npm `tokenizers`, added tokens removed), for each of the
 * four tokenizers, over every development corpus: both web sets' pages, every text file and
 * JSONL record of data-samples/, the e2e corpus (built once in .bench/), the shared trajectories
 * rendered in each of the 13 shared chat templates (`midpack trajectories --chat-template`), a
 * seeded Unicode fuzz corpus (test/helpers/unicode-fuzz.ts) of `--fuzz-mb` documents of 1M
 * UTF-16 units each, and pieces over 1 MB. The tests run seeded samples of these; the sweep is
 * the whole proof, so it exits 1 when any document differs.
 *
 *   npm run sweep:identity -- [--tokenizers qwen3,llama3,deepseek_v3,gpt4o] [--corpora web,...] [--fuzz-mb 100] [--e2e-mb 40]
 *
 * `--corpora` sweeps some corpora only (a sweep cut short resumes where it stopped).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTokenizer, resolveTokenizerBackend, type MidTokenizer } from '../src/tokenize/tokenizer.js';
import { repoRoot, sharedDir } from '../test/helpers/paths.js';
import { normalizerIsNfc, referenceNfc } from '../src/tokenize/nfc.js';
import { rustReferenceEncoding, tokenizerJsonPath, TOKENIZERS, wellFormed } from '../test/helpers/reference-tokenizer.js';
import { unicodeFuzz } from '../test/helpers/unicode-fuzz.js';
import { pageText, webSetPages } from '../test/helpers/web-pages.js';
import { checkFlags } from './args.js';
import { buildE2eCorpus, numberFlag } from './build-e2e-corpus.js';

interface CorpusResult {
  docs: number;
  units: number;
  differ: number;
  rangesDiffer: number;
  rangesNotCompared: number;
  first: string[];
}
type Corpus = { key: string; name: string; texts: () => Iterable<[label: string, text: string]> };

function* files(dir: string): Iterable<string> {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.isFile()) yield p;
  }
}

function* jsonlTexts(path: string): Iterable<[string, string]> {
  let i = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as { text?: unknown };
    if (typeof row.text === 'string') yield [`${path}#${i++}`, row.text];
  }
}

function* sampleTexts(): Iterable<[string, string]> {
  for (const p of files(join(repoRoot, 'data-samples'))) {
    const bytes = readFileSync(p);
    if (bytes.includes(0)) continue;
    if (p.endsWith('.jsonl')) yield* jsonlTexts(p);
    else yield [p, bytes.toString('utf8')];
  }
}

/** The shared trajectories in each shared chat template, rendered by midpack's own CLI. */
function renderTrajectories(dir: string): string[] {
  const templates = join(sharedDir, 'data', 'chat-templates');
  const out: string[] = [];
  for (const t of readdirSync(templates).filter((f) => f.endsWith('.jinja')).sort()) {
    const path = join(dir, `${t}.jsonl`);
    const r = spawnSync(process.execPath, [join(repoRoot, 'dist', 'src', 'cli', 'main.js'), 'trajectories', join(sharedDir, 'data', 'trajectories'), '--chat-template', join(templates, t), '--out', path], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`rendering ${t} failed: ${r.stderr.trim().split('\n').pop()}`);
    out.push(path);
  }
  return out;
}

function corpora(e2e: string, trajectories: string[], fuzzMb: number): Corpus[] {
  return [
    { key: 'web', name: 'web pages (both sets)', texts: function* () { for (const p of (webSetPages() ?? []).flat()) yield [p, pageText(p)]; } },
    { key: 'samples', name: 'data-samples', texts: sampleTexts },
    { key: 'e2e', name: 'e2e corpus', texts: () => jsonlTexts(e2e) },
    { key: 'trajectories', name: `trajectories in ${trajectories.length} chat templates`, texts: function* () { for (const p of trajectories) yield* jsonlTexts(p); } },
    { key: 'fuzz', name: `unicode fuzz (${fuzzMb} x 1M units)`, texts: function* () { for (let s = 0; s < fuzzMb; s++) yield [`fuzz ${s}`, unicodeFuzz(`sweep-${s}`, 1_000_000)]; } },
    {
      key: 'pieces',
      name: 'pieces over 1 MB',
      texts: () => [['letters', 'x' + 'é'.repeat(600_000)], ['spaces', ' '.repeat(1_200_000) + 'a'], ['digits', '٣'.repeat(600_000)]],
    },
  ];
}

type Reference = (text: string) => Promise<{ ids: number[]; starts: number[]; ends: number[] }>;

/** The first token at which two lists differ, or -1. */
function firstDifference(got: ArrayLike<number>, want: number[]): number {
  const n = Math.max(got.length, want.length);
  for (let k = 0; k < n; k++) if (got[k] !== want[k]) return k;
  return -1;
}

/** One text against the reference: ids, then (when `ranges`) each token's range; counted in r. */
async function compareText(tokenizer: MidTokenizer, reference: Reference, text: string, label: string, ranges: boolean, r: CorpusResult): Promise<void> {
  const got = tokenizer.encodeDoc({ text }); // its last token is the end-of-text id
  const n = got.ids.length - 1;
  const want = await reference(wellFormed(text));
  const at = firstDifference(got.ids.subarray(0, n), want.ids);
  if (at >= 0) {
    r.differ++;
    if (r.first.length < 5) r.first.push(`${label} at token ${at}: ${JSON.stringify(Array.from(got.ids.subarray(at, Math.min(at + 4, n))))} vs ${JSON.stringify(want.ids.slice(at, at + 4))}`);
    return;
  }
  if (!ranges) return;
  const s = firstDifference(got.starts!.subarray(0, n), want.starts);
  const e = firstDifference(got.ends!.subarray(0, n), want.ends);
  if (s < 0 && e < 0) return;
  r.rangesDiffer++;
  const k = s < 0 ? e : e < 0 ? s : Math.min(s, e);
  if (r.first.length < 5) r.first.push(`${label}: token ${k}'s range [${got.starts![k]}, ${got.ends![k]}) vs [${want.starts[k]}, ${want.ends[k]})`);
}

/**
 * Ids, then ranges. Where the tokenizer's NFC changes a text, the reference aligns its tokens to
 * original characters by its own rule (docs/tokenizer.md), so that text's ranges are not
 * compared; its NFC form (which NFC leaves as it is) is then compared too, ids and ranges.
 */
async function sweepCorpus(tokenizer: MidTokenizer, reference: Reference, nfc: boolean, corpus: Corpus): Promise<CorpusResult> {
  const r: CorpusResult = { docs: 0, units: 0, differ: 0, rangesDiffer: 0, rangesNotCompared: 0, first: [] };
  for (const [label, text] of corpus.texts()) {
    r.docs++;
    r.units += text.length;
    const normalized = nfc ? referenceNfc(wellFormed(text)) : undefined;
    const changed = normalized !== undefined && normalized !== wellFormed(text);
    await compareText(tokenizer, reference, text, label, !changed, r);
    if (!changed) continue;
    r.rangesNotCompared++;
    await compareText(tokenizer, reference, normalized, `${label} (NFC form)`, true, r);
  }
  return r;
}

function line(name: string, r: CorpusResult): string {
  const ranges = `ranges differ in ${r.rangesDiffer}${r.rangesNotCompared ? ` (where NFC changed the text, ${r.rangesNotCompared}: compared on its NFC form)` : ''}`;
  return `  ${name}: ${r.docs} documents, ${(r.units / 1e6).toFixed(1)}M units, ids differ in ${r.differ}, ${ranges}${r.first.map((f) => `\n    ${f}`).join('')}\n`;
}

const CORPORA = ['web', 'samples', 'e2e', 'trajectories', 'fuzz', 'pieces'];

const USAGE = `usage: npm run sweep:identity -- [--tokenizers ${Object.keys(TOKENIZERS).join(',')}] [--corpora ${CORPORA.join(',')}] [--fuzz-mb N] [--e2e-mb N]
  --tokenizers  which tokenizers to sweep (default: all four)
  --corpora     which corpora to sweep (default: all six; the whole proof is all of them)
  --fuzz-mb     documents of 1M UTF-16 units in the seeded Unicode fuzz corpus (default 100)
  --e2e-mb      size of the e2e corpus built in .bench/ (default 40)
Exits 1 when any document's ids or token ranges differ from the Rust reference.`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  checkFlags(args, ['--tokenizers', '--corpora', '--fuzz-mb', '--e2e-mb'], USAGE);
  const at = args.indexOf('--tokenizers');
  const names = at >= 0 ? args[at + 1]!.split(',') : Object.keys(TOKENIZERS);
  const c = args.indexOf('--corpora');
  const keys = c >= 0 ? args[c + 1]!.split(',') : CORPORA;
  const unknown = keys.filter((k) => !CORPORA.includes(k));
  if (unknown.length) throw new Error(`unknown corpus ${unknown.join(', ')} (known: ${CORPORA.join(', ')})`);
  const fuzzMb = numberFlag(args, '--fuzz-mb', 100);
  const e2eMb = numberFlag(args, '--e2e-mb', 40);
  mkdirSync(join(repoRoot, '.bench'), { recursive: true });
  const e2e = join(repoRoot, '.bench', `e2e-${e2eMb}.jsonl`);
  if (keys.includes('e2e') && !existsSync(e2e)) await buildE2eCorpus(e2e, e2eMb);
  const dir = mkdtempSync(join(tmpdir(), 'midpack-sweep-'));
  let total = 0;
  try {
    const list = corpora(e2e, keys.includes('trajectories') ? renderTrajectories(dir) : [], fuzzMb).filter((corpus) => keys.includes(corpus.key));
    for (const name of names) {
      const spec = TOKENIZERS[name];
      if (!spec) throw new Error(`unknown tokenizer ${name} (known: ${Object.keys(TOKENIZERS).join(', ')})`);
      const backend = await resolveTokenizerBackend(spec, 'auto');
      const tokenizer = await loadTokenizer(spec, backend.backend, true);
      const reference = rustReferenceEncoding(spec);
      const nfc = normalizerIsNfc(JSON.parse(readFileSync(tokenizerJsonPath(spec), 'utf8')).normalizer);
      process.stdout.write(`${name}: backend ${backend.backend}${backend.reason ? ` (${backend.reason})` : ''}\n`);
      for (const corpus of list) {
        const r = await sweepCorpus(tokenizer, reference, nfc, corpus);
        total += r.differ + r.rangesDiffer;
        process.stdout.write(line(corpus.name, r));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`documents whose ids or ranges differ from the Rust reference: ${total}\n`);
  if (total > 0) process.exitCode = 1;
}

await main();
