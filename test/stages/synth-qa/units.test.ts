import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect, countedIn, defaultContext, fromArray } from '../../../src/core/stage.js';
import type { Doc } from '../../../src/doc/document.js';
import { cacheKey } from '../../../src/llm/client.js';
import { Grounding, contentWords } from '../../../src/stages/synth-qa/grounding.js';
import { resolveSynthQaOptions } from '../../../src/stages/synth-qa/options.js';
import { DEFAULT_QA_PROMPT, promptSha256, qaPrompt } from '../../../src/stages/synth-qa/prompt.js';
import { parseQaAnswer } from '../../../src/stages/synth-qa/protocol.js';
import { documentReference } from '../../../src/stages/synth-qa/references.js';
import { synthQaStage, truncateText } from '../../../src/stages/synth-qa/stage.js';
import { synthQaStats } from '../../../src/stages/synth-qa/stats.js';
import { realDocuments, startQaServer } from './helpers.js';

test('answer protocol: the two shapes, bare or in one fenced block; anything else is malformed', () => {
  const qa = { qa: [{ question: 'q?', answer: 'a', evidence: 'e' }, { question: 'q2', answer: 3 }] };
  const ok = (s: string) => parseQaAnswer(s);
  assert.deepEqual(ok(JSON.stringify(qa)), { ok: true, value: { kind: 'qa', pairs: [{ question: 'q?', answer: 'a', evidence: 'e' }, undefined] } });
  assert.deepEqual(ok('```json\n' + JSON.stringify(qa) + '\n```\n'), ok(JSON.stringify(qa)));
  assert.deepEqual(ok('```\n{"abstain": "incoherent"}\n```'), { ok: true, value: { kind: 'abstain', reason: 'incoherent' } });
  for (const bad of [
    'Here you go: {"qa": []}',
    '```json\n{"qa": []}\n```\n```json\n{"qa": []}\n```',
    '{"qa": [], "abstain": "x"}',
    '{"abstain": 3}',
    '{"qa": {}}',
    '[{"question": "q"}]',
    '{"qa": [',
    '',
  ]) {
    assert.equal(ok(bad).ok, false, bad);
  }
});

test('self-contained questions: the pointing phrases of the six languages are found; subjects named in code are not', () => {
  const pointing = [
    'What does the article say about Arduino?',
    'According to the text, who founded Mozilla?',
    'What is mentioned above about the license?',
    'What does this passage describe?',
    'Which tool does the author describe?',
    'Was steht im Text über die Markenrechte?',
    'Welche Firma wird in diesem Artikel genannt?',
    'Selon le texte, qui a fondé Mozilla ?',
    'Que dit cet article sur la pêche ?',
    '¿Qué dice el texto sobre las sanciones?',
    '¿Quién aparece en este artículo?',
    "Cosa dice l'articolo sulla pesca?",
    'Che cosa descrive questo testo?',
    'Co mówi ten artykuł o licencji?',
    'Kto jest wymieniony w tekście?',
    'Co opisano powyżej?',
    'Was beschreibt der Artikel über Arduino?',
    'Que dit le texte sur la pêche ?',
  ];
  for (const q of pointing) assert.ok(documentReference(q), q);
  const standalone = [
    'How do you read document.title in JavaScript?',
    'What does the text-align property do in CSS?',
    'What is the page cache in the Linux kernel?',
    'Which values above 100 does the HTTP status class 1xx exclude?',
    'Who founded the Mozilla Foundation in 2003?',
    'Wer gründete die Mozilla Foundation?',
    'Qui a fondé la Mozilla Foundation ?',
    'What is a pretext for war?',
    'How are the contexts of a closure kept?',
  ];
  for (const q of standalone) assert.equal(documentReference(q), undefined, q);
});

test('grounding: whitespace-normalized evidence, content words of the answer, duplicates after normalization', () => {
  const text = 'The Arduino board was designed in Ivrea, Italy,\n  in 2005.\n\nIt costs 20 euros.';
  const g = new Grounding(text, { pairs: 4, maxNovel: 0.3 });
  assert.ok('kept' in g.check({ question: 'Where was the Arduino board designed?', answer: 'In Ivrea, Italy, in 2005', evidence: 'designed in Ivrea, Italy, in 2005.' }, 0));
  assert.deepEqual(contentWords('It is in Ivrea, in 2005'), ['ivrea', '2005']);
  const dup = g.check({ question: 'where was the ARDUINO board designed', answer: 'In Ivrea', evidence: 'Ivrea' }, 1);
  assert.equal('drop' in dup && dup.drop, 'duplicate_question');
  const novel = g.check({ question: 'How much does an Arduino cost?', answer: 'It costs 25 dollars', evidence: 'It costs 20 euros.' }, 2);
  assert.equal('drop' in novel && novel.drop, 'novel_answer', 'two of the three content words are new');
  const kept = g.check({ question: 'How much does an Arduino cost?', answer: 'It costs 20 euros', evidence: 'It costs 20 euros.' }, 3);
  assert.ok('kept' in kept);
  const markdown = new Grounding('A flaw in the *Minecraft* server’s `login` code crashes it.', { pairs: 2, maxNovel: 0.3 });
  assert.ok('kept' in markdown.check({ question: 'What crashes a Minecraft server?', answer: "A flaw in the server's login code", evidence: "A flaw in the Minecraft server's login code crashes it." }, 0), 'Markdown marks and typographic quotes folded');
  const other = markdown.check({ question: 'What does the flaw crash?', answer: 'the server', evidence: 'A flaw in the Minecraft client crashes it.' }, 1);
  assert.equal('drop' in other && other.drop, 'evidence_not_found');
  const lone = g.check({ question: 'Why?', answer: 'x', evidence: '\uD800' }, 3);
  assert.equal('drop' in lone && lone.drop, 'invalid_unicode');
});

test('options: endpoint and model required, {pairs} in the prompt, the schema only with llmJsonSchema and in the cache key', () => {
  assert.throws(() => resolveSynthQaOptions({}), /llmEndpoint: is required/);
  assert.throws(() => resolveSynthQaOptions({ llmModel: 'm' }), /llmEndpoint: is needed with llmModel/);
  assert.throws(() => resolveSynthQaOptions({ llmEndpoint: 'http://x/v1', llmModel: 'm', pairs: 0 }), /pairs: must be an integer in 1\.\.64/);
  assert.throws(() => resolveSynthQaOptions({ llmEndpoint: 'http://x/v1', llmModel: 'm', minChars: 10, maxChars: 5 }), /minChars: must not be over maxChars/);
  const o = resolveSynthQaOptions({ llmEndpoint: 'http://x/v1', llmModel: 'm', pairs: 3 });
  assert.equal(o.llm.prompt, qaPrompt(DEFAULT_QA_PROMPT, 3));
  assert.ok(o.llm.prompt.includes('write 3 question-answer pairs') && !o.llm.prompt.includes('{pairs}'));
  assert.equal(o.promptSha256, promptSha256(o.llm.prompt));
  assert.equal(o.llm.responseFormat, undefined);
  const s = resolveSynthQaOptions({ llmEndpoint: 'http://x/v1', llmModel: 'm', pairs: 3, llmJsonSchema: true });
  assert.equal((s.llm.responseFormat as { type: string }).type, 'json_schema');
  assert.notEqual(cacheKey('http://x/v1', 'm', s.llm.prompt, 'doc', s.llm.responseFormat), cacheKey('http://x/v1', 'm', o.llm.prompt, 'doc'));
  const dir = mkdtempSync(join(tmpdir(), 'midpack-qa-prompt-'));
  writeFileSync(join(dir, 'prompt.txt'), 'Ask {pairs} questions. Then {pairs} more.');
  const f = resolveSynthQaOptions({ llmEndpoint: 'http://x/v1', llmModel: 'm', pairs: 2, llmPromptFile: join(dir, 'prompt.txt') });
  assert.equal(f.llm.prompt, 'Ask 2 questions. Then 2 more.');
  assert.throws(() => resolveSynthQaOptions({ llmEndpoint: 'http://x/v1', llmModel: 'm', llmPromptFile: join(dir, 'missing.txt') }), /llmPromptFile: not readable/);
  assert.equal(cacheKey('http://x/v1', 'm', 'p', 'doc'), cacheKey('http://x/v1', 'm', 'p', 'doc', undefined), 'keys without a format are unchanged');
});

test('truncation at a paragraph break; special-token and surrogate documents skipped by reason; response_format sent with --llm-json-schema', async () => {
  const para = 'A sentence about fishing boats and their crews in Seattle. '.repeat(10).trim();
  const long = `${para}\n\n${para}\n\n${para}`;
  const cut = truncateText(long, para.length * 2 + 10);
  assert.equal(cut, `${para}\n\n${para}`);
  assert.equal(truncateText('ab\uD83D\uDE00cd', 3), 'ab', 'never halves a surrogate pair');

  const docs = await realDocuments();
  const doc = docs.find((d) => d.text.length > 1500)!;
  const server = await startQaServer(() => 'default');
  try {
    const dir = mkdtempSync(join(tmpdir(), 'midpack-qa-unit-'));
    const inputs: Doc[] = [
      { ...doc, id: 'cut', text: doc.text + '\n\n' + 'Padding paragraph. '.repeat(200) },
      { ...doc, id: 'chat', special_spans: [[0, 1]] },
      { ...doc, id: 'lone', text: doc.text + '\uDC00' },
    ];
    const ctx = defaultContext({ log: () => {} });
    const o = resolveSynthQaOptions({ llmEndpoint: server.url, llmModel: 'm', cacheDir: join(dir, 'cache'), maxChars: doc.text.length + 100, truncate: true, llmJsonSchema: true, pairs: 2 });
    const out = await collect(synthQaStage(o)(countedIn(fromArray(inputs), ctx.ledger), ctx));
    const stats = synthQaStats(ctx);
    assert.equal(stats.documents.truncated, 1);
    assert.deepEqual(stats.documents.skipped, { special_tokens: 1, invalid_unicode: 1 });
    assert.equal(out.length, 2);
    assert.ok(ctx.ledger.balanced());
    const body = server.lastBody() as { messages: { content: string }[]; response_format: { json_schema: { schema: unknown } } };
    assert.equal(body.messages[1]!.content, doc.text, 'the cut document is asked about: the padding is gone');
    assert.deepEqual(body.response_format, o.llm.responseFormat);
  } finally {
    server.stop();
  }
});
