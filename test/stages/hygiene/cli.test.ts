import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import YAML from 'yaml';
import { docToJson, type Doc } from '../../../src/doc/document.js';
import { loadRunConfig } from '../../../src/job/run-config.js';
import { corpusDocs, listPackages } from '../../../scripts/build-mask-corpus.js';
import { midpack } from '../../helpers/run-cli.js';
import { repoRoot, sharedDir } from '../../helpers/paths.js';
import { slow } from '../../helpers/tiers.js';

const tmp = mkdtempSync(join(tmpdir(), 'midpack-hygiene-cli-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const HUMANEVAL = join(sharedDir, 'data', 'benchmarks', 'HumanEval.jsonl.gz');

/** Real packages as repository documents, one of them twice, one file with a planted HumanEval item and a key. */
function writeCorpus(): { path: string; docs: Doc[]; planted: string } {
  const pkgs = listPackages(resolve(repoRoot, 'node_modules')).filter((p) => /^(yocto-queue|p-limit|ms|escalade|ansi-regex)$/.test(p.name));
  const docs = [...corpusDocs(pkgs, 'package', 0)];
  docs.push({ ...docs[0]!, id: 'copy-of-first' });
  const he = JSON.parse(gunzipSync(readFileSync(HUMANEVAL)).toString('utf8').split('\n')[12]!);
  const planted = `${he.prompt}${he.canonical_solution}`;
  docs.push({ id: 'planted', kind: 'text', source: 'solutions.py', text: `import os\n\n${planted}\n\nKEY = "AKIAIOSFODNN7EXAMPLE"\n`, meta: {} });
  const path = join(tmp, 'docs.jsonl');
  writeFileSync(path, docs.map(docToJson).join('\n') + '\n');
  return { path, docs, planted };
}

const manifest = (p: string) => JSON.parse(readFileSync(`${p}.manifest.json`, 'utf8'));
const lines = (p: string) => readFileSync(p, 'utf8').trim().split('\n').filter(Boolean);

test('dedup, decontaminate and redact from the command line, with balanced manifests; dedup count/merge/apply over 2 ranks', slow, () => {
  const { path, docs } = writeCorpus();
  const one = join(tmp, 'dedup.jsonl');
  let r = midpack(['dedup', path, '--out', one, '--near', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const m = manifest(one);
  assert.equal(m.ledger.records_in, docs.length);
  assert.equal(m.ledger.records_in, m.ledger.records_out + Object.values(m.ledger.dropped as Record<string, number>).reduce((a, b) => a + b, 0));
  assert.ok(m.ledger.dropped.duplicate >= 1);
  assert.ok(lines(`${one}.clusters.jsonl`).length >= 1);

  const dry = join(tmp, 'dry.jsonl');
  assert.equal(midpack(['dedup', path, '--out', dry, '--dry-run', '--quiet']).status, 0);
  assert.equal(lines(dry).length, docs.length, '--dry-run drops nothing');
  assert.ok(lines(`${dry}.clusters.jsonl`).length >= 1, '--dry-run writes the clusters');

  const idx = [0, 1].map((rank) => join(tmp, `rank${rank}.index`));
  for (const [rank, p] of idx.entries()) assert.equal(midpack(['dedup', 'count', path, '--out', p, '--rank', String(rank), '--world-size', '2', '--near', '--quiet']).status, 0);
  assert.equal((r = midpack(['dedup', 'merge', ...idx, '--out', join(tmp, 'all.index')])).status, 0, r.stderr);
  const outs = [0, 1].map((rank) => join(tmp, `applied${rank}.jsonl`));
  for (const [rank, p] of outs.entries()) assert.equal(midpack(['dedup', 'apply', path, '--index', join(tmp, 'all.index'), '--out', p, '--near', '--rank', String(rank), '--world-size', '2', '--quiet']).status, 0);
  assert.deepEqual(outs.flatMap(lines).sort(), lines(one).sort(), '2 ranks keep what one keeps');

  const clean = join(tmp, 'clean.jsonl');
  assert.equal((r = midpack(['decontaminate', path, '--benchmark', `${HUMANEVAL}:prompt,canonical_solution`, '--out', clean, '--quiet'])).status, 0, r.stderr);
  assert.deepEqual(manifest(clean).ledger.dropped, { contaminated: 1 });
  const hits = lines(`${clean}.hits.jsonl`).map((l) => JSON.parse(l));
  assert.ok(hits.length >= 1 && hits.every((h) => h.document === 'planted' && h.benchmark_item === 'HumanEval/12'));
  // A job that fails once hits were found (its output cannot be put in place: a folder holds the
  // name) leaves no hits file: they would describe documents never written.
  const blocked = join(tmp, 'blocked.jsonl');
  mkdirSync(blocked);
  assert.equal((r = midpack(['decontaminate', path, '--benchmark', `${HUMANEVAL}:prompt,canonical_solution`, '--out', blocked, '--quiet'])).status, 1, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.deepEqual(readdirSync(tmp).filter((f) => f.startsWith('blocked')), ['blocked.jsonl']);

  const red = join(tmp, 'red.jsonl');
  assert.equal((r = midpack(['redact', path, '--out', red])).status, 0, r.stderr);
  assert.ok(!readFileSync(red, 'utf8').includes('AKIAIOSFODNN7EXAMPLE') && readFileSync(red, 'utf8').includes('<SECRET_AWS_KEY>'));
  assert.ok(!r.stderr.includes('AKIAIOSFODNN7EXAMPLE') && !readFileSync(`${red}.manifest.json`, 'utf8').includes('AKIAIOSFODNN7EXAMPLE'));
  assert.equal(manifest(red).stats.redact.secrets_by_rule.aws_access_key, 1);
});

test('midpack run: dedup, decontaminate and redact as stages after a source, options checked like the commands', slow, () => {
  const { path } = writeCorpus();
  const cfgPath = join(tmp, 'run.yaml');
  const cfg = {
    out: join(tmp, 'run-out'),
    sources: [
      {
        type: 'documents',
        inputs: [path],
        then: [{ type: 'dedup', options: { near: true } }, { type: 'decontaminate', options: { benchmarks: [`${HUMANEVAL}:prompt,canonical_solution`], action: 'mask' } }, { type: 'redact' }],
      },
    ],
    pack: { seqLen: 16384 },
  };
  writeFileSync(cfgPath, YAML.stringify(cfg));
  const r = midpack(['run', cfgPath, '--no-progress', '--workers', '1']);
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(readFileSync(join(cfg.out, 'manifest.json'), 'utf8'));
  const stages = m.stages as Record<string, { ledger: { records_in: number; records_out: number; dropped: Record<string, number> }; stats: Record<string, Record<string, unknown>>; balanced: boolean }>;
  assert.ok(stages['documents.dedup0']!.ledger.dropped.duplicate! >= 1);
  assert.equal(stages['documents.decontaminate1']!.stats.decontaminate!.items_masked, 1);
  assert.equal((stages['documents.redact2']!.stats.redact!.secrets_by_rule as Record<string, number>).aws_access_key, 1);
  for (const s of ['documents.dedup0', 'documents.decontaminate1', 'documents.redact2']) assert.equal(stages[s]!.balanced, true, s);

  writeFileSync(cfgPath, YAML.stringify({ ...cfg, sources: [{ ...cfg.sources[0], then: [{ type: 'dedup', options: { bands: 0 } }] }] }));
  assert.throws(() => loadRunConfig(cfgPath), /sources\[0\]\.then\[0\]\.options: dedup: option "bands" must be an integer >= 1/);
  writeFileSync(cfgPath, YAML.stringify({ ...cfg, sources: [{ ...cfg.sources[0], then: [{ type: 'redact', options: { emailz: true } }] }] }));
  assert.throws(() => loadRunConfig(cfgPath), /sources\[0\]\.then\[0\]\.options: redact: unknown option "emailz"/);
});
