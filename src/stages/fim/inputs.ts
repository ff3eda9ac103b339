import { readFileSync, statSync } from 'node:fs';
import { basename, relative, sep } from 'node:path';
import type { Ledger } from '../../core/ledger.js';
import { stableId } from '../../core/random.js';
import type { Doc } from '../../doc/document.js';
import { readDocumentFile } from '../../io/documents.js';
import { expandInputs, isJsonl, portableNamer } from '../../io/inputs.js';
import { decodeText } from './text.js';

const IN_GIT_DIR = /(^|[/\\])\.git[/\\]/;

/**
 * The FIM stage's inputs: JSONL documents, or plain code files and folders (each file one
 * `text` document, id from the seed and its portable name, see `portableNamer`). Files over `maxFileBytes`, binary files
 * and files that are not UTF-8 are counted and dropped; a `.git` folder is never read.
 */
export async function* fimInputDocs(inputs: string[], ledger: Ledger, seed: number, maxFileBytes: number, owns?: (key: string) => boolean): AsyncIterable<Doc> {
  const nameOf = portableNamer(inputs);
  for (const input of inputs) yield* inputDocs(input, nameOf, ledger, seed, maxFileBytes, owns);
}

/**
 * The name a sample shows for a file (`meta.path`, the path in S&R prompts): its path inside the
 * input folder, or its own name for a file given alone; never where it sits on this machine.
 */
export function sourceName(input: string, file: string): string {
  if (file === input) return basename(file);
  return relative(input, file).split(sep).join('/');
}

async function* inputDocs(input: string, nameOf: (file: string) => string, ledger: Ledger, seed: number, maxFileBytes: number, owns?: (key: string) => boolean): AsyncIterable<Doc> {
  for (const file of expandInputs([input], () => true)) {
    if (IN_GIT_DIR.test(file)) continue;
    if (isJsonl(file) || file === '-') {
      yield* readDocumentFile(file, ledger, owns, { nameOf });
      continue;
    }
    if (owns && !owns(`file:${nameOf(file)}`)) continue;
    ledger.input();
    const size = statSync(file).size;
    if (size > maxFileBytes) {
      ledger.drop('too_large', `${file}: ${size} bytes (limit ${maxFileBytes})`);
      continue;
    }
    const text = decodeText(readFileSync(file));
    if (text === undefined) {
      ledger.drop('binary', `${file}: binary or not valid UTF-8`);
      continue;
    }
    const dot = file.lastIndexOf('.');
    const ext = dot > file.lastIndexOf('/') ? file.slice(dot + 1).toLowerCase() : '';
    yield { id: stableId(seed, nameOf(file)), kind: 'text', source: file, text, meta: { path: sourceName(input, file), ...(ext ? { extension: ext } : {}) } };
  }
}
