/**
 * A scripted OpenAI-compatible chat-completions server for synth-qa's tests and benchmark, on
 * 127.0.0.1 only. It answers each request with grounded pairs made from the document's own
 * sentences (the question names a few of its words, the answer is the sentence, the evidence
 * quotes it), or abstains when the document has too few sentences, and reports usage. Run alone,
 * it prints its base URL on stdout, and on SIGTERM its request count and CPU time as JSON:
 *   node dist/scripts/synth-qa-server.js [--latency-ms N] [--pairs N]
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export interface GroundedPair {
  question: string;
  answer: string;
  evidence: string;
}

/** Sentences of a document fit to be evidence: one line, starting with a capital, 40 to 240 characters, no Markdown marks. */
export function sentences(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<=^|\s)[A-Z][^.!?\n*_`[\]|#]{40,240}[.!?](?=\s|$)/gm)) out.add(m[0]);
  return [...out];
}

/** A grounded pair from the k-th sentence, or undefined when the document has fewer. */
export function groundedPair(text: string, k: number, all = sentences(text)): GroundedPair | undefined {
  const s = all[k];
  if (!s) return undefined;
  const words = s.match(/[\p{L}\p{N}]+/gu)!;
  return { question: `What is known about ${words.slice(1, 5).join(' ')}?`, answer: s.replace(/[.!?]$/, ''), evidence: s };
}

/** The answer content for a document: up to `pairs` grounded pairs, or an abstention. */
export function groundedAnswer(text: string, pairs: number): string {
  const all = sentences(text);
  const qa = Array.from({ length: Math.min(pairs, all.length) }, (_, k) => groundedPair(text, k, all)!);
  return JSON.stringify(qa.length ? { qa } : { abstain: 'too_little_content' });
}

/** Starts the server; every answer waits `latencyMs` first, as a model would. */
export function startGroundedServer(options: { latencyMs?: number; pairs?: number } = {}): Promise<{ server: Server; url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests++;
      const json = JSON.parse(body) as { messages: { content: string }[] };
      const text = json.messages[1]!.content;
      const content = groundedAnswer(text, options.pairs ?? 4);
      const usage = { prompt_tokens: Math.ceil((json.messages[0]!.content.length + text.length) / 4), completion_tokens: Math.ceil(content.length / 4) };
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }], usage }));
      }, options.latencyMs ?? 0);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests: () => requests })));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const { url, requests } = await startGroundedServer({ latencyMs: arg('--latency-ms'), pairs: arg('--pairs') });
  process.stdout.write(`${url}\n`);
  // Asked to stop, it says what it cost: a benchmark reports the server's CPU apart from midpack's.
  process.once('SIGTERM', () => {
    const cpu = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ requests: requests(), cpu_ms: (cpu.user + cpu.system) / 1000 })}\n`, () => process.exit(0));
  });
}
