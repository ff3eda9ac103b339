import type { Command } from 'commander';
import { action, addSeedOption, intOption, printLedger, runStage, writeStageManifest } from '../common.js';
import { defaultContext } from '../../core/stage.js';
import { AtomicLineWriter } from '../../io/jsonl.js';
import { LOSS_ON, TEMPLATE_BOUND_KEYS, TEMPLATE_NAMES, TRAJECTORIES_DEFAULTS, TRAJECTORIES_TABLE, openaiRows, resolveTrajectoriesOptions, trajectoriesSource, type TrajectoriesOptions } from '../../stages/trajectories/index.js';
import { addOptions, namedByFlag, resolveFlags } from '../options.js';
import { pathOptions, requirePaths } from '../../io/paths.js';
import { loadTokenizer } from '../../tokenize/index.js';

/** The options whose flags come from the option table as they are. */
const TABLE_FLAGS = ['turns', 'templateDate', ...TEMPLATE_BOUND_KEYS] as const;

export function register(program: Command): void {
  const cmd = program
    .command('trajectories')
    .description(
      'Agent trajectories (SWE-agent .traj; the own files of mini-SWE-agent, OpenHands, Claude Code, Qwen Code and Terminus; ' +
        'JSONL rows in the OpenAI chat format or ShareGPT; each format told by its content) into ChatML documents ' +
        `in tool-call templates (${TEMPLATE_NAMES.join(', ')}), or in models' own chat templates (--chat-template), byte for byte ` +
        "what transformers' apply_chat_template writes. Only assistant turns are in the loss by default; turn boundaries " +
        'and the system-plus-tools header are recorded for `pack --overlong boundary`. Every sample is parsed back with its ' +
        "template's parser and kept only if it gives the same messages and calls (a chat-template sample: if its loss mask " +
        'could be placed). Before rendering, a run that did not end by ' +
        'itself, an unsolved task (--outcomes) and a malformed tool call are dropped, each counted by reason.',
    )
    .argument('<inputs...>', '.traj/.json files, .jsonl(.gz/.zst) files (rows, or one session per file), or folders of them')
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
    .option('--max-trajectory-bytes <n>', 'a .traj/.json file, session file or JSONL row over this size is dropped unread', intOption('--max-trajectory-bytes', 1), TRAJECTORIES_DEFAULTS.maxTrajectoryBytes)
    .option('--require-termination', 'drop a run that did not end by itself, where its format records the end: an exit status other than submitted, no finish, an error result (no_termination; the default)')
    .option('--no-require-termination', 'keep runs that did not end by themselves')
    .option('--require-valid-calls', 'drop a trajectory with a malformed tool call: undeclared_tool, missing_required_argument, argument_type_mismatch, unparsed_text_action, rejected_call (the default)')
    .option('--no-require-valid-calls', 'keep trajectories with malformed tool calls')
    .option('--outcomes <file>', 'a SWE-bench-style report (instance id -> resolved: report.json, a run summary with resolved_ids, or JSONL {instance_id, resolved}) joined by instance id; repeatable', (v: string, prev: string[] = []) => [...prev, v])
    .option('--require <outcome>', 'resolved: keep only trajectories whose task is known solved (dropped as unresolved or no_outcome); any: keep every outcome, recorded in meta.resolved (default: resolved with --outcomes, else any)')
    .option('--format <format>', 'chatml: rendered documents; openai: the read and filtered trajectories as OpenAI rows {messages, tools, source, meta} (no template)', 'chatml')
    .option('--count-tokens', 'count tokens by template in the manifest stats (loads the Qwen3 tokenizer)')
    .option('--quiet', 'no per-record messages or summary');
  // --turns, --template-date and the bounds on each chat-template render (a row past one is dropped as template_limit; docs/trajectories.md).
  addOptions(cmd, TRAJECTORIES_TABLE, TABLE_FLAGS);
  addSeedOption(cmd).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const raw: Record<string, unknown> = {
        templates: o.templates,
        allTemplates: o.allTemplates,
        lossOn: o.lossOn,
        maxTrajectoryBytes: o.maxTrajectoryBytes,
        requireTermination: o.requireTermination,
        requireValidCalls: o.requireValidCalls,
        outcomes: o.outcomes,
        require: o.require,
        tokenizer: o.tokenizer,
      };
      const chat = { chatTemplates: o.chatTemplate, bosToken: o.bosToken, eosToken: o.eosToken, templateKwargs: o.templateKwargs, jsonArguments: o.jsonArguments };
      for (const [k, v] of Object.entries(chat)) if (v !== undefined) raw[k] = v;
      if (raw.templates === undefined) delete raw.templates;
      const options = resolveFlags(TRAJECTORIES_TABLE, o, (bounds) => resolveTrajectoriesOptions({ ...raw, ...bounds }), TABLE_FLAGS);
      namedByFlag(() => requirePaths(pathOptions(TRAJECTORIES_TABLE, raw)));
      if (o.format !== 'chatml' && o.format !== 'openai') throw new Error(`--format must be chatml or openai, got ${JSON.stringify(o.format)}`);
      if (o.format === 'openai' && /\.parquet$/.test(o.out as string)) throw new Error('--format openai writes JSONL (.jsonl or .jsonl.gz), not Parquet');
      if (o.format === 'openai') return writeOpenaiRows(inputs, options, { ...o, out: o.out as string, seed: o.seed as number });
      if (o.countTokens) {
        const tokenizer = await loadTokenizer();
        options.countTokens = (doc) => tokenizer.encodeDoc(doc).ids.length;
      }
      const manifestOpts = { ...o, out: o.out as string, seed: o.seed as number };
      await runStage('trajectories', manifestOpts, (ctx) => trajectoriesSource(inputs, options, ctx));
    }),
  );
}

/** `--format openai`: the read and filtered trajectories as OpenAI rows, with the same ledger and manifest. */
async function writeOpenaiRows(inputs: string[], options: TrajectoriesOptions, o: { out: string; seed: number; quiet?: unknown; [k: string]: unknown }): Promise<void> {
  const ctx = defaultContext({ seed: o.seed });
  if (!o.quiet) ctx.ledger.printDrops('trajectories');
  else ctx.log = () => {};
  const w = new AtomicLineWriter(o.out);
  let written = 0;
  try {
    for await (const row of openaiRows(inputs, options, ctx)) {
      await w.write(JSON.stringify(row));
      written++;
    }
  } catch (e) {
    await w.abort();
    throw e;
  }
  await w.close();
  if (o.out !== '-') writeStageManifest(`${o.out}.manifest.json`, 'trajectories', o, ctx);
  if (!o.quiet) {
    printLedger(ctx.ledger);
    process.stderr.write(`wrote ${written} OpenAI rows to ${o.out}\n`);
  }
}
