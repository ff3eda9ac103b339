import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { collect, defaultContext } from '../../../src/core/stage.js';
import type { Doc } from '../../../src/doc/document.js';
import { readWebInputs } from '../../../src/stages/web/sources.js';
import { rewriteWeb } from '../../../src/stages/web/stage.js';
import type { RawPair } from '../../../src/stages/synth-qa/protocol.js';
import { repoRoot } from '../../helpers/paths.js';
import { groundedPair as scriptPair, sentences } from '../../../scripts/synth-qa-server.js';

export { sentences };

/**
 * Real documents (the repository's sample web pages, rewritten by the rule-based rewriter and cut
 * into paragraph groups) and a scripted OpenAI-compatible server on loopback that answers about
 * each document as the test tells it to: grounded pairs, pairs with one known defect each,
 * abstentions, malformed answers, 429s and 500s. The pairs it writes come from the document's
 * own sentences, so "grounded" is true of the real text, not of a fixture made to fit.
 */
export async function realDocuments(maxChars = 2500): Promise<Doc[]> {
  const ctx = defaultContext({ log: () => {} });
  const pages = await collect(rewriteWeb({})(readWebInputs([join(repoRoot, 'data-samples', 'web')], ctx, { maxPageBytes: 1 << 26 }), ctx));
  const docs: Doc[] = [];
  for (const page of pages) {
    let chunk: string[] = [];
    const flush = () => {
      if (chunk.length) docs.push({ id: `${page.id}-${docs.length}`, kind: 'web', source: `${page.source}#${docs.length}`, text: chunk.join('\n\n'), meta: {} });
      chunk = [];
    };
    for (const para of page.text.split('\n\n')) {
      if (chunk.join('\n\n').length + para.length > maxChars) flush();
      chunk.push(para);
    }
    flush();
  }
  return docs;
}

/** A grounded pair from the k-th sentence (the server script's): the question names a few of its words, the answer is the sentence. */
export function groundedPair(text: string, k: number): RawPair {
  const p = scriptPair(text, k);
  if (!p) throw new Error(`no sentence ${k} in ${JSON.stringify(text.slice(0, 60))}`);
  return p;
}

export type Labelled = { label: 'grounded' | string; pair: unknown };

/** The pairs of each scripted behaviour, labelled with what the stage must do with each. */
export function scriptedPairs(behaviour: string, text: string): Labelled[] {
  const g = (k: number) => groundedPair(text, k);
  switch (behaviour) {
    case 'grounded':
      // the evidence of the second pair has its spaces turned into line breaks: found after normalization
      return [
        { label: 'grounded', pair: g(0) },
        { label: 'grounded', pair: { ...g(1), evidence: g(1).evidence.replace(/ /g, '\n  ') } },
        { label: 'grounded', pair: g(2) },
      ];
    case 'mixed':
      return [
        { label: 'grounded', pair: g(0) },
        { label: 'evidence_not_found', pair: { ...g(1), evidence: 'The zebras of Ontario migrate every winter to the southern coast.' } },
        { label: 'not_self_contained', pair: { ...g(2), question: `What does the article say about ${g(2).question.slice(20, -1)}?` } },
        { label: 'duplicate_question', pair: { ...g(3), question: g(0).question.toUpperCase().replace('?', ' ?') } },
      ];
    case 'inventive':
      return [
        { label: 'invented_url', pair: { ...g(0), answer: `${g(0).answer}; see https://docs.invented.example/qa for details` } },
        { label: 'grounded', pair: g(1) },
        { label: 'novel_answer', pair: { ...g(2), answer: 'Quantum flux capacitors reliably synchronize interstellar warp manifolds every Tuesday' } },
        { label: 'not_self_contained', pair: { ...g(3), question: `Was steht im Text über ${g(3).question.slice(20, -1)}?` } },
      ];
    case 'overlong':
      return [
        { label: 'grounded', pair: g(0) },
        { label: 'malformed_pair', pair: { question: g(1).question, answer: 42, evidence: g(1).evidence } },
        { label: 'invented_reference', pair: { ...g(2), answer: `${g(2).answer} [17]` } },
        { label: 'grounded', pair: g(3) },
        { label: 'over_limit', pair: g(4) },
      ];
    case 'ungrounded':
      return [
        { label: 'evidence_not_found', pair: { ...g(0), evidence: 'A sentence that this page never had in it at all.' } },
        { label: 'not_self_contained', pair: { ...g(1), question: 'Selon le texte, que se passe-t-il ?' } },
      ];
    default:
      return [{ label: 'grounded', pair: g(0) }, { label: 'grounded', pair: g(1) }];
  }
}

export interface QaServer {
  server: Server;
  url: string;
  /** Requests by behaviour. */
  requests: Map<string, number>;
  total: () => number;
  /** Token counts the server reported, summed over its 200 answers. */
  reported: { prompt: number; completion: number };
  /** The last request body, for checks on response_format. */
  lastBody: () => Record<string, unknown> | undefined;
  stop: () => void;
}

/**
 * The scripted server. `behaviourOf` names each document's behaviour from the user message.
 * Transport behaviours: `ratelimited` (429 twice, then grounded), `error500` (500 once, then
 * grounded), `broken` (500 always), `malformed` (prose, always), `malformed-once` (prose, then the
 * pairs in a ```json fence), `abstain` / `abstain-free` (an abstention with a listed / a free reason).
 * Every answer reports usage: prompt tokens = characters / 4 of the messages, completion = 7 per pair.
 */
export function startQaServer(behaviourOf: (text: string) => string): Promise<QaServer> {
  const requests = new Map<string, number>();
  let total = 0;
  let last: Record<string, unknown> | undefined;
  const reported = { prompt: 0, completion: 0 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      total++;
      const json = JSON.parse(body) as { messages: { content: string }[] };
      last = json;
      const text = json.messages[1]!.content;
      const behaviour = behaviourOf(text);
      const n = (requests.get(behaviour) ?? 0) + 1;
      requests.set(behaviour, n);
      const promptTokens = Math.ceil((json.messages[0]!.content.length + text.length) / 4);
      const answer = (content: string, pairs: number) => {
        reported.prompt += promptTokens;
        reported.completion += 7 * pairs;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }], usage: { prompt_tokens: promptTokens, completion_tokens: 7 * pairs } }));
      };
      let pairs: (b: string) => unknown[];
      try {
        scriptedPairs(behaviour, text);
        pairs = (b: string) => scriptedPairs(b, text).map((p) => p.pair);
      } catch {
        // a document with too few sentences for its script: the model abstains
        return answer('{"abstain": "too_little_content"}', 1);
      }
      const fail = (status: number) => {
        res.writeHead(status, status === 429 ? { 'retry-after': '0' } : {});
        res.end('try again');
      };
      switch (behaviour) {
        case 'ratelimited':
          return n <= 2 ? fail(429) : answer(JSON.stringify({ qa: pairs('grounded') }), 3);
        case 'error500':
          return n <= 1 ? fail(500) : answer(JSON.stringify({ qa: pairs('grounded') }), 3);
        case 'broken':
          return fail(500);
        case 'malformed':
          return answer('Sure! Here are some great questions about this page: 1. What is it?', 1);
        case 'malformed-once':
          return n <= 1 ? answer('{"qa": [{"question": "unterminated', 1) : answer('```json\n' + JSON.stringify({ qa: pairs('default') }, null, 2) + '\n```', 2);
        case 'abstain':
          return answer('{"abstain": "low_quality"}', 1);
        case 'abstain-free':
          return answer('{"abstain": "The page is mostly a list of product links."}', 1);
        default:
          return answer(JSON.stringify({ qa: pairs(behaviour) }), 4);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        requests,
        reported,
        total: () => total,
        lastBody: () => last,
        stop: () => (server.close(), server.closeAllConnections()),
      }),
    ),
  );
}

/** Documents with at least five evidence sentences, each given a behaviour in turn; the map finds a document's behaviour from the text asked about. */
export function assignBehaviours(docs: Doc[], behaviours: string[]): { chosen: Doc[]; behaviourOf: (text: string) => string; byId: Map<string, string> } {
  const fit = docs.filter((d) => sentences(d.text).length >= 5 && d.text.length >= 400);
  if (fit.length < behaviours.length) throw new Error(`only ${fit.length} documents with five sentences`);
  const chosen = fit.slice(0, behaviours.length);
  const byPrefix = new Map(chosen.map((d, i) => [d.text.slice(0, 80), behaviours[i]!]));
  const byId = new Map(chosen.map((d, i) => [d.id, behaviours[i]!]));
  return { chosen, byId, behaviourOf: (text) => byPrefix.get(text.slice(0, 80)) ?? 'default' };
}

/** The pairs a behaviour's answer ends up holding, by label (transport behaviours answer as `grounded` or `default`). */
export function answeredPairs(behaviour: string, text: string): Labelled[] {
  if (behaviour === 'ratelimited' || behaviour === 'error500') return scriptedPairs('grounded', text);
  if (behaviour === 'malformed-once') return scriptedPairs('default', text);
  if (['abstain', 'abstain-free', 'malformed', 'broken'].includes(behaviour)) return [];
  return scriptedPairs(behaviour, text);
}
