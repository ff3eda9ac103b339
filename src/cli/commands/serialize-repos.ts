import type { Command } from 'commander';
import { action, addSeedOption, floatOption, intOption, runStage } from '../common.js';
import { DEFAULT_SERIALIZE, parseOrderWeights, serializeRepos, type SerializeOptions } from '../../stages/repos/index.js';
import { loadTokenizer } from '../../tokenize/index.js';

interface Options {
  out: string;
  seed: number;
  order: string;
  minFiles: number;
  maxFileBytes: number;
  layout: SerializeOptions['layout'];
  groupMemory: number;
  treeRate: number;
  maxDocChars: number;
  workDir?: string;
  countTokens?: boolean;
  quiet?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('serialize-repos')
    .description(
      'Serialize repositories into documents in the Qwen2.5-Coder repository format (<|repo_name|>, <|file_sep|>). ' +
        'INPUT: a folder of repositories, one repository, a git checkout (files tracked at HEAD), or JSONL/Parquet file rows ' +
        'with repo_name, path, content.',
    )
    .argument('<input...>', 'folders, git checkouts, .jsonl(.gz/.zst) or .parquet row files')
    .requiredOption('--out <file>', 'output JSONL of repo documents (- for stdout); OUT.manifest.json gets the accounting')
    .option('--order <weights>', 'orderings chosen per repository by seeded weight: alpha, dependency, random', 'alpha=0.3,dependency=0.5,random=0.2')
    .option('--min-files <n>', 'drop repositories with fewer kept files', intOption('--min-files', 1), DEFAULT_SERIALIZE.minFiles)
    .option('--max-file-bytes <n>', 'drop files larger than this (oversize)', intOption('--max-file-bytes', 1), DEFAULT_SERIALIZE.maxFileBytes)
    .option('--layout <layout>', 'auto | repo (each input folder is one repository) | collection (each subfolder is one)', 'auto')
    .option('--group-memory <bytes>', 'memory for grouping file rows by repository before spilling to disk', intOption('--group-memory', 1), DEFAULT_SERIALIZE.groupMemoryBytes)
    .option('--tree-rate <p>', 'share of repositories whose header lists the directory tree', floatOption('--tree-rate', 0, 1), 0)
    .option('--max-doc-chars <n>', 'a repository longer than this is written as parts (meta.part/meta.parts) cut at file boundaries, each with the header; default about 2 bins of code', intOption('--max-doc-chars', 1024), DEFAULT_SERIALIZE.maxDocChars)
    .option('--work-dir <dir>', 'where row grouping spills (default: the system temp folder)')
    .option('--count-tokens', 'count tokens by ordering and language in the manifest stats (loads the Qwen3 tokenizer)')
    .option('--quiet', 'print no per-file drop messages');
  addSeedOption(cmd).action(
    action(async (inputs: string[], opts: Options) => {
      if (!['auto', 'repo', 'collection'].includes(opts.layout)) throw new Error(`--layout must be auto, repo or collection, got "${opts.layout}"`);
      const order = parseOrderWeights(opts.order);
      const tokenizer = opts.countTokens ? await loadTokenizer() : undefined;
      const options: Partial<SerializeOptions> = {
        order,
        minFiles: opts.minFiles,
        maxFileBytes: opts.maxFileBytes,
        layout: opts.layout,
        groupMemoryBytes: opts.groupMemory,
        treeRate: opts.treeRate,
        maxDocChars: opts.maxDocChars,
        workDir: opts.workDir,
        countTokens: tokenizer ? (doc) => tokenizer.encodeDoc(doc).ids.length : undefined,
      };
      await runStage('serialize-repos', opts as unknown as Options & Record<string, unknown>, (docs) => docs, (ctx) => serializeRepos(inputs, options, ctx));
    }),
  );
}
