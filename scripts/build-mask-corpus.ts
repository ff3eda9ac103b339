/**
 * Builds a real corpus for redundancy masking from the packages in a node_modules folder:
 * every package (a folder with a package.json; nested node_modules are packages of their
 * own) becomes one repository document in the repository format (`--per package`), or
 * each of its text files one document (`--per file`). `--copies N` repeats the corpus with
 * distinct ids, to reach the size a benchmark needs (the texts repeat: say so when used).
 *
 *   node dist/scripts/build-mask-corpus.js [--root node_modules] [--per package|file] [--copies N] --out FILE
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Doc } from '../src/doc/document.js';
import { docToJson } from '../src/doc/document.js';
import { stableId } from '../src/core/random.js';
import { AtomicLineWriter } from '../src/io/jsonl.js';
import { formatRepoDocument, type RepoFile } from '../src/stages/repos/format.js';

const TEXT_FILE = /\.(js|mjs|cjs|ts|mts|cts|tsx|jsx|json|md|markdown|txt|h|hh|hpp|c|cc|cpp|cxx|py|sh|yml|yaml|toml|css|html|map)$|^(LICENSE|LICENCE|README|CHANGELOG|NOTICE|AUTHORS)[^/]*$/i;
const MAX_FILE_BYTES = 1 << 20;

export interface Package {
  name: string;
  files: RepoFile[];
}

/** The packages under a node_modules folder, sorted by name, each with its text files sorted by path. */
export function listPackages(nodeModules: string): Package[] {
  const out: Package[] = [];
  const visitModules = (dir: string) => {
    for (const e of sortedEntries(dir)) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.name.startsWith('@')) {
        for (const s of sortedEntries(p)) if (s.isDirectory()) visitPackage(join(p, s.name), `${e.name}/${s.name}`);
      } else visitPackage(p, e.name);
    }
  };
  const visitPackage = (root: string, name: string) => {
    if (!existsSync(join(root, 'package.json'))) return;
    const files: RepoFile[] = [];
    const walk = (dir: string) => {
      for (const e of sortedEntries(dir)) {
        const p = join(dir, e.name);
        if (e.isDirectory()) {
          if (e.name === 'node_modules') visitModules(p);
          else walk(p);
        } else if (e.isFile() && TEXT_FILE.test(e.name) && statSync(p).size <= MAX_FILE_BYTES) {
          const buf = readFileSync(p);
          if (buf.includes(0)) continue; // binary
          const content = new TextDecoder('utf-8', { fatal: false }).decode(buf);
          if (content.includes('\uFFFD')) continue; // not valid UTF-8
          files.push({ path: relative(root, p), content });
        }
      }
    };
    walk(root);
    if (files.length) out.push({ name, files });
  };
  visitModules(nodeModules);
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function sortedEntries(dir: string) {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The documents of one copy of the corpus. */
export function* corpusDocs(packages: Package[], per: 'package' | 'file', copy: number): Iterable<Doc> {
  for (const pkg of packages) {
    if (per === 'package') {
      const { text, special_spans } = formatRepoDocument(pkg.name, pkg.files);
      yield { id: stableId('mask-corpus', pkg.name, copy), kind: 'repo', source: `npm:${pkg.name}`, text, meta: { copy }, special_spans };
    } else {
      for (const f of pkg.files) {
        yield { id: stableId('mask-corpus', pkg.name, f.path, copy), kind: 'text', source: `npm:${pkg.name}`, text: f.content, meta: { path: f.path, copy } };
      }
    }
  }
}

export async function buildCorpus(root: string, out: string, per: 'package' | 'file', copies: number): Promise<{ documents: number; bytes: number }> {
  const packages = listPackages(root);
  const w = new AtomicLineWriter(out);
  let documents = 0;
  let bytes = 0;
  for (let copy = 0; copy < copies; copy++) {
    for (const d of corpusDocs(packages, per, copy)) {
      const line = docToJson(d);
      await w.write(line);
      documents++;
      bytes += Buffer.byteLength(line) + 1;
    }
  }
  await w.close();
  return { documents, bytes };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const { values } = parseArgs({
    options: { root: { type: 'string', default: 'node_modules' }, per: { type: 'string', default: 'package' }, copies: { type: 'string', default: '1' }, out: { type: 'string' } },
  });
  if (!values.out || (values.per !== 'package' && values.per !== 'file')) {
    process.stderr.write('usage: build-mask-corpus [--root node_modules] [--per package|file] [--copies N] --out FILE\n');
    process.exit(2);
  }
  const r = await buildCorpus(values.root!, values.out, values.per, Number(values.copies));
  process.stderr.write(`wrote ${r.documents} documents (${(r.bytes / 1e6).toFixed(1)} MB) to ${values.out}\n`);
}
