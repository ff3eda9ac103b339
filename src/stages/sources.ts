import { countedOut, type StageContext } from '../core/stage.js';
import type { Doc } from '../doc/document.js';
import { readDocuments } from '../io/documents.js';
import { loadTokenizer } from '../tokenize/tokenizer.js';
import type { CodeOptions } from './fim/code-options.js';
import { fimInputDocs } from './fim/inputs.js';
import type { ReposOptions } from './repos/options.js';
import { serializeRepos } from './repos/serialize.js';
import type { WebOptions } from './web/options.js';
import { readWebInputs } from './web/sources.js';
import { rewriteWeb } from './web/stage.js';

/**
 * The sources, one signature: `(inputs, options, ctx) => AsyncIterable<Doc>`. Each reads only the
 * records `ctx.owns` accepts and leaves `ctx.ledger` balanced (every record in is out or dropped).
 * The edits source is in ./edits/source.ts.
 */
export async function* reposSource(inputs: string[], options: ReposOptions, ctx: StageContext): AsyncIterable<Doc> {
  const tokenizer = options.countTokens ? await loadTokenizer() : undefined;
  const countTokens = tokenizer ? (doc: Doc) => tokenizer.encodeDoc(doc).ids.length : undefined;
  yield* serializeRepos(inputs, { ...options, countTokens }, ctx);
}

/** Web pages (HTML, JSONL `html` rows, WARC) rewritten into Markdown. */
export function webSource(inputs: string[], options: WebOptions, ctx: StageContext): AsyncIterable<Doc> {
  return rewriteWeb(options)(readWebInputs(inputs, ctx, options), ctx);
}

/** Plain code files and folders (or JSONL documents), each file one `text` document. */
export function codeSource(inputs: string[], options: CodeOptions, ctx: StageContext): AsyncIterable<Doc> {
  return countedOut(fimInputDocs(inputs, ctx.ledger, ctx.seed, options.maxFileBytes, ctx.owns), ctx.ledger);
}

/** Documents as midpack writes them: JSONL (.gz/.zst), Parquet, Arrow. */
export function documentsSource(inputs: string[], _options: Record<string, never>, ctx: StageContext): AsyncIterable<Doc> {
  return countedOut(readDocuments(inputs, ctx.ledger, ctx.owns), ctx.ledger);
}
