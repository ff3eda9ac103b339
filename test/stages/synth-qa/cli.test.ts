import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { docToJson, type Doc } from '../../../src/doc/document.js';
import { SPECIAL } from '../../../src/doc/specials.js';
import { loadTokenizer, type MidTokenizer } from '../../../src/tokenize/index.js';
import { parseTurns } from '../../../src/stages/trajectories/chatml.js';
import { cliPath, midpack } from '../../helpers/run-cli.js';
import { documentsOf, readRows } from '../../helpers/shard-rows.js';
import { repoRoot } from '../../helpers/paths.js';
import { assignBehaviours, realDocuments, startQaServer } from './helpers.js';
import { slow } from '../../helpers/tiers.js';

/** The CLI while the scripted server runs in this process: spawned, never blocking the event loop. */
function midpackAsync(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (status) => resolve({ status, stderr }));
  });
}

const readDocs = (path: string): Doc[] => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Doc);

/**
 * Each packed document split into runs of equal loss mask, decoded: the trained runs must be
 * exactly the answers, each with its <|im_end|>, then the end-of-text token pack appends to every
 * document; the masked runs everything else; all of them in order the text itself.
 */
function checkPackedMask(tok: MidTokenizer, docs: Doc[], out: string): number {
  const packed = documentsOf(readRows(out));
  let answers = 0;
  for (const doc of docs) {
    const p = packed.get(doc.id)!;
    assert.ok(p, `${doc.id} packed`);
    const runs: { trained: boolean; text: string }[] = [];
    let from = 0;
    for (let i = 1; i <= p.ids.length; i++) {
      if (i < p.ids.length && p.mask[i] === p.mask[from]) continue;
      runs.push({ trained: p.mask[from] === 1, text: tok.decode(p.ids.slice(from, i)) });
      from = i;
    }
    assert.equal(runs.map((r) => r.text).join(''), doc.text + SPECIAL.endOfText, `${doc.id}: the packed tokens decode to the sample`);
    const turns = parseTurns(doc.text, doc.special_spans!);
    const expected = [...turns.filter((t) => t.role === 'assistant').map((t) => t.content.text + SPECIAL.imEnd), SPECIAL.endOfText];
    assert.deepEqual(runs.filter((r) => r.trained).map((r) => r.text), expected, `${doc.id}: trained exactly on the answers`);
    answers += expected.length - 1;
  }
  return answers;
}

test('midpack synth-qa: manifest and summary; a second run asks nothing and writes the same bytes; packed through the real pipeline, the loss is on the answers only', slow, async () => {
  const behaviours = ['grounded', 'mixed', 'inventive', 'overlong', 'ungrounded', 'abstain', 'malformed-once', 'ratelimited', 'error500'];
  const { chosen, behaviourOf } = assignBehaviours(await realDocuments(), behaviours);
  const server = await startQaServer(behaviourOf);
  try {
    const dir = mkdtempSync(join(tmpdir(), 'midpack-qa-cli-'));
    const input = join(dir, 'docs.jsonl');
    writeFileSync(input, chosen.map((d) => docToJson(d) + '\n').join(''));
    const common = [input, '--llm-endpoint', server.url, '--llm-model', 'qa-model', '--cache-dir', join(dir, 'cache'), '--llm-backoff-ms', '1', '--llm-retries', '2'];
    const first = await midpackAsync(['synth-qa', ...common, '--out', join(dir, 'a.jsonl')]);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /documents: 9 in, 7 with samples, 1 abstained, 1 without a kept pair/);
    assert.match(first.stderr, /llm: 13 requests, 0 cache hits, 4 retries, \d+ prompt and \d+ completion tokens/);
    const m1 = JSON.parse(readFileSync(join(dir, 'a.jsonl.manifest.json'), 'utf8'));
    assert.equal(m1.stage, 'synth-qa');
    assert.equal(m1.ledger.records_in, 9);
    assert.equal(m1.ledger.records_in, m1.ledger.records_out + Object.values(m1.ledger.dropped as Record<string, number>).reduce((a, b) => a + b, 0));
    assert.equal(m1.stats.synth_qa.llm.prompt_tokens, server.reported.prompt);
    const requests = server.total();
    assert.equal(requests, 13);

    const second = await midpackAsync(['synth-qa', ...common, '--out', join(dir, 'b.jsonl')]);
    assert.equal(second.status, 0, second.stderr);
    assert.equal(server.total(), requests, 'the second run sends no request');
    const m2 = JSON.parse(readFileSync(join(dir, 'b.jsonl.manifest.json'), 'utf8'));
    assert.equal(m2.stats.synth_qa.llm.cache_hits, 9);
    assert.ok(readFileSync(join(dir, 'b.jsonl')).equals(readFileSync(join(dir, 'a.jsonl'))), 'the same bytes');

    // One multi-turn sample per document, from the same cache.
    const perDoc = await midpackAsync(['synth-qa', ...common, '--per-document', '--out', join(dir, 'c.jsonl')]);
    assert.equal(perDoc.status, 0, perDoc.stderr);
    assert.equal(server.total(), requests);
    const single = readDocs(join(dir, 'a.jsonl'));
    const multi = readDocs(join(dir, 'c.jsonl'));
    assert.equal(multi.length, 7);
    for (const d of multi) {
      const mine = single.filter((s) => s.meta.source_id === d.meta.source_id);
      assert.deepEqual(d.meta.pair_index, mine.map((s) => s.meta.pair_index));
      assert.equal(parseTurns(d.text, d.special_spans!).length, 2 * mine.length);
    }

    const tok = await loadTokenizer();
    let answers = 0;
    for (const name of ['a', 'c']) {
      const out = join(dir, `packed-${name}`);
      const r = midpack(['pack', join(dir, `${name}.jsonl`), '--out', out, '--seq-len', '4096', '--workers', '1', '--no-progress']);
      assert.equal(r.status, 0, r.stderr);
      answers += checkPackedMask(tok, readDocs(join(dir, `${name}.jsonl`)), out);
    }
    assert.equal(answers, 2 * single.length);
  } finally {
    server.stop();
  }
});

test('midpack run examples/synth-qa.yaml against the scripted server: web pages then synth-qa; the stage ledger balances and the report shows its figures', slow, async () => {
  const server = await startQaServer(() => 'default');
  try {
    const dir = mkdtempSync(join(tmpdir(), 'midpack-qa-run-'));
    // The shipped example, pointed at the scripted server instead of localhost:8000.
    const config = YAML.parse(readFileSync(join(repoRoot, 'examples', 'synth-qa.yaml'), 'utf8'));
    config.out = join(dir, 'out');
    config.pack = { seqLen: 16384 };
    for (const source of config.sources) source.inputs = source.inputs.map((p: string) => join(repoRoot, 'examples', p));
    const qa = config.sources[1].then[0].options;
    assert.equal(qa.llmEndpoint, 'http://localhost:8000/v1');
    Object.assign(qa, { llmEndpoint: server.url, cacheDir: join(dir, 'cache'), llmBackoffMs: 1 });
    writeFileSync(join(dir, 'run.yaml'), YAML.stringify(config));
    const r = await midpackAsync(['run', join(dir, 'run.yaml'), '--no-progress']);
    assert.equal(r.status, 0, r.stderr);
    const m = JSON.parse(readFileSync(join(dir, 'out', 'manifest.json'), 'utf8'));
    const stage = m.stages['web-qa.synth-qa'];
    assert.equal(stage.balanced, true);
    assert.equal(stage.ledger.records_in, 7);
    const s = stage.stats.synth_qa;
    assert.equal(s.documents.in, 7);
    assert.ok(s.pairs.kept >= 10, `pairs kept: ${s.pairs.kept}`);
    assert.equal(s.llm.requests, server.total());
    const html = readFileSync(join(dir, 'out', 'report.html'), 'utf8');
    for (const figure of ['synth_qa.pairs.kept', 'synth_qa.llm.prompt_tokens', 'synth_qa.llm.completion_tokens', 'synth_qa.llm.cache_hits', 'synth_qa.documents.with_samples']) assert.ok(html.includes(figure), figure);
    assert.equal(m.balanced, true);
    const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
    assert.equal(report.by_kind.qa.documents, s.samples, 'every sample packed, as kind qa');
  } finally {
    server.stop();
  }
});
