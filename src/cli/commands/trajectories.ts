import type { Command } from 'commander';
import { action, addSeedOption, intOption, runStage } from '../common.js';
import { LOSS_ON, TEMPLATE_NAMES, TRAJECTORIES_DEFAULTS, resolveTrajectoriesOptions, trajectoriesSource } from '../../stages/trajectories/index.js';
import { loadTokenizer } from '../../tokenize/index.js';

export function register(program: Command): void {
  const cmd = program
    .command('trajectories')
    .description(
      'Agent trajectories (SWE-agent .traj files; JSONL rows in the OpenAI chat format or ShareGPT) into ChatML documents ' +
        `in tool-call templates (${TEMPLATE_NAMES.join(', ')}), or in models' own chat templates (--chat-template), byte for byte ` +
        "what transformers' apply_chat_template writes. Only assistant turns are in the loss by default; turn boundaries " +
        'and the system-plus-tools header are recorded for `pack --overlong boundary`. Every sample is parsed back with its ' +
        "template's parser and kept only if it gives the same messages and calls; a chat-template sample is kept only if its " +
        'loss mask could be placed (see docs/trajectories.md).',
    )
    .argument('<inputs...>', '.traj files, .jsonl(.gz/.zst) files, or folders of them')
    .requiredOption('--out <file>', 'output JSONL ("-" for stdout); OUT.manifest.json is written beside it')
    .option(
      '--templates <weights>',
      `built-in templates chosen per trajectory by seeded weight (${TEMPLATE_NAMES.join(', ')}; default ${TEMPLATE_NAMES.map((n) => `${n}=${TRAJECTORIES_DEFAULTS.templates[n]}`).join(',')}, or all 0 when --chat-template is given)`,
    )
    .option(
      '--chat-template <src[=w]>',
      "a model's own chat template, rendered as transformers' apply_chat_template does: a .jinja file, a tokenizer_config.json, a model folder, " +
        'or a folder of .jinja files (one template each); repeatable, =W weighs it against the others',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--bos-token <s>', 'bos_token for chat templates whose source gives none (a .jinja file)')
    .option('--eos-token <s>', 'eos_token for chat templates whose source gives none')
    .option('--template-kwargs <json>', 'variables for every chat template, a JSON object, e.g. \'{"enable_thinking": false}\'')
    .option('--json-arguments <names>', 'chat templates (by name, comma-separated) given tool-call arguments as JSON strings, as DeepSeek-V3.1\'s concatenates them')
    .option('--tokenizer <name|path>', 'the tokenizer the output will be packed with: only its added tokens become special tokens in chat-template text', 'qwen3')
    .option('--all-templates', 'render every trajectory in every template (weights are then ignored)', false)
    .option('--loss-on <turns>', `turns in the loss: ${LOSS_ON.join(' | ')}`, TRAJECTORIES_DEFAULTS.lossOn)
    .option('--max-trajectory-bytes <n>', 'a .traj file or JSONL row over this size is dropped unread', intOption('--max-trajectory-bytes', 1), TRAJECTORIES_DEFAULTS.maxTrajectoryBytes)
    .option('--count-tokens', 'count tokens by template in the manifest stats (loads the Qwen3 tokenizer)')
    .option('--quiet', 'no per-record messages or summary');
  addSeedOption(cmd).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const raw: Record<string, unknown> = { templates: o.templates, allTemplates: o.allTemplates, lossOn: o.lossOn, maxTrajectoryBytes: o.maxTrajectoryBytes, tokenizer: o.tokenizer };
      const chat = { chatTemplates: o.chatTemplate, bosToken: o.bosToken, eosToken: o.eosToken, templateKwargs: o.templateKwargs, jsonArguments: o.jsonArguments };
      for (const [k, v] of Object.entries(chat)) if (v !== undefined) raw[k] = v;
      if (raw.templates === undefined) delete raw.templates;
      const options = resolveTrajectoriesOptions(raw);
      if (o.countTokens) {
        const tokenizer = await loadTokenizer();
        options.countTokens = (doc) => tokenizer.encodeDoc(doc).ids.length;
      }
      const manifestOpts = { ...o, out: o.out as string, seed: o.seed as number };
      await runStage('trajectories', manifestOpts, (ctx) => trajectoriesSource(inputs, options, ctx));
    }),
  );
}
