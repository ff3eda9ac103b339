import type { Command } from 'commander';
import { action, addOutOptions, addSeedOption, runStage } from '../common.js';
import { addOptions, flagValues, resolveFlags } from '../options.js';
import { WEB_OPTIONS, resolveWebOptions } from '../../stages/web/options.js';
import { webSource } from '../../stages/sources.js';
import { webStats } from '../../stages/web/stats.js';
import { redactEndpoint } from '../../stages/web/llm.js';

export function register(program: Command): void {
  const cmd = program
    .command('rewrite-web')
    .description(
      'Rewrite web pages (.html files and folders, JSONL with "html" and optional "url", WARC .warc/.warc.gz) into ' +
        'normalized Markdown of their main content, code blocks fenced and byte-exact; optionally through an ' +
        'OpenAI-compatible LLM with a cache and a faithfulness guard, falling back to the rule-based text.',
    )
    .argument('<inputs...>', 'HTML files, folders, JSONL or WARC files');
  addOutOptions(cmd);
  addOptions(cmd, WEB_OPTIONS);
  addSeedOption(cmd).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const options = resolveFlags(WEB_OPTIONS, o, resolveWebOptions);
      const llm = options.llm;
      const manifestOpts: { out: string; [k: string]: unknown } = { out: o.out as string, seed: o.seed as number, quiet: o.quiet as boolean | undefined, ...flagValues(WEB_OPTIONS, o) };
      // The manifest records the options: never an endpoint's credentials.
      if (typeof manifestOpts.llmEndpoint === 'string') manifestOpts.llmEndpoint = redactEndpoint(manifestOpts.llmEndpoint);
      const ctx = await runStage('rewrite-web', manifestOpts, (c) => webSource(inputs, options, c));
      if (!o.quiet) {
        const s = webStats(ctx);
        const lines = [`pages by method: rules ${s.by_method.rules}, llm ${s.by_method.llm}; code blocks ${s.code_blocks}`];
        if (llm) {
          lines.push(`llm: ${s.llm.requests} requests, ${s.llm.cache_hits} cache hits, ${s.llm.retries} retries, ${s.llm.rewritten} rewritten, ${s.llm.fallbacks} fallbacks`);
          for (const [r, n] of Object.entries(s.llm.rejected_by_reason)) lines.push(`  rejected ${r}: ${n}`);
          for (const [r, n] of Object.entries(s.llm.failed_by_reason)) lines.push(`  failed ${r}: ${n}`);
        }
        process.stderr.write(lines.join('\n') + '\n');
      }
    }),
  );
}
