import { nativeBinding } from '../../pack/packer.js';

/**
 * Linguist's content heuristics (lib/linguist/heuristics.yml) for the extensions several
 * languages share, written for JavaScript regular expressions: Ruby's `^` and `$` match at every
 * line (the `m` flag here), `\A` is the start of the text, and `(?i:...)` groups become
 * case-insensitive expressions. Rules are tried in order on the first 50 KiB; the first that
 * matches names the language(s); a rule without a pattern always matches. Only the common
 * shared extensions are here; on the others the first candidate in languages.yml's order stands
 * (languages.ts).
 */
export interface HeuristicRule {
  languages: readonly string[];
  matches: (text: string) => boolean;
}

export interface Heuristic {
  extensions: readonly string[];
  rules: readonly HeuristicRule[];
  /** The first of `rules` that matches, where a heuristic has a faster way than trying each in turn. */
  firstMatch?: (text: string) => HeuristicRule | undefined;
}

interface Tester {
  test(text: string): boolean;
}
type Pattern = Tester | readonly Tester[];

/** A pattern's test, its list made once (rules run on every file of a shared extension). */
const any = (p: Pattern) => {
  const list: readonly Tester[] = Array.isArray(p) ? (p as readonly Tester[]) : [p as Tester];
  return (text: string) => list.some((r) => r.test(text));
};
/**
 * A pattern tried only when the text holds one of its words, each a literal the pattern cannot
 * match without: a multiline `^[ \t]*word` pattern is tried at every position of a 50 KiB header,
 * and the literal search (`includes`, several times faster than a regular expression's scan)
 * skips most of them.
 */
const guarded = (words: readonly string[], re: RegExp): Tester => ({
  test: (text) => words.some((w) => text.includes(w)) && re.test(text),
});
const rule = (language: string | string[], pattern?: Pattern, negative?: Pattern): HeuristicRule => {
  const positive = pattern === undefined ? undefined : any(pattern);
  const excluded = negative === undefined ? undefined : any(negative);
  return {
    languages: Array.isArray(language) ? language : [language],
    matches: (text) => (positive === undefined || positive(text)) && (excluded === undefined || !excluded(text)),
  };
};
const all = (language: string, ...tests: ((text: string) => boolean)[]): HeuristicRule => ({ languages: [language], matches: (text) => tests.every((t) => t(text)) });
const not = (p: Pattern) => {
  const matches = any(p);
  return (text: string) => !matches(text);
};

/**
 * Linguist's multiline `^(?:a|b)` patterns, for one scan of the text: `/^(?:a|b)/m` is
 * `/(?:^|[\n\r\u2028\u2029])(?:a|b)/` (JavaScript's multiline `^` is the start or just after a
 * line terminator), which V8 runs by looking for the terminators instead of trying `^` at every
 * position. A rule's several patterns joined in one alternation match where any of them does,
 * so a header is scanned twice instead of once a pattern (the `.h` rules, 2.4 times faster).
 */
const LINE_END = String.raw`[\n\r\u2028\u2029]`;
const atLineStart = (...alternatives: string[]) => new RegExp(`(?:^|${LINE_END})(?:${alternatives.join('|')})`);

/** Linguist's `.h` patterns: Objective-C's, then C++'s line-anchored ones and its others. */
const OBJECTIVE_C_LINE = String.raw`(?:@(?:interface|class|protocol|property|end|synchronised|selector|implementation)\b|#import\s+.+\.h[">])`;
const OBJECTIVE_C = atLineStart(String.raw`\s*${OBJECTIVE_C_LINE}`);
/** C++'s line-anchored alternatives: after any white space (`\s*`), and after spaces and tabs only. */
const CPP_AFTER_SPACE = [
  String.raw`#\s*include <(?:cstdint|string|vector|map|list|array|bitset|queue|stack|forward_list|unordered_map|unordered_set|(?:i|o|io)stream)>`,
  String.raw`template\s*<`,
];
const CPP_AFTER_INDENT = [
  String.raw`(?:try|constexpr)`,
  String.raw`catch\s*\(`,
  String.raw`(?:class|(?:using[ \t]+)?namespace)\s+\w+`,
  // Linguist's `(private|public|protected):$`: `$` in multiline mode is the end or a line terminator.
  String.raw`(?:private|public|protected):(?=${LINE_END}|$)`,
];
const CPP_ANYWHERE = /__has_cpp_attribute|__cplusplus >|std::\w/;
const CPP = [atLineStart(...CPP_AFTER_SPACE.map((a) => String.raw`\s*${a}`), ...CPP_AFTER_INDENT.map((a) => String.raw`[ \t]*${a}`)), CPP_ANYWHERE];
const HEADER_RULES = [rule('Objective-C', OBJECTIVE_C), rule('C++', CPP), rule('C')] as const;

/**
 * The `.h` rules' answer (Objective-C, else C++, else C) from the native addon's one pass over
 * the text (native/include/header_lines.hpp), which compares each line's first word with these
 * expressions' alternatives: a C header matches none and is read to its end, which the
 * expressions did at 1.2-1.4 ns a character (most of the language resolution's cost).
 */
const headerRule = (text: string): HeuristicRule => {
  const native = nativeBinding();
  // An addon built before the native pass (a stale native/build): the expressions, in Linguist's order.
  if (native.headerLanguage === undefined) return HEADER_RULES.find((r) => r.matches(text))!;
  return HEADER_RULES[native.headerLanguage(text)]!;
};

const PERL = [
  /\buse\s+(?:strict\b|v?5\b)/m,
  guarded(['use'], /^\s*use\s+(?:constant|overload)\b/m),
  guarded(['EXPORT'], /^\s*(?:\*|(?:our\s*)?@)EXPORT\s*=/m),
  guarded(['package'], /^\s*package\s+[^\W\d]\w*(?:::\w+)*\s*(?:[;{]|\sv?\d)/m),
  guarded(['->'], /[\s$][^\W\d]\w*(?::\w+)*->[a-zA-Z_[({]/m),
];
const RAKU = guarded(['use', 'module', 'class'], /^\s*(?:use\s+v6\b|\bmodule\b|\b(?:my\s+)?class\b)/m);
const USE_V6 = guarded(['v6'], /^\s*use\s+v6\b/m);
const FORTRAN = /^(?:[cC*][^abd-zABD-Z]|      (subroutine|program|end|data)\s|\s*!)/im;
/**
 * Prolog's `^[^#]*:-` (multiline): a `:-` with no `#` before it on its line. `[^#]*` also runs
 * over line ends, so the regular expression retries each line start up to the next `#`; this one
 * stops at the line's end and means the same.
 */
const PROLOG_RULE = guarded([':-'], atLineStart(String.raw`[^#\n\r\u2028\u2029]*:-`));
const JSON_START = /^\s*[{[]/;
const KEY_EQUALS_VALUE = /^[^#!;][^=]*=/m;

export const LINGUIST_HEURISTICS: readonly Heuristic[] = [
  { extensions: ['.cl'], rules: [rule('Common Lisp', /^\s*\((?:defun|in-package|defpackage) /im), rule('Cool', /^class/m), rule('OpenCL', /\/\* |\/\/ |^\}/m)] },
  { extensions: ['.cs'], rules: [rule('Smalltalk', /![\w\s]+methodsFor: /m), rule('C#', /^\s*(using\s+[A-Z][\s\w.]+;|namespace\s*[\w.]+\s*(\{|;)|\/\/)/m)] },
  {
    extensions: ['.d'],
    rules: [
      rule('D', /^module\s+[\w.]*\s*;|import\s+[\w\s,.:]*;|\w+\s+\w+\s*\(.*\)(?:\(.*\))?\s*\{[^}]*\}|unittest\s*(?:\(.*\))?\s*\{[^}]*\}/m),
      rule('DTrace', /^(\w+:\w*:\w*:\w*|BEGIN|END|provider\s+|(tick|profile)-\w+\s+\{[^}]*\}|#pragma\s+D\s+(option|attributes|depends_on)\s|#pragma\s+ident\s)/m),
      rule('Makefile', /([/\\].*:\s+.*\s\\$|: \\$|^[ %]:|^[\w\s/\\.]+\w+\.\w+\s*:\s+[\w\s/\\.]+\w+\.\w+)/m),
    ],
  },
  { extensions: ['.es'], rules: [rule('Erlang', /^\s*(?:%%|main\s*\(.*?\)\s*->)/m), rule('JavaScript', /\/\/|["']use strict["']|export\s+default\s|\/\*[\s\S]*?\*\//m)] },
  { extensions: ['.ex'], rules: [rule('Elixir', [/^\s*@moduledoc\s/m, /^\s*(?:cond|import|quote|unless)\s/m, /^\s*def(?:exception|impl|macro|module|protocol)[(\s]/m])] },
  { extensions: ['.f'], rules: [rule('Forth', /^: /m), rule('Filebench WML', /flowop/m), rule('Fortran', FORTRAN)] },
  { extensions: ['.for'], rules: [rule('Forth', /^: /m), rule('Fortran', FORTRAN)] },
  {
    extensions: ['.fs'],
    rules: [
      rule('Forth', /^(: |new-device)/m),
      rule('F#', /^\s*(#light|import|let|module|namespace|open|type)/m),
      rule('GLSL', /^\s*(#version|precision|uniform|varying|vec[234])/m),
      rule('Filterscript', /#include|#pragma\s+(rs|version)|__attribute__/m),
    ],
  },
  { extensions: ['.gs'], rules: [rule('GLSL', /^#version\s+[0-9]+\b/m), rule('Gosu', /^uses (java|gw)\./m), rule('Genie', /^\[indent=[0-9]+\]/m)] },
  { extensions: ['.h'], rules: HEADER_RULES, firstMatch: headerRule },
  { extensions: ['.hh'], rules: [rule('Hack', /<\?hh/m)] },
  { extensions: ['.html'], rules: [rule('Ecmarkup', /<emu-(?:alg|annex|biblio|clause|eqn|example|figure|gann|gmod|gprose|grammar|intro|not-ref|note|nt|prodref|production|rhs|table|t|xref)(?:$|\s|>)/m), rule('HTML')] },
  {
    extensions: ['.inc'],
    rules: [
      rule('PHP', /^<\?(?:php)?/m),
      rule('POV-Ray SDL', /^\s*#(declare|local|macro|while)\s/m),
      rule('Pascal', [/^\s*\{\$(?:mode|ifdef|undef|define)[ ]+[a-z0-9_]+\}/im, /^\s*end[.;]\s*$/m]),
      rule('BitBake', /^inherit(\s+[\w.-]+)+\s*$/m),
      rule('Assembly', [/^[^"m]*mov\s+[^\s]+,/im, /^\s+db\s+[a-z\d]/im]),
    ],
  },
  { extensions: ['.json'], rules: [rule('OASv2-json', /"swagger":\s?"2.[0-9.]+"/m), rule('OASv3-json', /"openapi":\s?"3.[0-9.]+"/m), rule('JSON')] },
  { extensions: ['.l'], rules: [rule('Common Lisp', /\(def(un|macro)\s/m), rule('Lex', /^(%[%{}]xs|<.*>)/m), rule('Roff', /^\.[A-Za-z]{2}(\s|$)/m), rule('PicoLisp', /^\((de|class|rel|code|data|must)\s/m)] },
  { extensions: ['.ls'], rules: [rule('LoomScript', /^\s*package\s*[\w./*\s]*\s*\{/m), rule('LiveScript')] },
  { extensions: ['.lsp', '.lisp'], rules: [rule('Common Lisp', /^\s*\((?:defun|in-package|defpackage) /im), rule('NewLisp', /^\s*\(define /m)] },
  {
    extensions: ['.m'],
    rules: [
      rule('Objective-C', OBJECTIVE_C),
      rule('Mercury', /:- module/m),
      rule('MUF', /^: /m),
      rule('M', /^\s*;/m),
      all('Wolfram Language', any(/\(\*/m), any(/\*\)$/m)),
      rule('MATLAB', /^\s*%/m),
      rule('Limbo', /^\w+\s*:\s*module\s*\{/m),
    ],
  },
  { extensions: ['.md'], rules: [rule('Markdown', [/(^[-A-Za-z0-9=#!*[|>])|<\//m, /^$/]), rule('GCC Machine Description', /^(;;|\(define_)/m), rule('Markdown')] },
  { extensions: ['.ml'], rules: [rule('OCaml', /(^\s*module)|let rec |match\s+(\S+\s)+with/m), rule('Standard ML', /=> |case\s+(\S+\s)+of/m)] },
  { extensions: ['.mod'], rules: [rule('XML', /<!ENTITY /m), rule('NMODL', /\b(NEURON|INITIAL|UNITS)\b/m), rule('Modula-2', /^\s*(?:MODULE|END) [\w.]+;/im), rule(['Linux Kernel Module', 'AMPL'])] },
  { extensions: ['.ms'], rules: [rule('Roff', /^[.'][A-Za-z]{2}(\s|$)/m), all('Unix Assembly', not(/\/\*/m), any(/^\s*\.(?:include\s|globa?l\s|[A-Za-z][_A-Za-z0-9]*:)/m)), rule('MAXScript')] },
  { extensions: ['.n'], rules: [rule('Roff', /^[.']/m), rule('Nemerle', /^(module|namespace|using)\s/m)] },
  { extensions: ['.p'], rules: [rule('Gnuplot', [/^s?plot\b/m, /^set\s+(term|terminal|out|output|[xy]tics|[xy]label|[xy]range|style)\b/m]), rule('OpenEdge ABL')] },
  { extensions: ['.php'], rules: [rule('Hack', /<\?hh/m), rule('PHP', /<\?[^h]/m)] },
  { extensions: ['.pl'], rules: [rule('Prolog', PROLOG_RULE), all('Perl', not(USE_V6), any(PERL)), rule('Raku', RAKU)] },
  { extensions: ['.pm'], rules: [all('Perl', not(USE_V6), any(PERL)), rule('Raku', RAKU), rule('X PixMap', /^\s*\/\* XPM \*\//m)] },
  { extensions: ['.pp'], rules: [rule('Pascal', /^\s*end[.;]/m), rule('Puppet', /^\s+\w+\s+=>\s/m)] },
  {
    extensions: ['.pro'],
    rules: [
      rule('Proguard', /^-(include\b.*\.pro$|keep\b|keepclassmembers\b|keepattributes\b)/m),
      rule('Prolog', /^[^[#]+:-/m),
      rule('INI', /last_client=/m),
      all('QMake', any(/HEADERS/m), any(/SOURCES/m)),
      rule('IDL', /^\s*(?:function|pro|compile_opt) \w[ \w,:]*$/im),
    ],
  },
  {
    extensions: ['.properties'],
    rules: [
      all('INI', any(KEY_EQUALS_VALUE), any(/^[;[]/m)),
      all('Java Properties', any(KEY_EQUALS_VALUE), any(/^[#!]/m)),
      rule('INI', KEY_EQUALS_VALUE),
      rule('Java Properties', /^[^#!][^:]*:/m),
    ],
  },
  { extensions: ['.r'], rules: [rule('Rebol', /\bRebol\b/im), rule('R', /<-|^\s*#/m)] },
  { extensions: ['.rs'], rules: [rule('Rust', /^(use |fn |mod |pub |macro_rules|impl|#!?\[)/m), rule('RenderScript', /#include|#pragma\s+(rs|version)|__attribute__/m), rule('XML', /^\s*<\?xml/m)] },
  { extensions: ['.s'], rules: [rule('Unix Assembly', /mov[lq]?\s+[%$]/im), rule('Assembly', /mov\s+[^\s%]{2,},/im)] },
  { extensions: ['.sc'], rules: [rule('SuperCollider', /\^(this|super)\.|^\s*~\w+\s*=\./im), rule('Scala', /(^\s*import (scala|java)\.|^\s*class\b)/m)] },
  {
    extensions: ['.sql'],
    rules: [
      rule('PLpgSQL', /^\\i\b|AS\s+\$\$|LANGUAGE\s+'?plpgsql'?|BEGIN(\s+WORK)?\s*;/im),
      rule('SQLPL', /ALTER\s+MODULE|MODE\s+DB2SQL|\bSYS(CAT|PROC)\.|ASSOCIATE\s+RESULT\s+SET|\bEND!\s*$/im),
      rule('PLSQL', /\$\$PLSQL_|XMLTYPE|systimestamp|\.nextval|CONNECT\s+BY|AUTHID\s+(DEFINER|CURRENT_USER)|constructor\W+function/im),
      rule('TSQL', /^\s*GO\b|BEGIN(\s+TRY|\s+CATCH)|OUTPUT\s+INSERTED|DECLARE\s+@|\[dbo\]/im),
      rule('SQL'),
    ],
  },
  { extensions: ['.t'], rules: [all('Perl', not(USE_V6), any(PERL)), rule('Raku', /^\s*(?:use\s+v6\b|\bmodule\b|\bmy\s+class\b)/m), rule('Turing', /^\s*%[ \t]+|^\s*var\s+\w+(\s*:\s*\w+)?\s*:=\s*\w+/m)] },
  { extensions: ['.tpl'], rules: [rule('Go Template', /\{\{-?\s*(`?"\\?"?|\/\*\s|\w*)\b/m), rule('Smarty', /(?<!\{)\{(\*\s|\$|\/)?\w*\b/m)] },
  { extensions: ['.ts'], rules: [rule('XML', /<TS\b/m), rule('TypeScript')] },
  { extensions: ['.tsx'], rules: [rule('XML', /^\s*<\?xml\s+version/im), rule('TSX')] },
  {
    extensions: ['.txt'],
    rules: [
      rule('Vim Help File', /(?:^|[ \t])(?:vi|Vim)(?:m[<=>]?[0-9]+|m)?:.*\b(?:filetype|ft|syntax)[ \t]*=help\b/m),
      rule('Adblock Filter List', /^\[(?:[Aa]d[Bb]lock(?:[ \t][Pp]lus)?|u[Bb]lock(?:[ \t][Oo]rigin)?|[Aa]d[Gg]uard)(?:[ \t]\d+(?:\.\d+)*)?\]/),
      rule('Text'),
    ],
  },
  {
    extensions: ['.v'],
    rules: [
      rule('Rocq Prover', /(?:^|\s)(?:Proof|Qed)\.(?:$|\s)|(?:^|\s)Require[ \t]+(Import|Export)\s/m),
      rule('Verilog', /^[ \t]*module\s+[^\s()]+\s+#?\(|^[ \t]*`(?:define|ifdef|ifndef|include|timescale)|^[ \t]*always[ \t]+@|^[ \t]*initial[ \t]+(begin|@)/m),
      rule('V', /\$(?:if|else)[ \t]|^[ \t]*fn\s+[^\s()]+\(.*?\).*?\{|^[ \t]*for\s*\{/m),
    ],
  },
  { extensions: ['.x'], rules: [rule('RPC', /\b(program|version)\s+\w+\s*\{|\bunion\s+\w+\s+switch\s*\(/m), rule('Logos', /^%(end|ctor|hook|group)\b/m), rule('Linker Script', /OUTPUT_ARCH\(|OUTPUT_FORMAT\(|SECTIONS/m)] },
  {
    extensions: ['.yaml', '.yml'],
    rules: [rule('MiniYAML', /^\t+.*?[^\s:].*?:/m, /---/m), rule('OASv2-yaml', /swagger:\s?'?"?2.[0-9.]+'?"?/m), rule('OASv3-yaml', /openapi:\s?'?"?3.[0-9.]+'?"?/m), rule('YAML')],
  },
  { extensions: ['.yy'], rules: [rule('JSON', JSON_START), rule('Yacc')] },
];
