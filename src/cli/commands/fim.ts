import { InvalidArgumentError, type Command } from 'commander';
import { parseWeights } from '../../core/weights.js';
import { action, addSeedOption, floatOption, intOption, runStage } from '../common.js';
import { DEFAULT_FIM_OPTIONS, FIM_FORMATS, FIM_SPAN_CHOICES, fimStage, type FimOptions } from '../../stages/fim/stage.js';
import { addFunctionAwareOptions, functionAwareFromCli } from './fim-function-aware.js';
import { fimInputDocs } from '../../stages/fim/inputs.js';

/** "a=1,b=2" (weights) or "a,b" (weight 1 each), every key one of `keys`. */
export function weightsOption<K extends string>(name: string, keys: readonly K[]) {
  return (v: string): Partial<Record<K, number>> => {
    try {
      return parseWeights(v, keys, name);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
  };
}

const fmtWeights = (w: Record<string, number>) => Object.entries(w).map(([k, n]) => `${k}=${n}`).join(',');

export function register(program: Command): void {
  const cmd = program
    .command('fim')
    .description(
      'Turn code documents into FIM (PSM/SPM), chat-FIM and search-and-replace FIM samples, each verified; ' +
        'documents not chosen (1 - fim rate) pass through unchanged',
    )
    .argument('<inputs...>', 'JSONL documents (text or repo kind), or code files and folders')
    .requiredOption('--out <file>', 'output JSONL ("-" for stdout); OUT.manifest.json is written beside it')
    .option('--fim-rate <x>', 'share of documents transformed', floatOption('--fim-rate', 0, 1), DEFAULT_FIM_OPTIONS.fimRate)
    .option('--spm-rate <x>', 'share of FIM and chat-FIM samples in SPM order', floatOption('--spm-rate', 0, 1), DEFAULT_FIM_OPTIONS.spmRate)
    .option('--formats <weights>', `sample formats by weight (${FIM_FORMATS.join(', ')})`, weightsOption('--formats', FIM_FORMATS), DEFAULT_FIM_OPTIONS.formats)
    .option('--spans <weights>', `span choice by weight (${FIM_SPAN_CHOICES.join(', ')})`, weightsOption('--spans', FIM_SPAN_CHOICES), DEFAULT_FIM_OPTIONS.spans)
    .option('--mask-prompt', 'exclude the prompt of chat-FIM and S&R FIM samples from the loss', false)
    .option('--placeholder <text>', 'S&R FIM: text marking where the middle was', DEFAULT_FIM_OPTIONS.placeholder)
    .option('--no-placeholder', 'S&R FIM: remove the middle without a mark')
    .option('--max-context-lines <n>', 'S&R: context lines a SEARCH may take on each side to become unique', intOption('--max-context-lines'), DEFAULT_FIM_OPTIONS.maxContextLines)
    .option('--unit-max-chars <n>', 'files longer than this are not parsed for unit spans (line instead) nor for function-aware graphs', intOption('--unit-max-chars'), DEFAULT_FIM_OPTIONS.unitMaxChars)
    .option('--max-file-bytes <n>', 'code file inputs over this size are dropped (too_large)', intOption('--max-file-bytes', 1), 4 << 20)
    .option('--quiet', 'no per-record messages or summary');
  addFunctionAwareOptions(cmd);
  addSeedOption(cmd).action(
    action(async (inputs: string[], o: Record<string, unknown>) => {
      const opts: Partial<FimOptions> = {
        fimRate: o.fimRate as number,
        spmRate: o.spmRate as number,
        formats: { fim: 0, chat_fim: 0, sr_fim: 0, ...(o.formats as object) },
        spans: { char: 0, line: 0, unit: 0, ...(o.spans as object) },
        maskPrompt: o.maskPrompt as boolean,
        placeholder: o.placeholder === false ? '' : (o.placeholder as string),
        maxContextLines: o.maxContextLines as number,
        unitMaxChars: o.unitMaxChars as number,
        functionAware: functionAwareFromCli(o),
      };
      const manifestOpts = { ...o, out: o.out as string, seed: o.seed as number, formats: fmtWeights(opts.formats!), spans: fmtWeights(opts.spans!) };
      await runStage('fim', manifestOpts, fimStage(opts), (ctx) => fimInputDocs(inputs, ctx.ledger, ctx.seed, o.maxFileBytes as number));
    }),
  );
}
