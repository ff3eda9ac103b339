import type { Command } from 'commander';
import { action, addSeedOption, intOption, runStage } from '../common.js';
import { LOSS_ON, TEMPLATE_NAMES, TRAJECTORIES_DEFAULTS, resolveTrajectoriesOptions, trajectoriesSource } from '../../stages/trajectories/index.js';
import { loadTokenizer } from '../../tokenize/index.js';

export function register(program: Command): void {
  const cmd = program
    .command('trajectories')
    .description(
      'Agent trajectories (SWE-agent .traj files; JSONL rows in the OpenAI chat format or ShareGPT) into ChatML documents ' +
        `in tool-call templates (${TEMPLATE_NAMES.join(', ')}). Only assistant turns are in the loss by default; turn boundaries ` +
        'and the system-plus-tools header are recorded for `pack --overlong boundary`. Every sample is parsed back with its ' +
        "template's parser and kept only if it gives the same messages and calls.",
    )
    .argument('<inputs...>', '.traj files, .jsonl(.gz/.zst) files, or folders of them')
    .requiredOption('--out <file>', 'output JSONL ("-" for stdout); OUT.manifest.json is written beside it')
    .option('--templates <weights>', `templates chosen per trajectory by seeded weight (${TEMPLATE_NAMES.join(', ')})`, TEMPLATE_NAMES.map((n) => `${n}=${TRAJECTORIES_DEFAULTS.templates[n]}`).join(','))
    .option('--all-templates', 'render every trajectory in every template (--templates is then ignored)', false)
    .option('--loss-on <turns>', `turns in the loss: ${LOSS_ON.join(' | ')}`, TRAJECTORIES_DEFAULTS.lossOn)
    .option('--max-trajectory-bytes <n>', 'a .traj file or JSONL row over this size is dropped unread', intOption('--max-trajectory-bytes', 1), TRAJECTORIES_DEFAULTS.maxTrajectoryBytes)
    .option('--count-tokens', 'count tokens by template in the manifest stats (loads the Qwen3 tokenizer)')
    .option('--quiet', 'no per-record messages or summary');
  addSeedOption(cmd).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const options = resolveTrajectoriesOptions({ templates: o.templates, allTemplates: o.allTemplates, lossOn: o.lossOn, maxTrajectoryBytes: o.maxTrajectoryBytes });
      if (o.countTokens) {
        const tokenizer = await loadTokenizer();
        options.countTokens = (doc) => tokenizer.encodeDoc(doc).ids.length;
      }
      const manifestOpts = { ...o, out: o.out as string, seed: o.seed as number };
      await runStage('trajectories', manifestOpts, (ctx) => trajectoriesSource(inputs, options, ctx));
    }),
  );
}
