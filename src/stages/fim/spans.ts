import type { Tree } from '@lezer/common';
import { parser as jsParser } from '@lezer/javascript';
import { parser as pyParser } from '@lezer/python';
import type { Rng } from '../../core/random.js';
import type { Span } from '../../doc/document.js';
import { lineBoundaries } from './text.js';

/**
 * Where the middle of a FIM sample comes from:
 * - `char`: two uniform split points (the bigcode convention), never inside a surrogate pair;
 * - `line`: whole lines (two uniform line boundaries);
 * - `unit`: one whole function, method, class or block found by a real parser (lezer).
 * Empty middles are allowed (both points equal), as in the bigcode FIM work.
 */
export const SPAN_MODES = ['char', 'line', 'unit'] as const;
export type SpanMode = (typeof SPAN_MODES)[number];

export type UnitLanguage = 'python' | 'javascript' | 'jsx' | 'typescript' | 'tsx';

const EXTENSION_LANGUAGE: Record<string, UnitLanguage> = {
  py: 'python',
  pyi: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'jsx',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
};

const LANGUAGE_NAMES: Record<string, UnitLanguage> = {
  python: 'python',
  javascript: 'javascript',
  js: 'javascript',
  jsx: 'jsx',
  typescript: 'typescript',
  ts: 'typescript',
  tsx: 'tsx',
};

/** The parser language for a file: from its declared language, else its extension. */
export function unitLanguage(path: string, declared?: unknown): UnitLanguage | undefined {
  if (typeof declared === 'string') {
    const byName = LANGUAGE_NAMES[declared.toLowerCase()];
    if (byName) return byName;
  }
  const dot = path.lastIndexOf('.');
  return dot < 0 ? undefined : EXTENSION_LANGUAGE[path.slice(dot + 1).toLowerCase()];
}

const JS_UNITS = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunction',
  'ClassDeclaration',
  'ClassExpression',
  'MethodDeclaration',
  'Block',
  'InterfaceDeclaration',
  'EnumDeclaration',
]);
const PY_UNITS = new Set([
  'FunctionDefinition',
  'ClassDefinition',
  'DecoratedStatement',
  'IfStatement',
  'ForStatement',
  'WhileStatement',
  'TryStatement',
  'WithStatement',
  'MatchStatement',
]);

/** The lezer tree of a file (Python, or JavaScript in its ts/jsx dialect). */
export function parseCode(text: string, lang: UnitLanguage): Tree {
  if (lang === 'python') return pyParser.parse(text);
  const dialect = lang === 'typescript' ? 'ts' : lang === 'tsx' ? 'ts jsx' : lang === 'jsx' ? 'jsx' : '';
  return (dialect ? jsParser.configure({ dialect }) : jsParser).parse(text);
}

/**
 * The syntactic units of a file, in source order, each trimmed of trailing whitespace
 * (Python's grammar ends a body after its newline, JavaScript's at the brace).
 */
export function findUnits(text: string, lang: UnitLanguage): Span[] {
  const kinds = lang === 'python' ? PY_UNITS : JS_UNITS;
  const units: Span[] = [];
  parseCode(text, lang).iterate({
    enter(node) {
      if (!kinds.has(node.name)) return;
      let end = node.to;
      while (end > node.from && /\s/.test(text[end - 1]!)) end--;
      if (end > node.from) units.push([node.from, end]);
    },
  });
  return units;
}

/** Moves an offset off the low half of a surrogate pair so no split cuts a character in two. */
function onCharBoundary(text: string, at: number): number {
  const c = text.charCodeAt(at);
  const p = text.charCodeAt(at - 1);
  return at > 0 && c >= 0xdc00 && c <= 0xdfff && p >= 0xd800 && p <= 0xdbff ? at - 1 : at;
}

function sortedPair(a: number, b: number): Span {
  return a <= b ? [a, b] : [b, a];
}

export function charSpan(text: string, rng: Rng): Span {
  const a = onCharBoundary(text, rng.int(0, text.length + 1));
  const b = onCharBoundary(text, rng.int(0, text.length + 1));
  return sortedPair(a, b);
}

export function lineSpan(text: string, rng: Rng): Span {
  const bounds = lineBoundaries(text);
  return sortedPair(bounds[rng.int(0, bounds.length)]!, bounds[rng.int(0, bounds.length)]!);
}

export interface ChosenSpan {
  span: Span;
  /** The mode actually used: `unit` falls back to `line` for other languages or files without units. */
  mode: SpanMode;
  fallback?: 'unit_unsupported_language' | 'unit_none_found' | 'unit_too_large';
}

export interface SpanOptions {
  /** Files larger than this (UTF-16 units) are not parsed: `unit` falls back to `line`. */
  unitMaxChars: number;
}

export function chooseSpan(text: string, mode: SpanMode, rng: Rng, lang: UnitLanguage | undefined, opts: SpanOptions): ChosenSpan {
  if (mode === 'char') return { span: charSpan(text, rng), mode };
  if (mode === 'unit') {
    let fallback: ChosenSpan['fallback'];
    if (!lang) fallback = 'unit_unsupported_language';
    else if (text.length > opts.unitMaxChars) fallback = 'unit_too_large';
    else {
      const units = findUnits(text, lang);
      if (units.length) return { span: units[rng.int(0, units.length)]!, mode };
      fallback = 'unit_none_found';
    }
    return { span: lineSpan(text, rng), mode: 'line', fallback };
  }
  return { span: lineSpan(text, rng), mode };
}
