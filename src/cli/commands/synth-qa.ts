import type { Command } from 'commander';
import { readDocuments } from '../../io/documents.js';
import { redactEndpoint } from '../../llm/client.js';
import { synthQaStage } from '../../stages/synth-qa/stage.js';
import { SYNTH_QA_OPTIONS, resolveSynthQaOptions } from '../../stages/synth-qa/options.js';
import { synthQaStats, type SynthQaStats } from '../../stages/synth-qa/stats.js';
import { action, addOutOptions, addSeedOption, runStage } from '../common.js';
import { addOptions, flagValues, resolveFlags } from '../options.js';

export function register(program: Command): void {
  const cmd = program
    .command('synth-qa')
    .description(
      'Ask an OpenAI-compatible model for grounded question-answer pairs about each document (one request per document, ' +
        'cached); keep the pairs whose evidence is in the document, whose question stands on its own and whose answer ' +
        'adds nothing, as ChatML samples trained on the answers only. Every document and pair dropped is counted by reason.',
    )
    .argument('<inputs...>', 'documents: JSONL (.gz, .zst), Parquet or Arrow files or folders (e.g. rewrite-web output)');
  addOutOptions(cmd);
  addOptions(cmd, SYNTH_QA_OPTIONS);
  addSeedOption(cmd).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const options = resolveFlags(SYNTH_QA_OPTIONS, o, resolveSynthQaOptions);
      const manifestOpts: { out: string; [k: string]: unknown } = { out: o.out as string, seed: o.seed as number, quiet: o.quiet as boolean | undefined, ...flagValues(SYNTH_QA_OPTIONS, o) };
      // The manifest records the options: never an endpoint's credentials.
      if (typeof manifestOpts.llmEndpoint === 'string') manifestOpts.llmEndpoint = redactEndpoint(manifestOpts.llmEndpoint);
      const ctx = await runStage('synth-qa', manifestOpts, (c) => synthQaStage(options)(readDocuments(inputs, c.ledger), c));
      if (!o.quiet) process.stderr.write(summary(synthQaStats(ctx)) + '\n');
    }),
  );
}

/** The stage's figures on stderr: documents, pairs by reason, requests and tokens. */
export function summary(s: SynthQaStats): string {
  const d = s.documents;
  const entries = (r: Record<string, number>) => Object.entries(r).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
  return [
    `documents: ${d.in} in, ${d.with_samples} with samples, ${d.abstained} abstained, ${d.no_grounded_pair} without a kept pair; skipped: ${entries(d.skipped)}; failed: ${entries(d.failed)}`,
    `pairs: ${s.pairs.asked} asked, ${s.pairs.returned} returned, ${s.pairs.kept} kept; dropped: ${entries(s.pairs.dropped)}; ${s.samples} samples`,
    `llm: ${s.llm.requests} requests, ${s.llm.cache_hits} cache hits, ${s.llm.retries} retries, ${s.llm.prompt_tokens} prompt and ${s.llm.completion_tokens} completion tokens`,
  ].join('\n');
}
