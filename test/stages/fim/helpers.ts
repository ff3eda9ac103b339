import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../helpers/paths.js';
import type { Doc } from '../../../src/doc/document.js';

/** Real code from installed packages: JavaScript and TypeScript from node_modules, Python from Debian's python3. */
export function realCode(): { path: string; text: string }[] {
  const py = spawnSync('python3', ['-c', 'import textwrap, shlex; print(textwrap.__file__); print(shlex.__file__)'], { encoding: 'utf8' });
  const pyFiles = py.status === 0 ? py.stdout.trim().split('\n') : [];
  const files = [
    join(repoRoot, 'node_modules/commander/lib/command.js'),
    join(repoRoot, 'node_modules/commander/lib/help.js'),
    join(repoRoot, 'node_modules/@types/node/path.d.ts'),
    ...pyFiles,
  ];
  return files.map((f) => ({ path: f, text: readFileSync(f, 'utf8') }));
}

/** Small files with the awkward cases: unicode, CRLF, tabs, no final newline, markers in the source. */
export const EDGE_FILES: { path: string; text: string }[] = [
  { path: 'unicode.py', text: 'def grüß(名前):\n    return f"😀 {名前} — ok"\n\n\nclass Ünï:\n    pass\n' },
  { path: 'crlf.js', text: 'function a() {\r\n\treturn 1;\r\n}\r\n\r\nfunction b() {\r\n\treturn 2;\r\n}\r\n' },
  { path: 'tabs.ts', text: 'export class T {\n\tm(x: number): number {\n\t\tif (x) {\n\t\t\treturn x;\n\t\t}\n\t\treturn 0;\n\t}\n}' },
  { path: 'markers.py', text: 's = "<|fim_prefix|><|fim_middle|>"\n# <|im_start|> is text here\ndef f():\n    return s\n' },
  { path: 'one-line.c', text: 'int main(void) { return 0; }' },
  { path: 'empty.txt', text: '' },
];

export function codeDoc(f: { path: string; text: string }, id = f.path): Doc {
  return { id, kind: 'text', source: f.path, text: f.text, meta: { path: f.path } };
}

export function specialStrings(doc: Pick<Doc, 'text' | 'special_spans'>): string[] {
  return (doc.special_spans ?? []).map(([a, b]) => doc.text.slice(a, b));
}
