import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect, countedIn, defaultContext, fromArray } from '../../../src/core/stage.js';
import type { Doc } from '../../../src/doc/document.js';
import { resolveSynthQaOptions } from '../../../src/stages/synth-qa/options.js';
import { synthQaStage } from '../../../src/stages/synth-qa/stage.js';
import { synthQaStats } from '../../../src/stages/synth-qa/stats.js';
import { parseTurns } from '../../../src/stages/trajectories/chatml.js';
import { answeredPairs, assignBehaviours, realDocuments, startQaServer } from './helpers.js';

const BEHAVIOURS = ['grounded', 'mixed', 'inventive', 'overlong', 'ungrounded', 'abstain', 'abstain-free', 'malformed', 'malformed-once', 'ratelimited', 'error500', 'broken'];

async function runQa(docs: Doc[], raw: Record<string, unknown>) {
  const ctx = defaultContext({ log: () => {} });
  const out = await collect(synthQaStage(resolveSynthQaOptions(raw))(countedIn(fromArray(docs), ctx.ledger), ctx));
  return { out, ctx, stats: synthQaStats(ctx) };
}

test('synth-qa against a scripted server: exactly the grounded, self-contained, new pairs are kept; every drop, abstention and failure is counted; 429s and 500s recover; the output is the same at any concurrency', async () => {
  const all = await realDocuments();
  const { chosen, behaviourOf, byId } = assignBehaviours(all, BEHAVIOURS);
  const short = all.find((d) => d.text.trim().length < 200)!;
  const long = { ...all[0]!, id: 'long', text: all.filter((d) => d.source.startsWith('web/lwn')).map((d) => d.text).join('\n\n') };
  assert.ok(short && long.text.length > 20_000);
  const server = await startQaServer(behaviourOf);
  try {
    const cacheDir = join(mkdtempSync(join(tmpdir(), 'midpack-qa-')), 'cache');
    const raw = { llmEndpoint: server.url, llmModel: 'qa-model', cacheDir, llmRetries: 2, llmBackoffMs: 1, llmConcurrency: 3, maxChars: 20_000, llmApiKeyEnv: 'MIDPACK_TEST_NO_KEY' };
    const inputs = [short, ...chosen.slice(0, 6), long, ...chosen.slice(6)];
    const { out, ctx, stats } = await runQa(inputs, raw);

    // Exactly the pairs labelled grounded, in input order then the model's order, each one sample.
    const expected = chosen.flatMap((d) => answeredPairs(byId.get(d.id)!, d.text).flatMap((l, index) => (l.label === 'grounded' ? [{ source_id: d.id, index, pair: l.pair as { question: string; answer: string; evidence: string } }] : [])));
    assert.equal(out.length, expected.length);
    out.forEach((s, i) => {
      const e = expected[i]!;
      assert.equal(s.kind, 'qa');
      assert.equal(s.meta.source_id, e.source_id);
      assert.equal(s.meta.pair_index, e.index);
      assert.equal(s.meta.evidence, e.pair.evidence);
      assert.equal(s.meta.model, 'qa-model');
      assert.match(String(s.meta.prompt_sha256), /^[0-9a-f]{64}$/);
      const turns = parseTurns(s.text, s.special_spans!);
      assert.deepEqual(turns.map((t) => [t.role, t.content.text]), [['user', e.pair.question], ['assistant', e.pair.answer]]);
    });
    assert.equal(new Set(out.map((d) => d.id)).size, out.length, 'ids are distinct');

    // Every pair dropped under its label, every document under its fate.
    const dropped: Record<string, number> = {};
    for (const d of chosen) for (const l of answeredPairs(byId.get(d.id)!, d.text)) if (l.label !== 'grounded') dropped[l.label] = (dropped[l.label] ?? 0) + 1;
    assert.deepEqual(stats.pairs.dropped, dropped);
    assert.equal(stats.pairs.returned, stats.pairs.kept + Object.values(dropped).reduce((a, b) => a + b, 0));
    assert.equal(stats.pairs.kept, expected.length);
    assert.equal(stats.pairs.asked, 4 * 10, 'four asked of each of the ten documents answered');
    assert.deepEqual(stats.documents, { in: 14, with_samples: 7, abstained: 2, no_grounded_pair: 1, skipped: { too_short: 1, too_long: 1 }, failed: { llm_malformed_answer: 1, llm_http_5xx: 1 }, truncated: 0 });
    assert.deepEqual(stats.abstained_by_reason, { low_quality: 1, other: 1 });
    const ledger = ctx.ledger.toJSON();
    assert.ok(ctx.ledger.balanced());
    assert.deepEqual(ledger.dropped, { abstained: 2, llm_http_5xx: 1, llm_malformed_answer: 1, no_grounded_pair: 1, too_long: 1, too_short: 1 });
    assert.equal(ledger.records_out, 7);
    assert.deepEqual(ledger.produced, { samples: out.length });

    // Requests: one per answered document, three for each that always fails, 429 x2 and 500 x1 and one malformed answer retried.
    assert.deepEqual(Object.fromEntries([...server.requests].sort()), {
      abstain: 1, 'abstain-free': 1, broken: 3, error500: 2, grounded: 1, inventive: 1, malformed: 3, 'malformed-once': 2, mixed: 1, overlong: 1, ratelimited: 3, ungrounded: 1,
    });
    assert.equal(stats.llm.requests, 20);
    assert.equal(stats.llm.retries, 8);
    assert.equal(stats.llm.cache_hits, 0);
    assert.equal(stats.llm.prompt_tokens, server.reported.prompt);
    assert.equal(stats.llm.completion_tokens, server.reported.completion);
    assert.ok(stats.llm.prompt_tokens > 1000);

    // A rerun: the answered documents from the cache, the two that failed asked again; the same samples.
    const again = await runQa(inputs, raw);
    assert.equal(again.stats.llm.cache_hits, 10);
    assert.equal(again.stats.llm.requests, 6);
    assert.deepEqual(again.out, out);

    // One request at a time, into a fresh cache: the same samples in the same order.
    const serial = await runQa(inputs, { ...raw, llmConcurrency: 1, cacheDir: `${cacheDir}-serial` });
    assert.equal(serial.stats.llm.cache_hits, 0);
    assert.deepEqual(serial.out, out, 'the output does not depend on the concurrency');
  } finally {
    server.stop();
  }
});
