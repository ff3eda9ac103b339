/**
 * Writes the BM25 reference input (step 1 of 2): the files of data-samples/history/midpack-web.bundle
 * at its last commit and the messages of its last 8 commits as queries, each as midpack's BM25
 * terms (retrieve.ts), to a JSON file that scripts/bm25-reference.py scores with bm25s (Lucene
 * BM25, k1 = 0.9, b = 0.4) into test/fixtures/bm25/expected.json.
 *
 *   node dist/scripts/dump-bm25-corpus.js /tmp/bm25-corpus.json && python3 scripts/bm25-reference.py /tmp/bm25-corpus.json
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bm25Terms } from '../src/stages/edits/bm25-terms.js';
import { repoRoot } from '../test/helpers/paths.js';

const out = process.argv[2] ?? join(tmpdir(), 'bm25-corpus.json');
const work = mkdtempSync(join(tmpdir(), 'midpack-bm25-'));
const git = (...args: string[]) => execFileSync('git', ['-C', join(work, 'r'), ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
execFileSync('git', ['clone', '-q', join(repoRoot, 'data-samples', 'history', 'midpack-web.bundle'), join(work, 'r')]);
const paths = git('ls-tree', '-r', '--name-only', 'HEAD').trim().split('\n');
const docs = paths.map((path) => ({ path, terms: [...bm25Terms(git('show', `HEAD:${path}`)), ...bm25Terms(path)] }));
const queries = git('log', '-8', '--format=%H').trim().split('\n').map((c) => {
  const text = git('log', '-1', '--format=%B', c);
  return { commit: c, terms: [...new Set(bm25Terms(text))] };
});
writeFileSync(out, JSON.stringify({ docs, queries }));
rmSync(work, { recursive: true, force: true });
process.stderr.write(`wrote ${out}: ${docs.length} files, ${queries.length} queries\n`);
