/**
 * A near-duplicate truth corpus from real files: JavaScript sources of the packages in
 * node_modules, each kept as it is, and for a sample of them controlled edits (a renamed
 * identifier or two, reformatting, a few changed lines), plus whole forks of packages (a
 * repository document copied under another name with a few files edited). The truth is not
 * assumed from the construction: every pair of items whose exact shingle Jaccard is at least
 * the threshold is a true pair (`truthPairs`, exhaustive with a size filter).
 */
import type { Doc } from '../src/doc/document.js';
import { Rng, stableId } from '../src/core/random.js';
import { formatRepoDocument, type RepoFile } from '../src/stages/repos/format.js';
import { itemName, itemsOf } from '../src/stages/hygiene/items.js';
import { shingleHashes } from '../src/stages/hygiene/minhash.js';
import { pairKey } from '../src/stages/hygiene/lsh.js';
import { tokenize } from '../src/stages/hygiene/tokens.js';
import { listPackages, type Package } from './build-mask-corpus.js';

export type Edit = 'rename' | 'reformat' | 'lines' | 'copy';

const JS = /\.(js|cjs|mjs|ts)$/;

function renameIdentifiers(text: string, rng: Rng, count: number): string {
  const freq = new Map<string, number>();
  for (const m of text.matchAll(/\b[A-Za-z_][A-Za-z0-9_]{3,}\b/g)) freq.set(m[0], (freq.get(m[0]) ?? 0) + 1);
  const names = [...freq.entries()].filter(([, n]) => n >= 2 && n <= 12).map(([k]) => k).sort();
  let out = text;
  for (let i = 0; i < count && names.length; i++) {
    const name = names.splice(rng.int(0, names.length), 1)[0]!;
    out = out.replace(new RegExp(`\\b${name}\\b`, 'g'), `${name}Renamed`);
  }
  return out;
}

function reformat(text: string): string {
  // Indentation doubled, tabs for the first level, CRLF line ends, a blank line after each block end.
  return text
    .split('\n')
    .map((l) => l.replace(/^( +)/, (s) => '\t' + ' '.repeat(s.length)).replace(/^(\s*)\}$/, '$1}\n'))
    .join('\r\n');
}

function changeLines(text: string, rng: Rng, count: number): string {
  const lines = text.split('\n');
  for (let i = 0; i < count && lines.length > 4; i++) {
    const at = rng.int(0, lines.length);
    const op = rng.int(0, 3);
    if (op === 0) lines.splice(at, 1);
    else if (op === 1) lines.splice(at, 0, `  // changed: ${stableId('line', at, i)}`);
    else lines[at] = `const edited${i} = ${rng.int(0, 1000)}; // ${lines[at]!.trim().slice(0, 20)}`;
  }
  return lines.join('\n');
}

export function editText(text: string, edit: Edit, rng: Rng): string {
  if (edit === 'rename') return renameIdentifiers(text, rng, 1 + rng.int(0, 2));
  if (edit === 'reformat') return reformat(text);
  if (edit === 'lines') return changeLines(text, rng, 1 + rng.int(0, 3));
  return text;
}

export interface TruthCorpus {
  docs: Doc[];
  /** The constructed (original, variant) pairs by item name, with the edit made. */
  constructed: { a: string; b: string; edit: Edit }[];
}

/** `originals` files (1-64 KB JavaScript) with one edited variant each, and `forks` forked packages. */
export function buildTruthCorpus(nodeModules: string, originals: number, forks: number, seed = 0): TruthCorpus {
  const packages = listPackages(nodeModules);
  const files = packages.flatMap((p) => p.files.filter((f) => JS.test(f.path) && f.content.length >= 1000 && f.content.length <= 65536).map((f) => ({ pkg: p.name, f })));
  const rng = new Rng(seed, 'hygiene-truth');
  rng.shuffle(files);
  const docs: Doc[] = [];
  const constructed: TruthCorpus['constructed'] = [];
  const edits: Edit[] = ['rename', 'reformat', 'lines'];
  for (const [n, { pkg, f }] of files.slice(0, originals).entries()) {
    const id = stableId('truth', pkg, f.path);
    const edit = edits[n % edits.length]!;
    const vid = stableId('truth-variant', pkg, f.path, edit);
    docs.push({ id, kind: 'text', source: `npm:${pkg}/${f.path}`, text: f.content, meta: {} });
    docs.push({ id: vid, kind: 'text', source: `npm:${pkg}/${f.path}#${edit}`, text: editText(f.content, edit, rng), meta: { edit } });
    constructed.push({ a: id, b: vid, edit });
  }
  // Unedited files as distractors: real code with no constructed twin.
  for (const { pkg, f } of files.slice(originals, originals * 2)) docs.push({ id: stableId('truth', pkg, f.path), kind: 'text', source: `npm:${pkg}/${f.path}`, text: f.content, meta: {} });
  const forkable = packages.filter((p) => p.files.length >= 3 && p.files.length <= 40);
  for (const p of rng.shuffle([...forkable]).slice(0, forks)) docs.push(...forkPair(p, rng, constructed));
  return { docs, constructed };
}

function forkPair(p: Package, rng: Rng, constructed: TruthCorpus['constructed']): Doc[] {
  const forkName = `${p.name}-fork`;
  const forked: RepoFile[] = p.files.map((f, i) => ({ path: f.path, content: i % 3 === 0 && JS.test(f.path) ? changeLines(f.content, rng, 2) : f.content }));
  const doc = (repo: string, files: RepoFile[]): Doc => {
    const r = formatRepoDocument(repo, files);
    return { id: stableId('truth-repo', repo), kind: 'repo', source: repo, text: r.text, meta: { repo, files: files.length, boundaries: r.boundaries }, special_spans: r.special_spans };
  };
  const a = doc(p.name, p.files);
  const b = doc(forkName, forked);
  for (const f of p.files) constructed.push({ a: `${a.id}:${f.path}`, b: `${b.id}:${f.path}`, edit: 'copy' });
  return [a, b];
}

/** Every pair of items (by name) with exact shingle Jaccard >= threshold, and the Jaccard of any pair asked for. */
export function truthPairs(docs: Doc[], shingle: number, minTokens: number, threshold: number): { pairs: Map<string, number>; jaccard: (a: string, b: string) => number } {
  const items: { name: string; set: Set<number> }[] = [];
  const byName = new Map<string, Set<number>>();
  for (const d of docs) {
    for (const it of itemsOf(d)) {
      const seq = tokenize(d.text.slice(it.start, it.end));
      if (seq.length < minTokens) continue;
      const set = new Set(shingleHashes(seq, shingle));
      const name = itemName(d, it);
      items.push({ name, set });
      byName.set(name, set);
    }
  }
  const jac = (a: Set<number>, b: Set<number>) => {
    let inter = 0;
    const [small, big] = a.size <= b.size ? [a, b] : [b, a];
    for (const h of small) if (big.has(h)) inter++;
    return inter / (a.size + b.size - inter);
  };
  items.sort((x, y) => x.set.size - y.set.size);
  const pairs = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length && items[i]!.set.size >= threshold * items[j]!.set.size; j++) {
      const s = jac(items[i]!.set, items[j]!.set);
      if (s >= threshold) pairs.set(pairKey(items[i]!.name, items[j]!.name), s);
    }
  }
  return { pairs, jaccard: (a, b) => jac(byName.get(a)!, byName.get(b)!) };
}
