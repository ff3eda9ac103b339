import { LINGUIST_LANGUAGES } from './linguist-table.js';
import { LINGUIST_HEURISTICS } from './heuristics.js';

/**
 * File languages named by GitHub Linguist's data (the npm package `linguist-languages`, the
 * languages.yml that Linguist, The Stack and StarCoder label files with): Linguist's own names
 * (`C++`, `Emacs Lisp`, `Jupyter Notebook`). A file is resolved in Linguist's order: its file
 * name (`Makefile`, `CMakeLists.txt`), then its shebang interpreter (`#!/usr/bin/env python3`),
 * then its extension (the longest one with languages: `.h.in` before `.in`), an XML declaration,
 * then, where an extension is shared (`.h`, `.m`, `.pl`, `.v`, `.ts`), the content heuristics of
 * Linguist's heuristics.yml (heuristics.ts, on the first 50 KiB). Each step narrows the
 * candidates of the one before. Where several remain, Linguist runs its Bayesian classifier; we
 * do not, and take the first candidate in languages.yml's order (what Linguist's detection gives
 * without it). A file no step names is `other`.
 */
export const OTHER_LANGUAGE = 'other';

export interface LanguageData {
  name: string;
  extensions?: readonly string[];
  filenames?: readonly string[];
  interpreters?: readonly string[];
}

/** Every Linguist language in the package's order (linguist-table.ts, generated from the package: one module where the package is 834). */
const ALL: readonly LanguageData[] = LINGUIST_LANGUAGES;
const ORDER = new Map(ALL.map((l, i) => [l.name, i]));

function indexBy(key: 'extensions' | 'filenames' | 'interpreters', fold: (s: string) => string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const l of ALL) for (const v of l[key] ?? []) {
    const list = map.get(fold(v)) ?? [];
    if (!list.includes(l.name)) list.push(l.name);
    map.set(fold(v), list);
  }
  return map;
}

const BY_EXTENSION = indexBy('extensions', (s) => s.toLowerCase());
const BY_FILENAME = indexBy('filenames', (s) => s);
const BY_INTERPRETER = indexBy('interpreters', (s) => s);

/** The number of languages in Linguist's data. */
export const LINGUIST_LANGUAGE_COUNT = ALL.length;

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The lower-cased extension without its dot ('' when there is none). */
export function extensionOf(path: string): string {
  const name = baseName(path);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** The languages of the longest extension of the name that has some (`.d.ts`, then `.ts`), as Linguist looks them up. */
export function extensionCandidates(path: string): readonly string[] {
  const name = baseName(path).toLowerCase();
  for (let dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.', dot + 1)) {
    const found = BY_EXTENSION.get(name.slice(dot));
    if (found) return found;
  }
  return [];
}

/** The interpreter a shebang line names: `#!/usr/bin/env -S python3 -u` is `python3`. */
export function shebangInterpreter(content: string): string | undefined {
  if (!content.startsWith('#!')) return undefined;
  const end = content.indexOf('\n');
  const tokens = content.slice(2, end < 0 ? undefined : end).trim().split(/\s+/).filter(Boolean);
  if (!tokens.length) return undefined;
  let script = baseName(tokens.shift()!);
  if (script === 'env') {
    while (tokens.length && (tokens[0]!.startsWith('-') || tokens[0]!.includes('='))) tokens.shift();
    script = tokens.length ? baseName(tokens[0]!) : script;
  }
  return script || undefined;
}

function interpreterCandidates(content: string): readonly string[] {
  const script = shebangInterpreter(content);
  if (!script) return [];
  return BY_INTERPRETER.get(script) ?? BY_INTERPRETER.get(script.replace(/[\d.]+$/, '')) ?? [];
}

/** Linguist's step: a non-empty answer narrows the candidates (or is one), an empty one leaves them. */
function narrow(candidates: readonly string[], found: readonly string[]): readonly string[] {
  if (!found.length) return candidates;
  if (!candidates.length) return found;
  const both = found.filter((l) => candidates.includes(l));
  return both.length ? both : candidates;
}

/** The heuristics' answer for a shared extension, or none. */
function heuristicCandidates(path: string, content: string, candidates: readonly string[]): readonly string[] {
  const name = baseName(path).toLowerCase();
  const data = content.length > 51200 ? content.slice(0, 51200) : content;
  for (const h of LINGUIST_HEURISTICS) {
    if (!h.extensions.some((e) => name.endsWith(e))) continue;
    const rule = h.firstMatch ? h.firstMatch(data) : h.rules.find((r) => r.matches(data));
    return rule ? rule.languages.filter((l) => candidates.length === 0 || candidates.includes(l)) : [];
  }
  return [];
}

/** The Linguist language of a file from its path and, when given, its content (shebang, heuristics). */
export function languageOf(path: string, content?: string): string {
  let candidates: readonly string[] = BY_FILENAME.get(baseName(path)) ?? [];
  if (candidates.length === 1) return candidates[0]!;
  if (content !== undefined) {
    candidates = narrow(candidates, interpreterCandidates(content));
    if (candidates.length === 1) return candidates[0]!;
  }
  candidates = narrow(candidates, extensionCandidates(path));
  if (candidates.length === 1) return candidates[0]!;
  if (content === undefined) return first(candidates);
  if (candidates.length === 0) return /^\s*<\?xml\s/.test(content.slice(0, 200)) ? 'XML' : OTHER_LANGUAGE;
  return first(narrow(candidates, heuristicCandidates(path, content, candidates)));
}

const first = (candidates: readonly string[]) => (candidates.length ? [...candidates].sort((a, b) => ORDER.get(a)! - ORDER.get(b)!)[0]! : OTHER_LANGUAGE);

/** Languages of file objects already resolved: a repository's files are named for its mix, its parts and its import graph. */
const resolved = new WeakMap<object, string>();

/** The language of a file object (path and content), resolved once per object. */
export function fileLanguage(file: { path: string; content?: string }): string {
  let lang = resolved.get(file);
  if (lang === undefined) resolved.set(file, (lang = languageOf(file.path, file.content)));
  return lang;
}
