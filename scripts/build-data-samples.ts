/**
 * Builds data-samples/: a small corpus of real code and prose, all under permissive licences
 * (see data-samples/README.md), used by the README's main job and by tests.
 *
 *   repos/<name>/   the sources of a few MIT/ISC npm packages installed in node_modules
 *   web/*.html      a few real pages from Mozilla Readability's test set (Apache-2.0)
 *   docs/*.jsonl    documents: package READMEs (prose) and single source files (code)
 *
 * Run: node dist/scripts/build-data-samples.js  (after npm run build)
 */
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot, readabilityPages } from '../test/helpers/paths.js';

const out = join(repoRoot, 'data-samples');
const nm = join(repoRoot, 'node_modules');
const REPOS = ['commander', 'p-limit', 'yocto-queue', 'cli-progress', 'fzstd', 'yaml', 'hyparquet', 'hyparquet-compressors'];
const PAGES = ['wikipedia', 'mozilla-1', 'medium-1', 'lwn-1', 'nytimes-1', 'ars-1', 'mdn-1', 'seattletimes-1'];
const DOC_PACKAGES = ['commander', 'yaml', 'p-limit', 'cli-progress', 'fzstd', 'hyparquet', 'apache-arrow', 'linkedom', 'htmlparser2', 'diff', 'semver', 'minimist', 'yargs'];

// history/ (a git bundle) is built by scripts/build-history-sample.ts and kept.
for (const sub of ['repos', 'web', 'docs']) rmSync(join(out, sub), { recursive: true, force: true });
for (const name of REPOS) {
  const dest = join(out, 'repos', name);
  cpSync(join(nm, name), dest, { recursive: true, filter: (src) => !src.includes('node_modules/' + name + '/node_modules') });
}
mkdirSync(join(out, 'web'), { recursive: true });
for (const page of PAGES) {
  const src = join(readabilityPages, page, 'source.html');
  try {
    cpSync(src, join(out, 'web', `${page}.html`));
  } catch {
    process.stderr.write(`skipping missing page ${page}\n`);
  }
}
cpSync(join(readabilityPages, 'LICENSE.md'), join(out, 'web', 'LICENSE.md'));

const lines: string[] = [];
for (const pkg of DOC_PACKAGES) {
  const dir = join(nm, pkg);
  let readme: string | undefined;
  for (const f of readdirSync(dir)) if (/^readme\.md$/i.test(f)) readme = join(dir, f);
  if (readme) lines.push(JSON.stringify({ id: `readme/${pkg}`, kind: 'text', source: `npm:${pkg}/${relative(dir, readme)}`, text: readFileSync(readme, 'utf8'), meta: { license: pkgLicense(dir) } }));
}
const codeFiles = [
  'commander/lib/command.js',
  'semver/classes/range.js',
  'diff/lib/diff/base.js',
  'htmlparser2/dist/esm/Parser.js',
  ...walk(join(nm, 'yaml', 'dist')).filter((f) => f.endsWith('.js')).map((f) => relative(nm, f)),
];
for (const f of codeFiles) {
  const path = join(nm, f);
  try {
    statSync(path);
  } catch {
    continue;
  }
  lines.push(JSON.stringify({ id: `code/${f}`, kind: 'text', source: `npm:${f}`, text: readFileSync(path, 'utf8'), meta: { language: 'javascript', license: pkgLicense(join(nm, f.split('/')[0]!)) } }));
}
mkdirSync(join(out, 'docs'), { recursive: true });
writeFileSync(join(out, 'docs', 'packages.jsonl'), lines.join('\n') + '\n');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

function pkgLicense(dir: string): string {
  try {
    return String(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).license ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

writeFileSync(
  join(out, 'README.md'),
  `# data-samples

A small corpus of real code and prose for midpack's main job and tests, rebuilt by
\`scripts/build-data-samples.ts\`.

| folder | what | licence |
|---|---|---|
| repos/ | sources of the npm packages ${REPOS.join(', ')} | MIT (each package's LICENSE file is inside it) |
| web/ | pages ${PAGES.join(', ')} from Mozilla Readability's test set | Apache-2.0 (web/LICENSE.md) |
| history/p-limit.bundle | a git bundle: the releases of p-limit as commits (scripts/build-history-sample.ts) | MIT |
| docs/packages.jsonl | READMEs of ${DOC_PACKAGES.join(', ')} and a few of their source files, one document a line | each package's own (MIT, ISC, BSD or Apache-2.0, recorded in meta.license) |
`,
);
process.stderr.write(`data-samples built in ${out}\n`);
