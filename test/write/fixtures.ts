import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTokenizer } from '../../src/tokenize/tokenizer.js';
import type { PackedBin } from '../../src/write/bin.js';

/** The repository root (this file runs as dist/test/write/fixtures.js). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Real code: commander's own sources, shipped in node_modules. */
export const REAL_SOURCES = join(ROOT, 'node_modules', 'commander', 'lib');

export interface Fixture {
  seqLen: number;
  padId: number;
  bins: PackedBin[];
}

/**
 * Real bins: commander's source files tokenized with the Qwen3 tokenizer (end-of-text
 * appended), cut into chunks of at most L, packed first-fit in file order, padded with the
 * pad id. The first 16 tokens of every document (a stand-in for a masked license header)
 * and all padding have loss mask 0.
 */
export async function realBins(seqLen: number): Promise<Fixture> {
  const tok = await loadTokenizer();
  const units: { id: string; kind: string; offset: number; ids: number[] }[] = [];
  for (const name of readdirSync(REAL_SOURCES).sort()) {
    const ids = tok.encodePlain(readFileSync(join(REAL_SOURCES, name), 'utf8'));
    ids.push(tok.eosId);
    for (let at = 0; at < ids.length; at += seqLen) units.push({ id: `commander/lib/${name}`, kind: 'repo', offset: at, ids: ids.slice(at, at + seqLen) });
  }
  const open: { units: typeof units; used: number }[] = [];
  for (const u of units) {
    const bin = open.find((b) => b.used + u.ids.length <= seqLen);
    if (bin) {
      bin.units.push(u);
      bin.used += u.ids.length;
    } else open.push({ units: [u], used: u.ids.length });
  }
  const bins = open.map(({ units: us }) => {
    const inputIds = new Int32Array(seqLen).fill(tok.padId);
    const lossMask = new Uint8Array(seqLen);
    let at = 0;
    for (const u of us) {
      inputIds.set(u.ids, at);
      lossMask.fill(1, at + (u.offset === 0 ? Math.min(16, u.ids.length) : 0), at + u.ids.length);
      at += u.ids.length;
    }
    return {
      inputIds,
      lossMask,
      docLens: Int32Array.from(us, (u) => u.ids.length),
      docIds: us.map((u) => u.id),
      docKinds: us.map((u) => u.kind),
      docOffsets: Int32Array.from(us, (u) => u.offset),
    };
  });
  return { seqLen, padId: tok.padId, bins };
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'midpack-write-'));
}

/** Writes the same output twice into fresh folders; returns both folders' file hashes. */
export async function hashesOfTwoRuns(write: (dir: string) => Promise<unknown>): Promise<[Record<string, string>, Record<string, string>]> {
  const a = tempDir();
  const b = tempDir();
  await write(a);
  await write(b);
  return [folderHashes(a), folderHashes(b)];
}

/** sha256 of every file in a folder, by name. */
export function folderHashes(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, createHash('sha256').update(readFileSync(join(dir, name))).digest('hex')]),
  );
}

/** Whether python3 can import these modules; prints why a test is skipped when not. */
export function pythonHas(modules: string[], test: string): boolean {
  const r = spawnSync('python3', ['-c', modules.map((m) => `import ${m}`).join('; ')], { encoding: 'utf8' });
  if (r.status !== 0) console.log(`# ${test}: skipped, python3 cannot import ${modules.join(', ')} (${(r.stderr || r.error?.message || '').trim().split('\n').pop()})`);
  return r.status === 0;
}

/** Runs a Python script with arguments and parses the JSON it prints. */
export function runPythonJson(code: string, args: string[], env: Record<string, string> = {}): unknown {
  const r = spawnSync('python3', ['-c', code, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A bin as plain lists, the way Python readers print it. */
export function binAsLists(bin: PackedBin): Record<string, unknown> {
  return {
    input_ids: Array.from(bin.inputIds),
    loss_mask: Array.from(bin.lossMask),
    doc_lens: Array.from(bin.docLens),
    doc_ids: [...bin.docIds],
    doc_kinds: [...(bin.docKinds ?? [])],
    doc_offsets: Array.from(bin.docOffsets ?? []),
    doc_sources: bin.docIds.map((_, i) => bin.docSources?.[i] ?? ''),
  };
}
