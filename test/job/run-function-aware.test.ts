import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { loadRunConfig } from '../../src/job/run-config.js';
import { repoRoot } from '../helpers/paths.js';
import { midpack } from '../helpers/run-cli.js';
import { slow } from '../helpers/tiers.js';

test('midpack run: a fim stage with function-aware spans puts its funnel into the manifest and report.stages', slow, () => {
  const dir = mkdtempSync(join(tmpdir(), 'midpack-run-fa-'));
  const out = join(dir, 'out');
  const cfg = {
    out,
    seed: 1,
    sources: [
      {
        name: 'repos',
        type: 'repos',
        inputs: [join(repoRoot, 'data-samples/repos/commander'), join(repoRoot, 'data-samples/repos/cli-progress')],
        then: [{ type: 'fim', options: { fimRate: 1, formats: 'fim', spans: 'function-aware', functionAware: { contextChars: 150000, minInferability: 1 } } }],
      },
    ],
    pack: { seqLen: 65536 },
  };
  const path = join(dir, 'run.yaml');
  writeFileSync(path, YAML.stringify(cfg));
  const r = midpack(['run', path, '--no-progress']);
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  const fa = report.stages['repos.fim'].stats.fim.function_aware;
  assert.equal(fa.documents, 2);
  const js = fa.languages.javascript;
  assert.ok(js.functions > 0 && js.selected === 2, JSON.stringify(fa));
  assert.equal(js.functions, js.candidates + Object.values(js.rejected as Record<string, number>).reduce((a, b) => a + b, 0));
  assert.ok(report.by_kind.fim.documents === 2);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.deepEqual(manifest.stages['repos.fim'].stats.fim.function_aware, fa);
  // A wrong function-aware option is refused by the resolver, naming it ...
  writeFileSync(path, YAML.stringify({ ...cfg, sources: [{ ...cfg.sources[0], then: [{ type: 'fim', options: { spans: 'function-aware', functionAware: { maxLines: -1 } } }] }] }));
  // ... already when the config is read, with its path in the config.
  assert.throws(() => loadRunConfig(path), /sources\[0\]\.then\[0\]\.options: function-aware option maxLines: expected an integer >= 1, got -1/);
  const bad = midpack(['run', path, '--no-progress']);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /function-aware option maxLines: expected an integer >= 1, got -1/);
});
