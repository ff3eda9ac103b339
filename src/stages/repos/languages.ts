/**
 * File language by extension (and a few well-known file names): used for the language
 * mix in each document's metadata and to pick the import extractor for the dependency
 * ordering. Unknown extensions are 'other'.
 */
const BY_EXTENSION: Record<string, string> = {
  py: 'python', pyi: 'python', pyx: 'python',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
  go: 'go',
  rs: 'rust',
  java: 'java',
  c: 'c', h: 'c',
  cc: 'cpp', cpp: 'cpp', cxx: 'cpp', 'c++': 'cpp', hpp: 'cpp', hh: 'cpp', hxx: 'cpp', 'h++': 'cpp', ipp: 'cpp', inl: 'cpp', tcc: 'cpp',
  kt: 'kotlin', kts: 'kotlin', scala: 'scala', swift: 'swift', m: 'objective-c', mm: 'objective-cpp',
  cs: 'csharp', fs: 'fsharp', vb: 'visual-basic',
  rb: 'ruby', php: 'php', pl: 'perl', pm: 'perl', lua: 'lua', r: 'r', jl: 'julia', dart: 'dart',
  ex: 'elixir', exs: 'elixir', erl: 'erlang', hs: 'haskell', ml: 'ocaml', mli: 'ocaml', clj: 'clojure', el: 'emacs-lisp',
  zig: 'zig', nim: 'nim', v: 'verilog', sv: 'systemverilog', vhd: 'vhdl', f90: 'fortran', f: 'fortran',
  sh: 'shell', bash: 'shell', zsh: 'shell', fish: 'shell', ps1: 'powershell', bat: 'batch', cmd: 'batch',
  sql: 'sql', proto: 'protobuf', graphql: 'graphql', gql: 'graphql',
  html: 'html', htm: 'html', xhtml: 'html', vue: 'vue', svelte: 'svelte',
  css: 'css', scss: 'scss', sass: 'sass', less: 'less',
  json: 'json', jsonc: 'json', json5: 'json', yaml: 'yaml', yml: 'yaml', toml: 'toml', xml: 'xml', ini: 'ini', cfg: 'ini',
  md: 'markdown', markdown: 'markdown', rst: 'restructuredtext', txt: 'text', tex: 'tex',
  cmake: 'cmake', mk: 'makefile', gradle: 'gradle', dockerfile: 'dockerfile',
};

const BY_NAME: Record<string, string> = {
  Makefile: 'makefile', makefile: 'makefile', GNUmakefile: 'makefile', 'CMakeLists.txt': 'cmake',
  Dockerfile: 'dockerfile', Rakefile: 'ruby', Gemfile: 'ruby', 'BUILD': 'starlark', 'BUILD.bazel': 'starlark',
};

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The lower-cased extension without its dot ('' when there is none). */
export function extensionOf(path: string): string {
  const name = baseName(path);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

export function languageOf(path: string): string {
  const name = baseName(path);
  return BY_NAME[name] ?? BY_EXTENSION[extensionOf(path)] ?? 'other';
}
