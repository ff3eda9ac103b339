import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRows, documentsOf } from './shard-rows.js';
import { loadTokenizer } from '../../src/tokenize/tokenizer.js';
import { MegatronIndexedReader, megatronPrefixes } from '../../src/write/megatron.js';

/**
 * What a finished pack output must be (tests and scripts/test-faults.ts): every expected
 * document in the shards exactly once, token-exact against a fresh tokenization, no other
 * document; every row exactly L; the manifest's counts equal what the shards hold; the
 * Megatron files hold one sequence per row, equal to the row; no file beside them that the
 * manifest does not list. Returns the problems found (none: an empty list).
 */
export async function outputProblems(out: string, expected: Map<string, string>, seqLen: number): Promise<string[]> {
  const problems: string[] = [];
  const manifestPath = join(out, 'manifest.json');
  if (!existsSync(manifestPath)) return [`${out}: no manifest.json`];
  const m = JSON.parse(readFileSync(manifestPath, 'utf8'));
  if (m.balanced !== true) problems.push('manifest not balanced');
  if (m.config.seq_len !== seqLen) problems.push(`manifest seq_len ${m.config.seq_len}, expected ${seqLen}`);
  const rows = readRows(out);
  const shardRows = m.shards.reduce((s: number, x: { rows: number }) => s + x.rows, 0);
  if (rows.length !== m.counts.bins || shardRows !== rows.length) problems.push(`${rows.length} shard rows, manifest says ${m.counts.bins} bins and ${shardRows} rows`);
  const onDisk = readdirSync(join(out, 'shards')).filter((f) => /^part-\d+\.arrow$/.test(f)).length;
  if (onDisk !== m.shards.length) problems.push(`${onDisk} shard files on disk, the manifest lists ${m.shards.length}`);
  let tokens = 0;
  let units = 0;
  rows.forEach((r, i) => {
    if (r.ids.length !== seqLen) problems.push(`row ${i} has ${r.ids.length} tokens, not ${seqLen}`);
    tokens += r.lens.reduce((s, x) => s + x, 0);
    units += r.lens.length;
  });
  if (tokens !== m.counts.tokens || units !== m.counts.units) problems.push(`shards hold ${tokens} tokens in ${units} units, manifest says ${m.counts.tokens} in ${m.counts.units}`);
  const docs = documentsOf(rows);
  if (docs.size !== m.counts.documents) problems.push(`shards hold ${docs.size} documents, manifest says ${m.counts.documents}`);
  const tok = await loadTokenizer(m.tokenizer.name);
  for (const [id, text] of expected) {
    const got = docs.get(id);
    if (!got) problems.push(`document ${id} is missing`);
    else if (!sameIds(got.ids, tok.encodeDoc({ text }).ids)) problems.push(`document ${id}: tokens differ from a fresh tokenization (duplicated or wrong)`);
  }
  for (const id of docs.keys()) if (!expected.has(id)) problems.push(`document ${id} is not an input document`);
  problems.push(...megatronProblems(out, m, rows));
  return problems;
}

function sameIds(a: number[], b: Int32Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The Megatron text dataset: one sequence per row, the same tokens; only the manifest's name present. */
function megatronProblems(out: string, m: { config: { name: string }; megatron: { path: string }[] }, rows: ReturnType<typeof readRows>): string[] {
  const problems: string[] = [];
  const listed = new Set(m.megatron.map((f) => f.path));
  for (const f of readdirSync(join(out, 'megatron'))) if (!listed.has(join('megatron', f))) problems.push(`megatron/${f} is not in the manifest`);
  const text = new MegatronIndexedReader(megatronPrefixes(join(out, 'megatron'), m.config.name).text);
  if (text.length !== rows.length) problems.push(`Megatron text has ${text.length} sequences, the shards ${rows.length} rows`);
  for (let i = 0; i < Math.min(text.length, rows.length); i++) {
    const seq = text.get(i);
    if (seq.length !== rows[i]!.ids.length || seq.some((x, k) => x !== rows[i]!.ids[k])) {
      problems.push(`Megatron sequence ${i} differs from shard row ${i}`);
      break;
    }
  }
  return problems;
}

/** Writes `n` JSONL documents of real text (slices of files under node_modules), returns id → text. */
export function writeDocs(path: string, prefix: string, sources: string[], n: number, seed: number): Map<string, string> {
  const docs = new Map<string, string>();
  const lines: string[] = [];
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s);
  for (let i = 0; i < n; i++) {
    const body = readFileSync(sources[next() % sources.length]!, 'utf8');
    const start = next() % Math.max(1, body.length - 200);
    // A slice may cut a surrogate pair: keep the text well formed (pack would drop it, rightly).
    const text = (body.slice(start, start + 50 + (next() % 3000)) as unknown as { toWellFormed(): string }).toWellFormed() || 'x';
    const id = `${prefix}-${i}`;
    docs.set(id, text);
    lines.push(JSON.stringify({ id, text }));
  }
  writeFileSync(path, lines.join('\n') + '\n');
  return docs;
}
