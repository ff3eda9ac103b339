import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import YAML from 'yaml';
import { repoRoot } from '../helpers/paths.js';
import { midpack } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

/** The rows of table#id as arrays of cell texts. */
function rows(document: ReturnType<typeof parseHTML>["document"], id: string): string[][] {
  const t = document.querySelector(`table#${id}`);
  assert.ok(t, `report.html has table#${id}`);
  return [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''));
}

test('report.html of a run: header, Table 13 on the run lengths, a row per named source, stages as tables, charts with axes and values', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-report-html-'));
  const config = {
    out: join(dir, 'out'),
    sources: [
      { name: 'code-repos', type: 'repos', inputs: [join(repoRoot, 'data-samples/repos')], then: [{ type: 'fim', options: { fimRate: 0.5 } }] },
      { name: 'readmes', type: 'documents', inputs: [join(repoRoot, 'data-samples/docs')] },
    ],
    mask: { minDocs: 2, minFrac: 0 },
    pack: { seqLen: 32768, overlong: 'boundary' },
  };
  const cfgPath = join(dir, 'pipeline.yaml');
  writeFileSync(cfgPath, YAML.stringify(config));
  const r = midpack(['run', cfgPath, '--quiet', '--workers', '1']);
  assert.equal(r.status, 0, r.stderr);
  const out = config.out;
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  const { document } = parseHTML(readFileSync(join(out, 'report.html'), 'utf8'));

  // Every language of the repositories' files has a row, by Linguist's name, with its file count.
  const byLanguage = manifest.stages['code-repos'].stats.serialize_repos.by_language as Record<string, { files: number }>;
  const langRows = rows(document, 'file-languages');
  assert.deepEqual(langRows.map(([l]) => l).sort(), Object.keys(byLanguage).sort());
  for (const [l, files] of langRows) assert.equal(files, byLanguage[l!]!.files.toLocaleString('en-US'));
  assert.ok(byLanguage.JavaScript && byLanguage.Markdown, Object.keys(byLanguage).join(', '));
  const header = Object.fromEntries(rows(document, 'header').map(([k, v]) => [k, v]));
  assert.match(header.date!, /^\d{4}-\d{2}-\d{2}$/);
  assert.equal(header['midpack version'], JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
  assert.equal(header.command, 'midpack run');
  assert.ok(header.tokenizer!.startsWith(`${manifest.tokenizer.name} (sha256 ${manifest.tokenizer.sha256.slice(0, 16)}`));
  assert.ok(header.tokenizer!.includes(`pad ${manifest.tokenizer.pad_id}`));
  const config13 = Object.fromEntries(rows(document, 'config').map(([k, v]) => [k, v]));
  assert.equal(config13.seq_len, '32768');
  const inputs = rows(document, 'inputs');
  assert.equal(inputs.length, manifest.inputs.length);
  inputs.forEach(([path, , sha], i) => {
    assert.equal(path, manifest.inputs[i].path);
    assert.equal(sha, manifest.inputs[i].sha256);
  });

  // Table 13: the five strategies, the same figures `midpack report --compare` gives on the run's lengths.
  const t13 = rows(document, 'table13');
  assert.deepEqual(t13.map((row) => row[0]), ['concat_split', 'rld', 'pld', 'bfp', 'bfp_boundary']);
  const cmp = JSON.parse(midpack(['report', out, '--compare', '--json']).stdout);
  for (const row of t13) assert.equal(row[3], cmp[row[0]!].bins.toLocaleString('en-US'), `${row[0]} bins`);

  const named = rows(document, 'by-named-source');
  assert.deepEqual(named.map((row) => row[0]), ['code-repos', 'readmes']);
  assert.deepEqual(named.map((row) => row[1]), ['repos', 'documents']);
  assert.equal(named[0]![2], 'fim');
  assert.equal(named[1]![4], manifest.stages.readmes.ledger.records_out.toLocaleString('en-US'));
  assert.ok(rows(document, 'by-kind').some((row) => row[0] === 'fim'));

  const stages = rows(document, 'stages').map((row) => row[0]);
  assert.deepEqual(stages.sort(), ['code-repos', 'code-repos.fim', 'mask', 'readmes']);
  assert.ok(document.querySelector('table#stage-code-repos\\.fim'), 'a figures table per stage');
  assert.equal(document.querySelectorAll('pre').length, 0, 'no raw JSON');
  assert.ok(rows(document, 'masked-segments').length > 0, 'top masked segments');

  const charts = [...document.querySelectorAll('svg')];
  assert.equal(charts.length, 3);
  for (const svg of charts) {
    assert.equal(svg.querySelectorAll('text.axis-title').length, 2, 'both axes titled');
    assert.ok(svg.querySelectorAll('text.tick').length >= 2, 'y ticks');
    assert.ok(svg.querySelectorAll('text.value').length >= 1, 'bar values');
    assert.ok(svg.querySelectorAll('text.label').length >= 1, 'bar labels');
  }
});
