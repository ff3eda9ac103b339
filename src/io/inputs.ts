import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { isRemote, remoteAsPath } from './remote.js';
import { remoteEntriesSync } from './storage.js';

/** The file that marks a folder as a midpack output (see src/job/out-dir.ts). */
export const OUTPUT_MARKER = '.midpack-output.json';

/**
 * A midpack output folder (its marker, or the manifest and shard state of an output older
 * than markers): its shards and work files are not documents to read again.
 */
export function isMidpackOutput(dir: string): boolean {
  return existsSync(join(dir, OUTPUT_MARKER)) || (existsSync(join(dir, 'manifest.json')) && existsSync(join(dir, 'shards', 'state.json')));
}

/**
 * Expands input arguments into a sorted list of files: a file stays as it is, a folder
 * gives the files under it whose names match `accept`. Sorted so that every rank and
 * every rerun sees the same order. A file reached twice (a folder and a file in it, two
 * spellings of one path, a link) is read once, and folders that are midpack outputs are
 * skipped, each with a warning on stderr. An s3:// URL is an object, or a prefix read as a
 * folder (its objects in the same order a folder of the same names gives).
 */
export function expandInputs(inputs: string[], accept: (name: string) => boolean): string[] {
  const out: string[] = [];
  const seen = new Map<string, string>();
  const add = (p: string) => {
    const real = realpathSync(p);
    const first = seen.get(real);
    if (first !== undefined) {
      process.stderr.write(`midpack: input ${p} is the same file as ${first}: read once\n`);
      return;
    }
    seen.set(real, p);
    out.push(p);
  };
  const walk = (dir: string) => {
    if (isMidpackOutput(dir)) {
      process.stderr.write(`midpack: skipping ${dir}: it is a midpack output folder, not input documents\n`);
      return;
    }
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && accept(e.name)) add(p);
    }
  };
  for (const input of inputs) {
    if (input === '-') {
      out.push(input);
      continue;
    }
    if (isRemote(input)) {
      out.push(...expandRemote(input, accept, seen));
      continue;
    }
    let st;
    try {
      st = statSync(input);
    } catch {
      throw new Error(`input not found: ${input}`);
    }
    if (st.isDirectory()) walk(input);
    else add(input);
  }
  return out;
}

/** An s3:// input: the object itself, or the accepted objects under the prefix, outputs of midpack skipped. */
function expandRemote(url: string, accept: (name: string) => boolean, seen: Map<string, string>): string[] {
  const found = remoteEntriesSync(url);
  if (!found) throw new Error(`input not found: ${url}`);
  const objects = 'file' in found ? [found.file] : found.under;
  const outputs = 'file' in found ? [] : midpackOutputPrefixes(objects.map((o) => o.url));
  const out: string[] = [];
  for (const o of objects) {
    const name = o.url.slice(o.url.lastIndexOf('/') + 1);
    if (!('file' in found) && (!accept(name) || o.url.endsWith('/'))) continue;
    if (outputs.some((p) => o.url.startsWith(p))) continue;
    const first = seen.get(o.url);
    if (first !== undefined) {
      process.stderr.write(`midpack: input ${url} is the same object as ${first}: read once\n`);
      continue;
    }
    seen.set(o.url, url);
    out.push(o.url);
  }
  return out;
}

/** Prefixes (ending in `/`) that hold a midpack output, by its marker or its manifest and shard state, each named once on stderr. */
function midpackOutputPrefixes(urls: readonly string[]): string[] {
  const set = new Set(urls);
  const found: string[] = [];
  for (const u of urls) {
    const m = /^(.*\/)(?:\.midpack-output\.json|manifest\.json)$/.exec(u);
    if (!m || found.includes(m[1]!)) continue;
    if (u.endsWith(OUTPUT_MARKER) || set.has(`${m[1]}shards/state.json`)) found.push(m[1]!);
  }
  for (const p of found) process.stderr.write(`midpack: skipping ${p}: it is a midpack output folder, not input documents\n`);
  return found;
}

/**
 * Names input files by what they are, not where they sit on this machine, so ids, seeded
 * choices and the bytes written stay the same when the data moves to another folder or node.
 * An input is named by the shortest tail of its absolute path that no other input shares
 * (`repo`, or `a/data` and `b/data` when two inputs end alike); a file under it by that name
 * and its path below it. A file under two inputs takes the innermost one.
 */
export function portableNamer(inputs: readonly string[]): (file: string) => string {
  // An s3:// URL is named as the path /bucket/key: a prefix is named by its last pieces, as a folder of the same names.
  const absolute = (p: string) => (isRemote(p) ? remoteAsPath(p) : resolve(p));
  const roots = [...new Set(inputs.filter((i) => i !== '-').map(absolute))];
  const labels = new Map(roots.map((r) => [r, shortestUniqueTail(r, roots)]));
  return (file) => {
    if (file === '-') return '-';
    const abs = absolute(file);
    let root: string | undefined;
    for (const r of roots) if ((abs === r || abs.startsWith(r.endsWith(sep) ? r : r + sep)) && (!root || r.length > root.length)) root = r;
    if (root === undefined) return abs.split(sep).filter(Boolean).join('/');
    const below = relative(root, abs).split(sep).join('/');
    const label = labels.get(root)!;
    return below ? (label ? `${label}/${below}` : below) : label;
  };
}

function shortestUniqueTail(root: string, roots: readonly string[]): string {
  const parts = root.split(sep).filter(Boolean);
  const others = roots.filter((r) => r !== root).map((r) => r.split(sep).filter(Boolean));
  for (let k = 1; k <= parts.length; k++) {
    const tail = parts.slice(-k).join('/');
    if (others.every((o) => o.slice(-k).join('/') !== tail)) return tail;
  }
  return parts.join('/');
}

export const isJsonl = (name: string) => /\.jsonl(\.gz|\.zst|\.zstd)?$/.test(name);
export const isParquet = (name: string) => name.endsWith('.parquet');
